# consumer commit TP=OFFSET, consumer assignment, seek offset=, isolation.level (chapters 7-9).
cluster open brokers=1
topic create orders partitions=4
produce orders value=a0 partition=0
produce orders value=a1 partition=1
produce orders value=a2 partition=2
produce orders value=a3 partition=3
consumer create c1 group=workers
consumer create c2 group=workers isolation.level=read_committed
consumer subscribe c1 orders
consumer poll c1 max=10
consumer subscribe c2 orders
consumer assignment c1
consumer assignment c2
consumer commit c1 orders-0=1
consumer refresh c1
consumer assignment c1
consumer commit c1 orders-1=1
consumer commit c1 orders-0=1 orders-2=1
check group workers committed orders-2 == 1
consumer commit c1 orders-9=1
consumer commit c1 orders-0=x
consumer commit c1 orders-0=-1
consumer seek c1 orders-0 offset=0
consumer position c1 orders-0
consumer seek c1 orders-0 1
consumer seek c1 orders-0
consumer seek c1 orders-0 1 offset=1
consumer create m group=manual
consumer assignment m
consumer assign m orders-3
consumer commit m orders-3=1
consumer assignment m
consumer create bad isolation.level=read_committed isolation=read_committed
consumer create bad isolation.level=serializable
consumer list
consumer close c2
consumer assignment c2
consumer commit c2 orders-1=1
# Several topics in one subscription.
topic create x partitions=3
topic create y partitions=3
consumer create a group=g
consumer create b group=g
consumer subscribe a x y
consumer subscribe b x y
consumer refresh a
check group g owner x-1 == member-5
check consumer a assignment == [x-0 x-2 y-1]
