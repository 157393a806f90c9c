# show on a long log with a follower far behind: the columns around the
# follower's LEO are read, so its records are drawn, not marked removed.
cluster open brokers=1,2,3 min.insync.replicas=1 replica.lag.max.offsets=100
topic create t partitions=1 rf=3
produce t value=a0
produce t value=a1
produce t value=a2
produce t value=a3
produce t value=a4
produce t value=a5
produce t value=a6
replicate follower=2
produce t value=a7
produce t value=a8
produce t value=a9
produce t value=a10
produce t value=a11
produce t value=a12
produce t value=a13
produce t value=a14
produce t value=a15
produce t value=a16
produce t value=a17
produce t value=a18
produce t value=a19
show t-0
