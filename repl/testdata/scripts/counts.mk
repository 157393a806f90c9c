# Counts read as English: "1 offset", "1 replica log", "1 batch", "1 tombstone"; hidden
# ranges start at the offset asked for; a duplicate ack waits for the HW; hints say what to do next.
cluster open brokers=1,2 replica.lag.max.offsets=0
topic create events partitions=1 rf=2
produce events value=a acks=1
clock advance 1ms
replicate
broker crash 2 keep-unflushed
broker restart 2
topic create solo partitions=1 rf=1
produce solo value=a
corrupt solo-0 mode=garbage bytes=1
cluster crash
cluster restart
# Compaction counts.
cluster open brokers=1 segment.bytes=150
topic create keys partitions=1 rf=1
produce keys key=k value=1
produce keys key=k tombstone
produce keys key=j value=3
produce keys key=j value=4
compact keys-0 delete.retention.ms=0
clock advance 1s
compact keys-0 delete.retention.ms=0
# What fetch cannot see yet starts at the offset asked for (HW 0, LEO 2).
cluster open brokers=1,2
topic create f partitions=1 rf=2
produce f value=x acks=1
produce f value=y acks=1
fetch f-0
fetch f-0 offset=1
fetch f-0 offset=2
# A retried duplicate acks=all waits for the HW to cover the original offset (decision 5).
topic create g partitions=1 rf=2
producer create p idempotent acks=all
producer send p g value=v
producer flush p
producer retry p
offsets g-0
replicate
offsets g-0
# Hints: lower-case, no period, the next step.
produce f value=z epoch=7 partition=0
group describe nosuch
# A group nobody joined and nobody committed for: no committed offsets, no lag, no
# members; its state is an error, as group describe's is.
check group nosuch committed f-0 == none
check group nosuch lag f-0 == none
check group nosuch members == []
check group nosuch owner f-0 == none
check group nosuch state == empty
group describe nosuch members
