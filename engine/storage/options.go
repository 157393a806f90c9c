package storage

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Default option values (the spec's §3.1 defaults).
const (
	DefaultSegmentBytes       = 1 << 20
	DefaultIndexIntervalBytes = 4096
)

// Options configures a partition log. A zero field means its default.
type Options struct {
	SegmentBytes       int64 // segment.bytes: roll threshold on log bytes (default 1 MiB)
	IndexIntervalBytes int64 // index.interval.bytes (default 4096)
	MaxBatchBytes      int   // decoder payload bound (default record.DefaultMaxBatchBytes)
	// FS is the file system the log's files live in (default vfs.OS).
	FS vfs.FS
}

// DefaultOptions returns the defaults: 1 MiB segments, an index entry every
// 4096 bytes, 16 MiB batch payloads, the real file system.
func DefaultOptions() Options {
	return Options{
		SegmentBytes:       DefaultSegmentBytes,
		IndexIntervalBytes: DefaultIndexIntervalBytes,
		MaxBatchBytes:      record.DefaultMaxBatchBytes,
		FS:                 vfs.OS,
	}
}

// normalize fills zero fields with defaults and rejects negative ones.
func (o Options) normalize() (Options, error) {
	d := DefaultOptions()
	switch {
	case o.SegmentBytes < 0:
		return o, kerr.Argument("segment.bytes must be positive, got %d", o.SegmentBytes)
	case o.IndexIntervalBytes < 0:
		return o, kerr.Argument("index.interval.bytes must be positive, got %d", o.IndexIntervalBytes)
	case o.MaxBatchBytes < 0:
		return o, kerr.Argument("max batch bytes must be positive, got %d", o.MaxBatchBytes)
	}
	if o.SegmentBytes == 0 {
		o.SegmentBytes = d.SegmentBytes
	}
	if o.IndexIntervalBytes == 0 {
		o.IndexIntervalBytes = d.IndexIntervalBytes
	}
	if o.MaxBatchBytes == 0 {
		o.MaxBatchBytes = d.MaxBatchBytes
	}
	if o.FS == nil {
		o.FS = d.FS
	}
	return o, nil
}
