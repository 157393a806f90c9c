package labs_test

import (
	"os"
	"testing"

	"github.com/minikafka-lab/minikafka/cli"
	"github.com/minikafka-lab/minikafka/labs"
)

// TestContent runs the real teaching material of the repository (the
// labs/NN-slug/ directories and chapters/ at the root) on REPL sessions:
// every lab twice with identical transcripts, every exercise's reference
// solution and empty attempt, every chapter's transcripts (translations
// included), and every translation's presence and agreement with the
// English material.
func TestContent(t *testing.T) {
	fsys := os.DirFS("..")
	newExec := cli.SessionExecutor(fsys)
	t.Run("labs", func(t *testing.T) { labs.RunAll(t, fsys, newExec) })
	t.Run("exercises", func(t *testing.T) { labs.VerifyExercises(t, fsys, newExec) })
	t.Run("chapters", func(t *testing.T) { labs.CheckChapters(t, fsys, newExec) })
	t.Run("translations", func(t *testing.T) { labs.CheckTranslations(t, fsys) })
}
