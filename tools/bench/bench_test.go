package bench

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func names(figs []Figure) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Name)
	}
	return out
}

// Every workload runs on a tiny log, names its figures as documented and
// leaves no scratch directory behind.
func TestWorkloadsTiny(t *testing.T) {
	tmp := t.TempDir()
	figs, err := Run(nil, Options{Records: 3000, SegmentBytes: 64 << 10, Partitions: 4, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"go.produce.b1.records_per_s", "go.produce.b1.log_MBps",
		"go.produce.b512.records_per_s", "go.produce.b512.log_MBps",
		"go.fetch.single.records_per_s", "go.fetch.chunked.c1000.n3000.records_per_s",
		"go.recovery.clean.open_s", "go.recovery.corrupt_tail.open_s",
		"go.replicate.b512.follower_MBps", "go.produce.cluster.b512.records_per_s",
		"go.produce.log.b512.records_per_s", "go.produce.cluster_over_log.b512.time_ratio",
		"go.restart.p4.create_s", "go.restart.p4.close_s", "go.restart.p4.open_s", "go.restart.p4.restart_s",
		"go.restart.p4.first_close_s", "go.restart.p4.first_open_s",
		"go.producer.b512.records_per_s", "go.producer.client_over_log.b512.time_ratio", "go.producer.b512.alloc_bytes_per_record",
		"go.group_join.m1000.seconds", "go.group_join.m1000.joins_per_s",
		"go.read_committed.t3000.fetch100_s", "go.read_uncommitted.t3000.fetch100_s", "go.read_committed_over_plain.t3000.fetch100.time_ratio",
	}
	if _, ok := ProcessCPU(); ok {
		// The producer workload's CPU figures come right after its others.
		at := slices.Index(want, "go.producer.b512.alloc_bytes_per_record") + 1
		want = slices.Insert(want, at, "go.producer.b512.cpu_ns_per_record", "go.producer.client_over_log.b512.cpu_ratio")
	}
	if !slices.Equal(names(figs), want) {
		t.Fatalf("figures %v, want %v", names(figs), want)
	}
	for _, f := range figs {
		if !(f.Value > 0) {
			t.Fatalf("%s = %v", f.Name, f.Value)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("scratch left behind: %v", entries)
	}
}

func TestBatchFlagAndUnknownWorkload(t *testing.T) {
	figs, err := Run([]string{"produce"}, Options{Records: 100, Batch: 10, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(figs), []string{"go.produce.b10.records_per_s", "go.produce.b10.log_MBps"}) {
		t.Fatalf("%v", names(figs))
	}
	if _, err := Run([]string{"replicate-everything"}, Options{}); err == nil || !strings.Contains(err.Error(), "unknown workload") {
		t.Fatalf("error %v", err)
	}
}

func TestWriteMetricsAndTable(t *testing.T) {
	figs := []Figure{
		{Workload: "produce", Name: "go.produce.b512.records_per_s", Value: 3120000.4, Unit: UnitRecordsPerSec},
		{Workload: "produce", Name: "go.produce.b512.log_MBps", Value: 380.26, Unit: UnitMBPerSec},
		{Workload: "recover", Name: "go.recovery.clean.open_s", Value: 0.0042137, Unit: UnitSeconds},
	}
	var m bytes.Buffer
	if err := WriteMetrics(&m, figs); err != nil {
		t.Fatal(err)
	}
	want := "metric=go.produce.b512.records_per_s value=3120000 unit=records/s\n" +
		"metric=go.produce.b512.log_MBps value=380.3 unit=MB/s\n" +
		"metric=go.recovery.clean.open_s value=0.004214 unit=s\n"
	if m.String() != want {
		t.Fatalf("metrics:\n%s\nwant:\n%s", m.String(), want)
	}
	line := regexp.MustCompile(`^metric=[a-zA-Z0-9_.]+ value=[0-9.]+ unit=\S+$`)
	for _, l := range strings.Split(strings.TrimSpace(m.String()), "\n") {
		if !line.MatchString(l) {
			t.Fatalf("bad metric line %q", l)
		}
	}
	var tb bytes.Buffer
	if err := WriteTable(&tb, figs); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"WORKLOAD", "go.produce.b512.records_per_s", "3120000", "0.004214"} {
		if !strings.Contains(strings.ToUpper(tb.String()), strings.ToUpper(s)) {
			t.Fatalf("table lacks %q:\n%s", s, tb.String())
		}
	}
}
