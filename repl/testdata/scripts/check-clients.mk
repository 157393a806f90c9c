# check on the clock, brokers, producers, groups, consumers and transactions.
cluster open brokers=1,2 min.insync.replicas=2 replica.lag.time.max.ms=100
check clock == 0
clock advance 250ms
check clock == 250
check clock >= 100
check clock == soon
topic create payments rf=2
check payments-0 pending-acks == 0
produce payments value=p acks=all
check payments-0 pending-acks == 1
replicate
check payments-0 pending-acks == 0
check broker 1 up == true
check broker 9 up == true
check broker 1 up == maybe
producer create pay batch.size=1 idempotent
producer send pay payments value=charge-42
check producer pay pending == 1
check producer pay acked == 0
replicate
producer retry pay
producer retry pay
check producer pay acked == 3
check producer pay failed == 0
check producer pay epoch == 0
check producer pay buffered == 0
producer create plain linger.ms=1000
producer send plain payments value=later
check producer plain buffered == 1
check producer plain epoch == none
check producer nosuch acked == 0
check producer pay sent == 1
topic create orders partitions=4
consumer create c1 group=workers
consumer create c2 group=workers
consumer subscribe c1 orders
consumer subscribe c2 orders
check group workers members == [member-1 member-2]
check group workers members == [member-2,member-1]
check group workers members == 2
check group workers members >= 3
check group workers owner orders-1 == member-2
check group workers owner orders-0 == member-2
check group workers generation == 2
check group workers state == stable
check group workers state == Stable
check consumer c1 assignment == [orders-0 orders-1 orders-2 orders-3]
check consumer c1 generation == 1
consumer refresh c1
check consumer c1 assignment == [orders-0 orders-2]
check consumer c2 polled == 0
produce orders value=o1 partition=1
consumer poll c2
check consumer c2 polled == 1
check consumer c2 position orders-1 == 1
check consumer c2 position orders-0 == none
check consumer c2 closed == false
consumer close c2
check consumer c2 closed == true
check group workers owner orders-1 == member-1
check group workers owner orders-9 == none
check group workers owner == member-1
check consumer c1 assignment orders-0 == 1
check txn t1 state == ongoing
txn begin t1
check txn t1 state == ongoing
check txn t1 state == done
