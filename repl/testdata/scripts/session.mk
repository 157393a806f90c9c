# The engine-free commands: help, history, exit, and how lines are read.
help
help help
help history

   # a comment line and blank lines do nothing

history
bogus
hepl
help bogus
help help extra
history now
exit
help

# Concepts: help TOPIC.
help hw
help concepts
help high-watermark
