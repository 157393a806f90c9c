# Decision 43: a commit or abort whose marker is refused at once
# (NOT_ENOUGH_REPLICAS) is a failed command, like any refused write; the
# transaction stays prepared and the same outcome may be retried.
cluster open brokers=1
topic create s partitions=1 rf=1
txn begin t
txn send t s value=v
config set min.insync.replicas=2
txn commit t
txn list
txn abort t
config set min.insync.replicas=1
txn commit t
txn begin u
txn send u s value=w
config set min.insync.replicas=2
txn abort u
config set min.insync.replicas=1
txn abort u
txn list
fetch s-0 isolation=read_committed
