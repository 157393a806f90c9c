# kafka and kclient: the Kafka wire listener on this session's cluster and a real kgo client (chapter 11).
cluster open brokers=1,2
topic create events partitions=2 rf=2
kafka
kclient produce events value=x
kafka listen 10.0.0.1:9092
kafka listen trace=loud
kafka listen
kafka listen
serve start
kafka status
kclient list
kclient produce events key=alice value=x acks=all partition=0
replicate
kclient produce events key=bob value=y acks=1 partition=1
kclient produce events value=z acks=0 partition=1
kclient produce nope value=x acks=1
kclient consume events
kclient consume events partition=1 from=1 max=1
kclient consume events isolation=read_committed
kclient join m1 group=g topic=events
kclient join m1 group=g topic=events
kclient list
group describe g
kclient poll m1
kclient commit m1
kclient commit m1
kclient poll nobody
kclient leave m1
kclient list
kafka stop
kafka stop
kclient consume events
