# Transactions (chapter 8): atomic writes, markers, the LSO and read_committed.
cluster open brokers=1,2
topic create in rf=2
topic create out partitions=2 rf=2
txn list
produce in value=job-1 acks=all
replicate
consumer create worker group=workers isolation=read_committed
consumer subscribe worker in
consumer poll worker
txn begin t1
txn begin t1
txn send t1 out key=a value=result-1 partition=0
txn send t1 out key=b value=result-2 partition=0
txn offsets t1 group=workers in-0=1
txn list
offsets out-0
show out-0
fetch out-0
fetch out-0 isolation=read_committed
check out-0 lso == 0
check out-0 records isolation=read_committed == 0
replicate
check out-0 hw == 1
check out-0 lso == 0
txn commit t1
txn list
check group workers committed in-0 == none
replicate
txn list
check txn t1 state == complete_commit
check group workers committed in-0 == 1
fetch out-0 isolation=read_committed
show out-1
produce out value=plain partition=0 acks=all
txn begin t1
txn send t1 out key=a value=doomed partition=0
produce out value=after partition=0 acks=1
replicate
offsets out-0
show out-0
fetch out-0 isolation=read_committed
txn abort t1
replicate
show out-0
fetch out-0 isolation=read_committed
fetch out-0
consumer create reader group=readers isolation=read_committed
consumer assign reader out-0
consumer poll reader
consumer position reader out-0
check consumer reader lag out-0 == 0
txn send t1 out value=late
txn commit t1
txn commit nosuch
txn offsets t1 in-0=1
txn offsets t1 group=workers
txn offsets t1 group=workers bogus=1
# An open transaction at a crash is aborted by recovery.
txn begin t2
txn send t2 out key=a value=interrupted partition=0
replicate
cluster crash
cluster restart
replicate
txn list
fetch out-0 isolation=read_committed
show out-0
