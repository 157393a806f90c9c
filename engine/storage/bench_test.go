package storage

import (
	"flag"
	"fmt"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// benchBig enables the 2M-record fetch benchmark (about 250 MB of log):
// go test -bench . -big ./engine/storage
var benchBig = flag.Bool("big", false, "run the 2M-record fetch benchmark")

// benchNoFsync measures without fsync calls, to see what the disk costs:
// go test -bench Append -nofsync ./engine/storage
var benchNoFsync = flag.Bool("nofsync", false, "skip fsync calls (diagnosis only)")

const benchValueSize = 100

// benchBatch is an unassigned batch of n keyless records with 100-byte values.
func benchBatch(n int) *record.Batch {
	value := make([]byte, benchValueSize)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	rs := make([]record.Record, n)
	for i := range rs {
		rs[i] = record.Record{Value: value, TimestampMs: int64(i)}
	}
	return record.NewBatch(rs)
}

// benchLog fills a log with records in batches of batch records.
func benchLog(b *testing.B, dir string, records, batch int) *Log {
	b.Helper()
	l, _, err := Open(dir, DefaultOptions(), 0)
	if err != nil {
		b.Fatal(err)
	}
	full := benchBatch(batch)
	for n := 0; n < records; n += batch {
		bt := full
		if records-n < batch {
			bt = benchBatch(records - n)
		}
		if _, _, err := l.Append(bt); err != nil {
			b.Fatal(err)
		}
	}
	return l
}

// benchAppendLog opens an empty log for the append benchmarks, on the
// real file system (without fsyncs under -nofsync).
func benchAppendLog(b *testing.B, segmentBytes int64) *Log {
	b.Helper()
	o := DefaultOptions()
	o.SegmentBytes = segmentBytes
	if *benchNoFsync {
		o.FS = vfs.NoSync(vfs.OS)
	}
	l, _, err := Open(b.TempDir(), o, 0)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkAppend: leader appends of 1-record and 512-record batches with
// 100-byte values into 1 MiB segments (rolls and their fsyncs included).
func BenchmarkAppend(b *testing.B) {
	for _, n := range []int{1, 512} {
		b.Run(fmt.Sprintf("b%d", n), func(b *testing.B) {
			l := benchAppendLog(b, DefaultSegmentBytes)
			defer l.Crash(true)
			batch := benchBatch(n)
			b.SetBytes(int64(batch.EncodedSize()))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := l.Append(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkAppendRolls: appends of 512-record batches (100-byte values)
// into 64 KiB segments, so that every append rolls: the roll's fsync of
// the old log file, its index file and the new segment's creation.
func BenchmarkAppendRolls(b *testing.B) {
	l := benchAppendLog(b, 64<<10)
	defer l.Crash(true)
	batch := benchBatch(512)
	b.SetBytes(int64(batch.EncodedSize()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, info, err := l.Append(batch)
		if err != nil {
			b.Fatal(err)
		}
		if i > 0 && !info.Rolled {
			b.Fatal("an append did not roll")
		}
	}
}

// BenchmarkFetchSinglePass reads a 200k-record log in one Fetch call.
func BenchmarkFetchSinglePass(b *testing.B) {
	const records = 200_000
	l := benchLog(b, b.TempDir(), records, 512)
	defer l.Crash(true)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recs, err := l.Fetch(0, records, -1)
		if err != nil || len(recs) != records {
			b.Fatalf("%d records, %v", len(recs), err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*records)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkReadBatchesSinglePass reads the same 200k-record log as raw
// batches (the follower's path: validated frames, no records built).
func BenchmarkReadBatchesSinglePass(b *testing.B) {
	const records = 200_000
	l := benchLog(b, b.TempDir(), records, 512)
	defer l.Crash(true)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batches, err := l.ReadBatches(0, 1<<30, -1)
		n := 0
		for _, rb := range batches {
			n += rb.Meta.RecordCount
		}
		if err != nil || n != records {
			b.Fatalf("%d records, %v", n, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*records)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkFetchChunked reads the whole log in Fetch calls of 1000 records,
// as a consumer does. The per-call cost must not grow with the log: the
// records/s at 2M records should match 20k within 20%.
func BenchmarkFetchChunked(b *testing.B) {
	for _, records := range []int{20_000, 2_000_000} {
		b.Run(fmt.Sprintf("n%d", records), func(b *testing.B) {
			if records > 100_000 && (testing.Short() || !*benchBig) {
				b.Skip("pass -big for the 2M-record log")
			}
			l := benchLog(b, b.TempDir(), records, 512)
			defer l.Crash(true)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if n := chunkedRead(b, l, 1000); n != records {
					b.Fatalf("read %d records", n)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// chunkedRead reads the whole log in Fetch calls of chunk records.
func chunkedRead(b testing.TB, l *Log, chunk int) int {
	n := 0
	for off := l.LogStartOffset(); off < l.LEO(); {
		recs, err := l.Fetch(off, chunk, -1)
		if err != nil || len(recs) == 0 {
			b.Fatalf("fetch at %d: %d records, %v", off, len(recs), err)
		}
		n += len(recs)
		off = recs[len(recs)-1].Offset + 1
	}
	return n
}

// BenchmarkReopen opens a ~50 MB log after a clean close (the marker lets
// Open skip closed segments) and after a crash (every segment is scanned).
func BenchmarkReopen(b *testing.B) {
	for _, mode := range []string{"Clean", "Crash"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			l := benchLog(b, dir, 410_000, 512) // 410k × 122 B ≈ 50 MB
			size := l.SizeBytes()
			shut := func(l *Log) {
				if mode == "Clean" {
					l.Close()
				} else {
					l.Crash(true)
				}
			}
			shut(l)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l, rep, err := Open(dir, DefaultOptions(), 0)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if rep.CleanShutdown != (mode == "Clean") {
					b.Fatalf("report %+v", rep)
				}
				shut(l)
				b.StartTimer()
			}
			b.ReportMetric(float64(size)/1e6, "MB")
		})
	}
}
