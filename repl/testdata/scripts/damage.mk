# Damage on disk: log dump shows the valid batches and the invalid tail, for a
# flipped bit in a closed or the active segment; a replicate round that fails on
# several partitions prints one error line per partition.
cluster open brokers=1 segment.bytes=200
topic create c partitions=1 rf=1
produce c value=aaaaaaaaaaaaaaaaaaaa
produce c value=b
produce c value=c
produce c value=d
corrupt c-0 segment=0 mode=flip bytes=5
corrupt c-0 mode=flip
log dump c-0 segment=0
log dump c-0 segment=active
corrupt c-0 mode=truncate bytes=10
log dump c-0 segment=active records
cluster open brokers=1,2
topic create e partitions=2 rf=2
produce e value=a partition=0
produce e value=b partition=1
corrupt e-0 mode=flip bytes=10
corrupt e-1 mode=flip bytes=10
replicate
