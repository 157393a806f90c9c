# serve, remote, dispatch and the new checks in --format json.
cluster open brokers=1
topic create events
serve start
serve status
remote {"operation":"produce","topic":"events","value_b64":"aGk="}
remote {"operation":"metadata","topic":"missing"}
dispatch {"operation":"fetch","topic":"events","partition":0,"offset":0}
check events-0 values == [hi]
check events-0 values == [ho]
check events-0 segments == [0]
serve stop
producer create p batch.size=1 idempotent transactional.id=w
producer send p events value=x
producer retry p
consumer create c group=g
consumer subscribe c events
consumer assignment c
consumer commit c events-0=1
