package jsontcp

import (
	"encoding/base64"
	"strconv"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Responses are written by hand so that the key order is the spec's (§14.4,
// "ok" first) and the bytes are compact: no spaces, no HTML escaping, one line.

// frameTooLargeLine is the answer to an over-long line, sent just before the
// connection is closed.
var frameTooLargeLine = []byte(`{"ok":false,"code":"FRAME_TOO_LARGE","message":""}` + "\n")

// errorLine renders {"ok":false,"code":C,"message":M}.
func errorLine(code kerr.Code, message string) []byte {
	b := make([]byte, 0, 48+len(code)+len(message))
	b = append(b, `{"ok":false,"code":`...)
	b = appendString(b, string(code))
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	return append(b, "}\n"...)
}

func createTopicLine(name string) []byte {
	b := append([]byte(nil), `{"ok":true,"topic":`...)
	b = appendString(b, name)
	return append(b, "}\n"...)
}

func metadataLine(m TopicMetadata) []byte {
	b := append([]byte(nil), `{"ok":true,"topic":`...)
	b = appendString(b, m.Topic)
	b = append(b, `,"partitions":[`...)
	for i, p := range m.Partitions {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"partition":`...)
		b = strconv.AppendInt(b, int64(p.Partition), 10)
		b = append(b, `,"leader_id":`...)
		b = strconv.AppendInt(b, int64(p.LeaderID), 10)
		b = append(b, `,"leader_epoch":`...)
		b = strconv.AppendInt(b, int64(p.LeaderEpoch), 10)
		b = append(b, `,"replicas":[`...)
		for j, r := range p.Replicas {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(r), 10)
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}\n"...)
}

func produceLine(r ProduceResult) []byte {
	b := append([]byte(nil), `{"ok":true,"partition":`...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, `,"offset":`...)
	if r.OffsetKnown {
		b = strconv.AppendInt(b, r.Offset, 10)
	} else {
		b = append(b, "null"...)
	}
	return append(b, "}\n"...)
}

func fetchLine(records []Record) []byte {
	size := 24
	for _, r := range records {
		size += 56 + base64.StdEncoding.EncodedLen(len(r.Key)) + base64.StdEncoding.EncodedLen(len(r.Value))
	}
	b := make([]byte, 0, size)
	b = append(b, `{"ok":true,"records":[`...)
	for i, r := range records {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"offset":`...)
		b = strconv.AppendInt(b, r.Offset, 10)
		b = append(b, `,"key_b64":`...)
		b = appendBase64(b, r.Key)
		b = append(b, `,"value_b64":`...)
		b = appendBase64(b, r.Value)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

func joinGroupLine(j JoinResult) []byte {
	b := append([]byte(nil), `{"ok":true,"generation":`...)
	b = strconv.AppendInt(b, int64(j.Generation), 10)
	b = append(b, `,"assignment":[`...)
	for i, p := range j.Assignment {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"topic":`...)
		b = appendString(b, p.Topic)
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(p.Partition), 10)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

var okLine = []byte(`{"ok":true}` + "\n")

// appendBase64 writes null for nil bytes and a padded standard base64 string
// otherwise ("" for empty bytes).
func appendBase64(b, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, and U+2028/U+2029
// escaped so the line is also valid JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
