# topics, produce and fetch: the first produce -> fetch path (chapter 1).
topic list
topic create orders partitions=2
topic create orders
topic create "bad name"
topic create big partitions=0
topic create wide rf=4
topic list
topic describe
topic describe orders
topic describe nosuch
# crc32("alice") % 2 == 1
produce orders key=alice value=created
fetch orders-1
produce orders key=bob value=paid
produce orders value=no-key
produce orders value=no-key-again
produce orders key="" value="empty key"
produce orders key=alice tombstone
produce orders key=bin value=hex:00ff10 partition=0
produce orders key=b64 value=b64:aGVsbG8= partition=0
produce orders value="two words, \"quoted\"" partition=0
fetch orders-0
fetch orders-0 offset=2 max=2
fetch orders-0 max=0
fetch orders-0 offset=99
fetch orders-0 isolation=read_committed
fetch orders-1
produce orders value=x partition=2
produce orders value=x acks=2
produce orders
produce orders value=x tombstone
produce nosuch value=x
fetch orders
fetch orders-9
fetch orders-0 isolation=serializable
produce orders value=x acks=all
produce orders value=y acks=0
produce orders value=z acks=-1
