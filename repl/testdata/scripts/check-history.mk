# The history checks: what ran, and what happened to the ISR.
topic create events partitions=1 rf=3
produce events value=a partition=0 acks=1
produce events value=b
check history ran produce == 2
check history ran "produce partition=" == 1
check history ran "produce acks=1" == 1
check history ran "produce !acks=all" == 2
check history ran "produce !acks=1" == 1
check history ran broker crash == 0
check history ran topic == 1
check history ran nosuch == 0
check history ran == 0
check events-0 isr-shrinks == 0
clock advance 20s
check events-0 isr-shrinks == 2
check events-0 isr-shrinks@2 == 1
replicate
check events-0 isr-expansions@3 == 1
check events-0 leader-changes == 0
check events-0 truncations == 0
check history ran "clock advance" == 1
check history ran check == 0
check history ran "produce value=b" >= 1
check history ran produce events == 2
check history ran produce nosuchword == 0
