# check: the assertions labs and exercises use.
cluster open brokers=1,2
topic create events rf=2
topic create orders partitions=2
produce events value=a acks=1
check events-0 hw == 0
check events-0 leo == 1
check events-0 leo@1 == 1
check events-0 leo@2 == 0
check events-0 leo@2 >= 1
check events-0 log-start == 0
check events-0 log-start@2 == 0
check events-0 lso == 0
check events-0 leader == 1
check events-0 epoch == 0
check events-0 isr == 1,2
check events-0 isr == [2 1]
check events-0 isr != 1
check events-0 records == 0
check events-0 records isolation=read_committed < 1
replicate
check events-0 hw == 1
check events-0 hw != 1
check events-0 hw < 1
check events-0 hw <= 1
check events-0 hw > 0
check events-0 records == 1
check orders partition-of key=alice == 1
check orders partition-of key=alice == 0
check orders partitions == 2
check broker 2 up == true
broker crash 1
check events-0 leader == none
check broker 1 up == false
check events-0 hw
check events-0 hw = 1
check events-0 hw == 1 2
check == 1
check events-0 bogus == 1
check events-0 leo@9 == 0
check events-0 isr < 1,2
check events-0 hw == x
check nosuch-0 hw == 0
check orders partition-of == 1
check broker x up == true
check broker 2 down == true
