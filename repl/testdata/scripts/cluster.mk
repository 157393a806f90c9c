# cluster, config and clock: the lifecycle of the whole cluster.
config
config show
config set min.insync.replicas=2 segment.bytes=4096
config set min.insync.replicas=0
config set colour=red
config set
clock
clock advance 1500ms
clock advance 2s
clock advance 1m
clock advance -5
clock advance soon
clock
cluster open brokers=1,2 replica.lag.time.max.ms=100
config
clock
topic create events rf=2
produce events value=a
cluster close
topic list
produce events value=b
cluster close
cluster restart
topic list
fetch events-0
cluster crash
cluster restart
cluster open brokers=1,1
cluster open brokers=x
cluster open min.insync.replicas=0
cluster open nosuch.key=1
cluster open dir=
topic list
