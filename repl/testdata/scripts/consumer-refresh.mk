# Decision 42: refreshing a consumer that never joined asks the coordinator,
# which does not know the member (UNKNOWN_MEMBER), as after an expiry.
cluster open brokers=1
topic create b partitions=1 rf=1
consumer create c1 group=g1
consumer refresh c1
consumer create c2 group=g1
consumer subscribe c2 b
consumer refresh c1
consumer heartbeat c1
consumer assign c1 b-0
consumer refresh c1
consumer assignment c1
