package cli

import (
	"flag"
	"fmt"

	"github.com/minikafka-lab/minikafka/tools/dumplog"
)

const dumpLogSynopsis = "dump-log FILE [--format text|kafka|json] [--records]"

var dumpLogCommand = &Subcommand{
	Name:     "dump-log",
	Synopsis: dumpLogSynopsis,
	Summary:  "show a segment (.log) or index (.index) file the way kafka-dump-log.sh does",
	Run:      runDumpLog,
}

// parseInterleaved parses flags that may come before or after the
// positional arguments (`dump-log FILE --records` and `dump-log --records
// FILE` both work) and returns the positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runDumpLog(env *Env, args []string) int {
	fs := flag.NewFlagSet("dump-log", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: minikafka %s\n", dumpLogSynopsis)
		fs.PrintDefaults()
	}
	format := fs.String("format", "text", "output `format`: text (Kafka's lines), kafka (Kafka 4.0's exact line shape) or json (one object per line)")
	records := fs.Bool("records", false, "print every record (Kafka's --deep-iteration --print-data-log)")
	files, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		return 2
	}
	if len(files) != 1 {
		fmt.Fprintf(env.Stderr, "minikafka dump-log: want exactly one FILE, got %d\nusage: minikafka %s\n", len(files), dumpLogSynopsis)
		return 2
	}
	f, err := dumplog.ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka dump-log: %v\n", err)
		return 2
	}
	if err := dumplog.DumpFile(env.Stdout, files[0], f, *records); err != nil {
		fmt.Fprintf(env.Stderr, "minikafka dump-log: %v\n", err)
		return 1
	}
	return 0
}
