# explore: the shortest schedule that breaks a property, or the count of
# states that none breaks; bad input is a usage error and changes nothing.
explore
topic create events partitions=1 rf=3
produce events value=x acks=1
explore depth=0
explore depth=1000
explore ops=produce,fly
explore property=durable
explore acks=2
explore values=0
explore save=loss.txt
offsets events-0
explore depth=4
explore depth=4 ops=replicate,crash,restart
cluster open brokers=1,2,3 rules=kafka min.insync.replicas=2
topic create events partitions=1 rf=3
broker crash 3 keep-unflushed
clock advance 9001ms
explore depth=5 faults=1 values=1 ops=produce,replicate,crash,crash-keep,restart,promote
explore depth=5 faults=2 values=1 ops=produce,replicate,crash,crash-keep,restart,promote max-states=50
explore depth=5 property=logs-agree values=1 ops=produce,replicate,crash-keep,restart,promote
offsets events-0
