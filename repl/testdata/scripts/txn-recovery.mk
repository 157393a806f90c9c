# Transactions that cannot finish now say what was attempted and what failed; recovery
# says what it found in the journal, and corrupt journal damages it.
cluster open brokers=1,2 min.insync.replicas=2
topic create orders partitions=1 rf=2
txn begin empty
txn commit empty
txn begin nothing
txn abort nothing
txn begin t1
txn send t1 orders value=x
replicate
broker crash 2
clock advance 30s
txn commit t1
txn list
broker restart 2
replicate
txn commit t1
replicate
txn begin t2
txn send t2 orders value=y
replicate
txn commit t2
cluster crash
cluster restart
txn list
# corrupt journal: recovery keeps the lines before the first bad one (decision 17).
corrupt journal
corrupt journal mode=flip bytes=100000
corrupt journal broker=1 mode=flip
corrupt journal mode=flip
cluster restart
corrupt journal mode=garbage
cluster restart
corrupt journal mode=truncate bytes=20
cluster restart
txn list
cluster open brokers=1
corrupt journal mode=garbage
