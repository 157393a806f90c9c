# JSON: a command failing with several errors lists them all under error.errors.
cluster open brokers=1,2
topic create e partitions=2 rf=2
produce e value=a partition=0
produce e value=b partition=1
corrupt e-0 mode=flip bytes=10
corrupt e-1 mode=flip bytes=10
replicate
offsets e-0
