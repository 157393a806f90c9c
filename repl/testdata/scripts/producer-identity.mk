# Producer identities, buffer.memory, CreateTime and retries after a failed ack (chapters 3, 4, 9).
cluster open brokers=1
topic create payments
# Two live instances of one identity: the older is fenced at its next batch.
producer create old batch.size=1 idempotent transactional.id=writer
producer send old payments value=from-old
producer create new batch.size=1 idempotent transactional.id=writer
producer send old payments value=zombie
producer send new payments value=from-new
fetch payments-0
producer list
check producer old failed == 1
# A fenced batch waiting in the accumulator fails when it is flushed.
producer create lazy linger.ms=100 transactional.id=w2
producer send lazy payments value=stale
producer create new2 transactional.id=w2
clock advance 100ms
producer flush lazy
producer create bad transactional.id=
producer create bad acks=0 transactional.id=w3
# buffer.memory bounds the accumulator (39 + key + value bytes per record).
producer create tight buffer.memory=80 linger.ms=1000
producer send tight payments value=a
producer send tight payments value=b
producer send tight payments value=c
producer flush tight
producer send tight payments value=c
# timestamp=MS sets CreateTime (a future one holds retention back).
producer flush tight
produce payments value=future timestamp=99999
producer send tight payments value=old timestamp=5
producer flush tight
log dump payments-0
produce payments value=x timestamp=-1
# Retries after a failed acknowledgement.
cluster open brokers=1,2 min.insync.replicas=2 replica.lag.time.max.ms=100
topic create payments rf=2
producer create plain acks=all
producer send plain payments value=pay-1
producer flush plain
clock advance 101ms
replicate payments-0
producer retry plain
replicate payments-0
producer create safe idempotent
producer send safe payments value=pay-2
producer flush safe
clock advance 101ms
replicate payments-0
producer retry safe
check producer safe acked == 1
producer send safe payments value=pay-3
producer flush safe
producer retry safe
replicate
fetch payments-0
producer create fresh
producer retry fresh
# Refused before any append: the retry is appended anew.
broker crash 2
clock advance 101ms
producer send safe payments value=pay-4
producer flush safe
broker restart 2
replicate
producer retry safe
replicate
