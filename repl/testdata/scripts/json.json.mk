# --format json: one object per command, snake_case fields, pending handles.
cluster open brokers=1,2 min.insync.replicas=2
topic create events rf=2
topic describe events
produce events key=k value=hex:00ff acks=all
offsets events-0
replicate
fetch events-0
produce events tombstone key=gone acks=1
fetch events-0 offset=1
produce events value=x acks=0
producer create p1 linger.ms=10
producer send p1 events value=queued
clock advance 10ms
replicate
broker crash 2
produce events value=y acks=all
check events-0 hw == 99
show events-0
config set segment.bytes=1000
nosuch
help produce
# The learner's loop in JSON: concepts, the course, undo and fork.
help hw
read 1 summary
progress
undo
fork what-if
fork list
history
