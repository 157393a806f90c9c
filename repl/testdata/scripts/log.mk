# The log on disk: segments, dump, index, damage and recovery, retention, compaction (chapters 2 and 3).
cluster open brokers=1,2 segment.bytes=200 index.interval.bytes=100
topic create events rf=2
produce events key=k1 value=v1
produce events key=k2 value=v2
produce events key=k1 value=v3
produce events key=k2 tombstone
produce events key=k3 value=v5
replicate
log segments events-0
log segments events-0 broker=2
log dump events-0
log dump events-0 segment=2 records
log index events-0
log index events-0 segment=99
log segments events-0 broker=7
# Damage the leader's active segment: the broker notices only when it restarts.
corrupt events-0 mode=garbage
log dump events-0 segment=active
broker crash 1 keep-unflushed
broker restart 1
log dump events-0 segment=active
corrupt events-0 broker=2 mode=truncate bytes=10
corrupt events-0 broker=2 segment=0 mode=flip
corrupt events-0 mode=shred
corrupt events-0
cluster crash
cluster restart
cluster open brokers=1 segment.bytes=150
topic create compacted
produce compacted key=a value=1
produce compacted key=b value=1
produce compacted key=a value=2
produce compacted key=b tombstone
produce compacted key=c value=1
log segments compacted-0
show compacted-0 keys
compact compacted-0
show compacted-0 keys
fetch compacted-0
clock advance 48h
compact compacted-0 delete.retention.ms=1000
show compacted-0 keys
retention compacted-0
retention compacted-0 retention.bytes=100
log segments compacted-0
fetch compacted-0
clock advance 1h
retention compacted-0 retention.ms=10m
