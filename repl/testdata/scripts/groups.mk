# Consumers and consumer groups (chapter 7), after spec 16.2 (rebalance without a revoke barrier).
topic create orders partitions=4
consumer list
group list
consumer create c1 group=workers
consumer create c1
consumer subscribe c1 orders
consumer create c2 group=workers
consumer subscribe c2 orders
consumer list
consumer commit c1
consumer refresh c1
consumer list
produce orders key=alice value=created
produce orders key=bob value=created
produce orders key=carol value=created
consumer poll c1
consumer poll c2 max=1
consumer poll c2
consumer position c1
consumer position c2 orders-1
consumer lag c1
consumer committed c1
consumer commit c1
consumer commit c2
consumer committed c1
group list
group describe workers
group describe workers members
group describe workers state
group describe workers members state
check group workers committed orders-0 == 1
check group workers committed orders-2 == 0
check group workers lag orders-1 == 0
check group workers state == stable
check group workers generation == 2
check group workers members == 2
check consumer c1 assignment == orders-0,orders-2
check consumer c2 position orders-1 == 1
check consumer c2 committed orders-3 == none
check consumer c1 lag orders-0 == 0
produce orders key=alice value=paid
consumer lag c2
group describe workers
consumer seek c1 orders-0 0
consumer poll c1
consumer seek c1 orders-1 0
consumer seek c1 orders-0 -1
consumer close c2
consumer commit c1
consumer heartbeat c1
consumer refresh c1
consumer heartbeat c1
group describe workers
consumer create solo group=manual auto.offset.reset=latest
consumer assign solo orders-0 orders-1
consumer poll solo
consumer subscribe solo orders
produce orders key=bob value=late
consumer poll solo
consumer commit solo
group describe manual
consumer create strict group=strict auto.offset.reset=error
consumer assign strict orders-0
consumer poll strict
clock advance 10001ms
group describe workers
check group workers state == empty
consumer heartbeat c1
consumer poll nosuch
consumer assign c1 nosuch-0
consumer create bad auto.offset.reset=sometimes
group describe nosuch
