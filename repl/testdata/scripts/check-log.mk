# check on the log: segments, index, batches, values, one key or value (chapters 1-6, 10).
cluster open brokers=1,2 segment.bytes=160 index.interval.bytes=1
topic create clicks rf=2
produce clicks value=value-0
produce clicks value=value-1
produce clicks value=value-2
produce clicks key=k value="two words"
produce clicks key="" tombstone
produce clicks value=""
produce clicks value=hex:00ff
produce clicks value=null
log segments clicks-0
check clicks-0 segments == [0 1 2 3 5 7]
check clicks-0 segments == 0,1,2,3,5,7
check clicks-0 segments == [0 2 4 6]
check clicks-0 segments@2 == [0]
check clicks-0 index == [0 1 2 3 4 5 6 7]
check clicks-0 batches == 8
check clicks-0 batches@2 == 0
# values: what a consumer sees (below the HW); values@B: the whole log of broker B.
check clicks-0 values == []
check clicks-0 records == 0
check clicks-0 values@1 == [value-0 value-1 value-2 "two words" null "" hex:00ff "null"]
check clicks-0 values@1 == [value-0]
replicate
check clicks-0 values == [value-0 value-1 value-2 "two words" null "" hex:00ff "null"]
check clicks-0 values@2 == [value-0 value-1 value-2 'two words' null "" hex:00ff "null"]
check clicks-0 values != []
check clicks-0 key offset=3 == k
check clicks-0 key offset=4 == ""
check clicks-0 key offset=0 == null
check clicks-0 value offset=4 == null
check clicks-0 value offset=5 == ""
check clicks-0 value offset=6 == hex:00ff
check clicks-0 value offset=6 == b64:AP8=
check clicks-0 value offset=7 == "null"
check clicks-0 value@2 offset=3 == "two words"
check clicks-0 value offset=99 == none
check clicks-0 value offset=99 == null
# Retention moves the log start: an offset below it is none.
retention clicks-0 retention.bytes=300
check clicks-0 log-start == 5
check clicks-0 segments == [5 7]
check clicks-0 value offset=0 == none
check clicks-0 values == ["" hex:00ff "null"]
# Replica quantities.
check clicks-0 replicas == [1 2]
check clicks-0 isr == [1 2]
check clicks-0 at-min-isr == false
check clicks-0 under-min-isr == false
config set min.insync.replicas=2
check clicks-0 at-min-isr == true
broker crash 2
clock advance 20s
check clicks-0 isr == [1]
check clicks-0 under-min-isr == true
check clicks-0 batches@2 == 0
# Mistakes are usage errors, found before anything runs.
check clicks-0 values == value-0
check clicks-0 values < [a]
check clicks-0 segments == [0 x]
check clicks-0 key == k
check clicks-0 hw offset=1 == 1
check clicks-0 isr@1 == [1]
check clicks-0 values@1 isolation=read_committed == []
check clicks-0 value offset=1 == a b
check clicks-0 value offset=1 == hex:0
check clicks-0 at-min-isr == yes
check clicks-0 values == [a] key=b
