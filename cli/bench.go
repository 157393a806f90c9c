package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/minikafka-lab/minikafka/tools/bench"
)

const benchSynopsis = "bench [WORKLOAD]... [--records N] [--batch B] [--value-size S] [--segment-bytes N] [--rounds R] [--partitions N] [--format table|metrics]"

var benchCommand = &Subcommand{
	Name:     "bench",
	Synopsis: benchSynopsis,
	Summary:  "measure the storage engine's throughput on a scratch directory",
	Run:      runBench,
}

func runBench(env *Env, args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var o bench.Options
	fs.IntVar(&o.Records, "records", bench.DefaultRecords, "records per workload")
	fs.IntVar(&o.Batch, "batch", 0, "records per batch (default: produce runs 1 and 512, the others 512)")
	fs.IntVar(&o.ValueSize, "value-size", bench.DefaultValueSize, "value bytes per record")
	fs.Int64Var(&o.SegmentBytes, "segment-bytes", 1<<20, "segment.bytes")
	fs.IntVar(&o.Rounds, "rounds", bench.DefaultRounds, "run each measurement this many times and report the fastest")
	fs.IntVar(&o.Partitions, "partitions", bench.DefaultPartitions, "partitions of the restart workload (three replicas each)")
	format := fs.String("format", "table", "output `format`: table or metrics (metric=NAME value=V unit=U lines)")
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: minikafka %s\n\nworkloads:\n", benchSynopsis)
		for _, w := range bench.Workloads() {
			fmt.Fprintf(env.Stderr, "  %-14s %s\n", w.Name, w.Summary)
		}
		fmt.Fprintln(env.Stderr, "\nflags:")
		fs.PrintDefaults()
	}
	names, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		return 2
	}
	for _, n := range names {
		if _, ok := bench.Find(n); !ok {
			var all []string
			for _, w := range bench.Workloads() {
				all = append(all, w.Name)
			}
			fmt.Fprintf(env.Stderr, "minikafka bench: unknown workload %q (want %s)\n", n, strings.Join(all, ", "))
			return 2
		}
	}
	if *format != "table" && *format != "metrics" {
		fmt.Fprintf(env.Stderr, "minikafka bench: unknown format %q (want table or metrics)\n", *format)
		return 2
	}
	if o.Records <= 0 || o.Batch < 0 || o.ValueSize <= 0 || o.SegmentBytes <= 0 || o.Rounds <= 0 || o.Partitions <= 0 {
		fmt.Fprintln(env.Stderr, "minikafka bench: --records, --value-size, --segment-bytes, --rounds and --partitions must be positive, --batch not negative")
		return 2
	}
	if env.Getenv != nil {
		o.TempDir = env.Getenv("TMPDIR")
	}
	figs, err := bench.Run(names, o)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka bench: %v\n", err)
		return 1
	}
	if *format == "metrics" {
		err = bench.WriteMetrics(env.Stdout, figs)
	} else {
		err = bench.WriteTable(env.Stdout, figs)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka bench: %v\n", err)
		return 1
	}
	return 0
}
