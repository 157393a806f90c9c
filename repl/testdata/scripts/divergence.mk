# A diverged replica: replicate prints what happened in order, and says "nothing to copy"
# only when nothing happened; show marks cells that differ from the leader's log with !.
cluster open brokers=1,2
topic create e partitions=1 rf=2
produce e value=a acks=1
replicate
produce e value=old acks=1
promote e-0 2
show e-0
produce e value=new acks=1
produce e value=new2 acks=1
show e-0
show e-0 keys
replicate
show e-0
replicate
replicate rounds=2
# The same with rounds=N: each round's effects under its heading, in order.
produce e value=x acks=1
promote e-0 1
replicate rounds=2
