# --format json for consumers, groups and transactions (repl.md "Output modes").
topic create orders partitions=2
consumer create c1 group=workers
consumer subscribe c1 orders
produce orders key=alice value=created
consumer poll c1
consumer commit c1
group list
group describe workers
consumer position c1
consumer committed c1 orders-0
txn begin t1
txn send t1 orders key=alice value=x
txn offsets t1 group=workers orders-1=1
txn list
txn commit t1
txn list
fetch orders-1 isolation=read_committed
consumer close c1
log dump orders-1 records
log index orders-1
retention orders-1 retention.bytes=1
compact orders-1
corrupt orders-1 mode=flip
history
