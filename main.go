// Command minikafka is MiniKafka Lab: a deterministic, in-process model of a
// small Kafka cluster with a REPL, scripted labs, checked exercises and ten
// chapters. Run it without arguments for the REPL; `minikafka help` lists the
// subcommands.
//
// This file only embeds the teaching material and hands over to cli.
package main

import (
	"embed"
	"os"

	"github.com/minikafka-lab/minikafka/cli"
)

// content holds the chapters, labs, exercises and fixtures, so that a binary
// installed with `go install` carries them.
//
//go:embed chapters labs fixtures
var content embed.FS

func main() {
	os.Exit(cli.Main(cli.DefaultEnv(content), os.Args[1:]))
}
