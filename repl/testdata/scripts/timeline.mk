# Undo, fork, record and history: the session's timeline.
topic create events partitions=1 rf=2
produce events value=a acks=1
offsets events-0
produce events value=b acks=1
bogus command
produce nosuch value=x
show events-0
undo
show events-0
history
undo 5
undo 0
fork what-if
broker crash 2
produce events value=c acks=1
fork list
fork switch main
show events-0
fork switch what-if
show events-0
history
fork switch nosuch
fork switch what-if
fork list
fork main
fork bad/name
undo 2
fork
history
record status
record stop
record start notalab.txt
serve start
undo
serve stop
undo
fork again
cluster open brokers=1
undo
history
