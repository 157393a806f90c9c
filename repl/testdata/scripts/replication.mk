# Replication: LEO runs ahead of HW, followers fetch on request, acks=all waits (chapters 5 and 6).
cluster open brokers=1,2,3 min.insync.replicas=2
topic create events partitions=1 rf=3
produce events value=a acks=1
offsets events-0
show events-0
replicate follower=2
offsets events-0
replicate
offsets events-0
show events-0
produce events value=b acks=all
offsets events-0
replicate events-0
replicate events-0
replicate rounds=2
replicate nosuch-0
replicate follower=9
broker list
# A follower that stops fetching leaves the ISR after replica.lag.time.max.ms.
broker crash 3
broker list
clock advance 10s
clock advance 1ms
offsets events-0
produce events value=c acks=all
show events-0
replicate
broker restart 3
replicate
offsets events-0
# Fail the leader; promote an in-sync follower.
produce events value=d acks=1
broker crash 1
topic describe events
produce events value=e
fetch events-0
promote events-0 3
promote events-0 2
topic describe events
offsets events-0
show events-0
broker restart 1
replicate
show events-0
rejoin events-0 2
rejoin events-0 1
promote events-0 9
broker crash 9
broker restart 2
