# Kafka rules (rules=kafka, help rules): what changes when the cluster runs Kafka 4.x's rules.
cluster open brokers=1,2,3 rules=kafka
config show
# murmur2 (Utils.murmur2): alice is partition 1 of 2 under both rule sets, 0 of 3 under Kafka's.
topic create orders partitions=3 rf=3
produce orders key=alice value=created
# Followers learn the HW one fetch round late (follower.hw=fetch).
replicate
offsets orders-0
replicate
show orders-0
# The KRaft controller fences a crashed broker after broker.session.timeout.ms and elects from the ISR.
broker crash 1
produce orders key=alice value=lost
clock advance 9s
clock advance 1ms
broker list
offsets orders-0
replicate
# KAFKA-15583: the HW holds while the ISR is below min.insync.replicas; acks=all times out.
config set min.insync.replicas=2
produce orders key=alice value=held acks=all
config set min.insync.replicas=3
produce orders key=alice value=refused acks=all
config set min.insync.replicas=2 replica.lag.time.max.ms=1000
broker crash 3
clock advance 9001ms
produce orders key=alice value=acks1 acks=1
offsets orders-0
clock advance 30s
# NOT_LEADER_OR_FOLLOWER for a pending acks=all at a leader change; a single rule flipped back.
cluster open brokers=1,2 rules=kafka truncation=high-watermark
config show
topic create t partitions=1 rf=2
produce t value=a acks=all
promote t-0 2
# A partition without a live ISR member stays leaderless unless unclean election is enabled.
cluster open brokers=1,2 rules=kafka
topic create u partitions=1 rf=2
produce u value=a acks=all
replicate
broker crash 2 keep-unflushed
clock advance 9001ms
produce u value=b acks=all
broker restart 2
broker crash 1 keep-unflushed
clock advance 9001ms
offsets u-0
produce u value=c
config set unclean.leader.election.enable=true
clock advance 1ms
offsets u-0
# An idempotent producer's stale epoch is INVALID_PRODUCER_EPOCH at a partition.
producer create old batch.size=1 transactional.id=w
producer create new batch.size=1 transactional.id=w
producer send old u value=zombie
# Kafka 4.0's views (views=kafka): topic describe, consumer groups, dump-log.
cluster open brokers=1,2,3 rules=kafka min.insync.replicas=2
topic create a partitions=2 rf=3
topic describe a
broker crash 1
clock advance 10s
broker restart 1
replicate
topic describe a
consumer create c1 group=g
consumer create c2 group=g
consumer subscribe c1 a
consumer subscribe c2 a
consumer refresh c1
produce a key=k value=v partition=1
produce a key=k tombstone partition=1
consumer poll c1
consumer commit c1
group describe g
group describe g members
txn begin x
txn send x a value=in partition=1
replicate
txn commit x
replicate
log dump a-1 records
corrupt a-1 mode=flip bytes=1
log dump a-1 records
config set views=minikafka
topic describe a
# help rules lists every rule with both behaviours; help errors the codes with Kafka's names.
help rules
help errors
# Kafka's idempotence window: a retry of any of the last five batches is a duplicate (idempotence.window=5).
cluster open brokers=1 rules=kafka
topic create w
producer create p batch.size=1 idempotent
producer send p w value=a
producer send p w value=b
producer send p w value=c
producer retry p back=3
producer retry p back=6
config set idempotence.window=1
producer retry p back=2
