package dumplog

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// jsonBatch is one batch line of the JSON dump.
type jsonBatch struct {
	BaseOffset           int64         `json:"base_offset"`
	LastOffset           int64         `json:"last_offset"`
	Count                int           `json:"count"`
	Position             int64         `json:"position"`
	Size                 int           `json:"size"`
	CRC                  uint32        `json:"crc"`
	Valid                bool          `json:"valid"`
	CreateTime           int64         `json:"create_time"`
	PartitionLeaderEpoch int32         `json:"partition_leader_epoch"`
	ProducerID           int64         `json:"producer_id"`
	ProducerEpoch        int32         `json:"producer_epoch"`
	BaseSequence         int32         `json:"base_sequence"`
	IsTransactional      bool          `json:"is_transactional"`
	IsControl            bool          `json:"is_control"`
	ControlType          string        `json:"control_type,omitempty"` // COMMIT or ABORT, control batches only
	Records              *[]jsonRecord `json:"records,omitempty"`
}

type jsonRecord struct {
	Offset      int64        `json:"offset"`
	KeyB64      []byte       `json:"key_b64"` // encoding/json: base64, null for nil
	ValueB64    []byte       `json:"value_b64"`
	TimestampMs int64        `json:"timestamp_ms"`
	Headers     []jsonHeader `json:"headers"`
}

type jsonHeader struct {
	Key      string `json:"key"`
	ValueB64 []byte `json:"value_b64"`
}

type jsonInvalid struct {
	InvalidBytes int64  `json:"invalid_bytes"`
	Position     int64  `json:"position"`
	Reason       string `json:"reason"`
}

// JSON writes seg as one JSON object per line per batch, with the records
// when records is set, and a final invalid_bytes object for a damaged tail.
func JSON(w io.Writer, seg Segment, records bool) error {
	d := newJSONDumper(w, records)
	d.header(seg.Name, seg.BaseOffset)
	for _, f := range seg.Frames {
		if err := d.frame(f); err != nil {
			return err
		}
	}
	d.tail(seg.Name, seg.Invalid)
	return d.err()
}

// jsonDumper writes the JSON dump.
type jsonDumper struct {
	enc     *json.Encoder
	records bool
	werr    error
}

func newJSONDumper(w io.Writer, records bool) *jsonDumper {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonDumper{enc: enc, records: records}
}

func (d *jsonDumper) err() error { return d.werr }

func (d *jsonDumper) header(string, int64) {}

func (d *jsonDumper) frame(f Frame) error {
	if d.werr != nil {
		return d.werr
	}
	m := f.Meta
	jb := jsonBatch{
		BaseOffset: m.BaseOffset, LastOffset: m.LastOffset(), Count: m.RecordCount,
		Position: f.Position, Size: m.Size, CRC: m.CRC, Valid: true, CreateTime: m.MaxTimestamp,
		PartitionLeaderEpoch: m.LeaderEpoch, ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
		BaseSequence: m.BaseSequence, IsTransactional: m.Transactional, IsControl: m.IsControl(),
	}
	if m.IsControl() {
		jb.ControlType = strings.ToUpper(m.Control.String())
	}
	if d.records {
		recs := []jsonRecord{}
		if !m.IsControl() {
			b, err := record.Decode(f.Bytes)
			if err != nil {
				return fmt.Errorf("batch at position %d: %w", f.Position, err)
			}
			for i, r := range b.Records {
				hs := make([]jsonHeader, len(r.Headers))
				for j, h := range r.Headers {
					hs[j] = jsonHeader{Key: h.Key, ValueB64: h.Value}
				}
				recs = append(recs, jsonRecord{
					Offset: b.BaseOffset + int64(b.OffsetDeltas[i]), KeyB64: r.Key, ValueB64: r.Value,
					TimestampMs: r.TimestampMs, Headers: hs,
				})
			}
		}
		jb.Records = &recs
	}
	d.werr = d.enc.Encode(jb)
	return d.werr
}

func (d *jsonDumper) tail(_ string, inv *Invalid) {
	if inv != nil && d.werr == nil {
		d.werr = d.enc.Encode(jsonInvalid{InvalidBytes: inv.Bytes, Position: inv.Position, Reason: inv.Reason})
	}
}
