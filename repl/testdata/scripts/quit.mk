# quit ends a script like exit; nothing after it runs.
clock
quit
clock advance 1s
