# Producers: accumulator, batch.size, linger.ms, futures, idempotent retries (chapter 4).
topic create orders partitions=2
producer list
producer create p1 linger.ms=100
producer send p1 orders key=alice value=created
producer send p1 orders key=alice value=paid
producer send p1 orders key=bob value=created
producer list
clock advance 99ms
clock advance 1ms
producer list
producer create small batch.size=80
producer send small orders key=alice value=x
producer send small orders key=alice value=y
producer send small orders key=alice value=z
producer flush small
producer flush small
producer retry small
fetch orders-1
producer create idem idempotent
producer send idem orders key=alice value=once
producer flush idem
producer retry idem
fetch orders-1
producer list
producer create idem idempotent
producer send idem orders key=alice value=again
producer flush idem
producer create zero acks=0 idempotent
producer create bad batch.size=0
producer create bad linger.ms=soon
producer send nosuch orders value=x
producer send p1 nosuch value=x
producer send p1 orders value=x partition=5
producer send p1 orders
producer flush
