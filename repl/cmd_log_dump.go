package repl

import (
	"io"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/tools/dumplog"
)

// dumpView is the result of log dump. Its text is tools/dumplog's
// kafka-dump-log rendering, shared with `minikafka dump-log FILE`.
type dumpView struct {
	Broker   int32         `json:"broker"`
	Segments []dumpSegment `json:"segments"`
	records  bool
	kafka    bool // views=kafka: Kafka 4.0's lines (dumplog.KafkaText)
	segs     []dumplog.Segment
}

type dumpSegment struct {
	File         string      `json:"file"`
	Base         int64       `json:"base_offset"`
	Batches      []dumpBatch `json:"batches"`
	InvalidBytes int64       `json:"invalid_bytes"`
	Reason       string      `json:"invalid_reason,omitempty"`
}

type dumpBatch struct {
	BaseOffset      int64  `json:"base_offset"`
	LastOffset      int64  `json:"last_offset"`
	Count           int    `json:"count"`
	BaseSequence    int32  `json:"base_sequence"`
	LastSequence    int32  `json:"last_sequence"`
	ProducerID      int64  `json:"producer_id"`
	ProducerEpoch   int32  `json:"producer_epoch"`
	LeaderEpoch     int32  `json:"partition_leader_epoch"`
	Transactional   bool   `json:"is_transactional"`
	Control         string `json:"control,omitempty"`
	TransactionalID string `json:"transactional_id,omitempty"`
	Position        int64  `json:"position"`
	CreateTime      int64  `json:"create_time"`
	Size            int    `json:"size"`
	CRC             uint32 `json:"crc"`
	// Records are listed with the records flag (control batches have none).
	Records []jsonRecord `json:"records,omitempty"`
}

func (v dumpView) writeText(w io.Writer, _ *style) error {
	text := dumplog.Text
	if v.kafka {
		text = dumplog.KafkaText
	}
	for _, seg := range v.segs {
		if err := text(w, seg, v.records); err != nil {
			return err
		}
	}
	return nil
}

// dumpSegmentOf reads one segment for log dump. The batches come from the
// running log (which may still buffer its newest bytes); damage written
// to the file (corrupt) shows only on disk: garbage after the last batch
// as the invalid tail, and damage inside the log's bytes (a flipped bit, a
// cut) as an error of the running log, after which the dump shows what is
// on disk, as kafka-dump-log does: the valid batches before the damage,
// then the invalid bytes to the end of the file.
func (s *Session) dumpSegmentOf(l engine.LogDescription, sg engine.LogSegment) (dumplog.Segment, error) {
	batches, err := s.cluster.LogBatches(l.TP, l.Broker, sg.Base, sg.NextOffset, 0)
	if err != nil {
		disk, derr := dumplog.ReadSegment(s.cluster.FS(), sg.LogPath)
		if derr != nil || disk.Invalid == nil {
			return dumplog.Segment{}, err
		}
		return disk, nil
	}
	seg := dumplog.Segment{BaseOffset: sg.Base, Frames: []dumplog.Frame{}}
	for _, b := range batches {
		if b.Segment == sg.Base {
			seg.Frames = append(seg.Frames, dumplog.Frame{Position: b.Position, Bytes: b.Frame, Meta: b.Meta})
		}
	}
	if disk, err := dumplog.ReadSegment(s.cluster.FS(), sg.LogPath); err == nil && disk.Invalid != nil {
		seg.Invalid = disk.Invalid
	}
	return seg, nil
}

func runLogDump(s *Session, w io.Writer, a *Args) error {
	l, segs, err := logSegmentsArg(s, a)
	if err != nil {
		return err
	}
	v := dumpView{Broker: l.Broker, records: a.Flag("records"), Segments: []dumpSegment{}, kafka: s.cluster.Config().Rules.Views == engine.ViewsKafka}
	for _, sg := range segs {
		seg, err := s.dumpSegmentOf(l, sg)
		if err != nil {
			return err
		}
		seg.Name = s.relPath(sg.LogPath)
		ds := dumpSegment{File: seg.Name, Base: sg.Base, Batches: []dumpBatch{}}
		for _, f := range seg.Frames {
			m := f.Meta
			ds.Batches = append(ds.Batches, dumpBatch{
				BaseOffset: m.BaseOffset, LastOffset: m.LastOffset(), Count: m.RecordCount,
				BaseSequence: m.BaseSequence, LastSequence: m.LastSequence(), ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
				LeaderEpoch: m.LeaderEpoch, Transactional: m.Transactional, Control: m.Control.String(), TransactionalID: m.TransactionalID,
				Position: f.Position, CreateTime: m.MaxTimestamp, Size: m.Size, CRC: m.CRC,
			})
			if v.records && !m.IsControl() {
				recs, err := engine.LogBatch{Meta: m, Frame: f.Bytes}.Records()
				if err != nil {
					return err
				}
				last := &ds.Batches[len(ds.Batches)-1]
				for _, r := range recs {
					last.Records = append(last.Records, newJSONRecord(r.Offset, r.Record))
				}
			}
		}
		if seg.Invalid != nil {
			ds.InvalidBytes, ds.Reason = seg.Invalid.Bytes, seg.Invalid.Reason
		}
		v.Segments = append(v.Segments, ds)
		v.segs = append(v.segs, seg)
	}
	return s.emit(w, v)
}
