# Spec 16.1 leader_failure: an acks=1 write acknowledged by the leader is lost on failover.
cluster open brokers=1,2
topic create payments rf=2
produce payments value=payment-confirmed acks=1
check payments-0 hw == 0
offsets payments-0
promote payments-0 2
fetch payments-0
show payments-0
check payments-0 records == 0
replicate
show payments-0
