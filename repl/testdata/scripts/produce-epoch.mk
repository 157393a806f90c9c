# produce epoch=N claims a leader epoch; keyless produce uses the topic's sticky partition (chapters 1, 4, 6).
cluster open brokers=1,2
topic create events rf=2
produce events value=a
replicate
promote events-0 2
produce events value=zombie epoch=0
produce events value=fresh epoch=1
check events-0 values@2 == [a fresh]
topic create orders partitions=3
produce orders value=k1
produce orders value=k2
produce orders value=k3
produce orders value=k4
produce orders key=alice value=x epoch=0
produce orders value=x epoch=0 partition=2
produce orders value=x epoch=0
produce orders value=x epoch=0 partition=7
produce orders value=x epoch=-1
broker crash 1
produce orders value=x epoch=0 partition=0
