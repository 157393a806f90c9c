package repl

import "github.com/minikafka-lab/minikafka/labs"

// tryingExercise is the exercise `exercise try` set up in this session.
type tryingExercise struct {
	ex *labs.Exercise
}
