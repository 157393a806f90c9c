# serve, remote and dispatch: the JSON/TCP adapter on this session's cluster (chapter 10).
cluster open brokers=1,2
topic create events rf=2
serve
remote {"operation":"metadata","topic":"events"}
serve start max.frame.bytes=42
serve status
serve start
remote {"operation":"metadata","topic":"events"}
remote {"operation":"metadata", "topic":"events"}
remote
remote not json
remote {"operation":"metadata","topic":"missing"}
serve stop
serve start
remote {"operation":"produce","topic":"events","partition":0,"key_b64":"AGtleQ==","value_b64":"/3ZhbHVl"}
check events-0 leo == 1
# acks=all answers at once: nothing replicates until you say so.
remote {"operation":"produce","topic":"events","value_b64":"aGk=","acks":"all"}
offsets events-0
replicate
remote {"operation":"fetch","topic":"events","partition":0,"offset":0}
check events-0 key offset=0 == hex:006b6579
check events-0 value offset=1 == hi
# Groups over TCP share the coordinator with the REPL's consumers.
topic create orders partitions=2
consumer create c1 group=workers
consumer subscribe c1 orders
remote {"operation":"join_group","group_id":"workers","member_id":"tcp-1","topics":["orders"]}
check group workers owner orders-1 == tcp-1
consumer commit c1
consumer refresh c1
remote {"operation":"commit_offsets","group_id":"workers","member_id":"tcp-1","generation":2,"offsets":[{"topic":"orders","partition":1,"offset":0}]}
check group workers committed orders-1 == 0
# The server follows cluster open.
cluster open brokers=1
remote {"operation":"metadata","topic":"events"}
remote {"operation":"create_topic","topic":"events","partitions":1,"replication_factor":1}
dispatch {"operation":"produce","topic":"events","value_b64":"ZGlyZWN0"}
dispatch {"operation":"fetch","topic":"events","partition":0,"offset":0}
dispatch {"operation":"fetch","topic":"events","partition":"0","offset":0}
dispatch
remote 127.0.0.1:1 {"operation":"metadata","topic":"events"}
remote 10.1.2.3:9093 {"operation":"metadata","topic":"events"}
serve start listen=0.0.0.0:0
serve start listen=nowhere
serve stop
serve stop
remote {"operation":"metadata","topic":"events"}
dispatch {"operation":"metadata","topic":"events"}
