# A new learner's first hour, as typed into `go run .` (TestWalkthrough).
# What is there to learn?
progress
read
# Chapter 1, without leaving the session.
read 1
help hw
# Step through lab 01-01: Enter runs each step.
lab step 01-01









quit
# Try exercise 01-01 here: the setup runs, then my commands.
exercise try 01-01
check orders partition-of key=alice == 0
check orders partition-of key=bob == 0
produce orders key=alice value=first
produce orders key=bob value=first
check
progress
