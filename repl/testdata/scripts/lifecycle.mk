# cluster open starts fresh with the clock at 0; cluster restart reopens the same directory (chapters 1, 2).
cluster open brokers=1
topic create events
produce events value=a
producer create p linger.ms=1000
producer send p events value=buffered
consumer create c group=g
clock advance 500ms
check clock == 500
# A crash loses the producer's buffer; restart recovers the logs and keeps the clock.
cluster crash
cluster restart
check clock == 500
check events-0 values == [a]
producer list
consumer list
# restart on a running cluster closes it gracefully first.
cluster restart
cluster close
cluster restart
topic list
# cluster open: a fresh directory, no topics, clock 0.
cluster open brokers=1
check clock == 0
topic list
