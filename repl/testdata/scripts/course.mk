# The course inside the REPL (the material of the repository; progress in
# memory). Commands that read lines themselves (lab step, quiz N) need a
# terminal or a script's next lines: see TestWalkthrough.
read
read 1 summary
read 1 99
read 77
lab list
lab run 01-01
lab run nosuch
lab step 01-01
exercise list
exercise show 01-03
exercise hint 01-03
exercise check
exercise check 01-03
exercise try 01-03
produce events value=a acks=1
check
exercise check 01-03
replicate
produce events value=b acks=1
check
history
undo 2
check events-0 leo@1 == 1
quiz
quiz 1
progress
