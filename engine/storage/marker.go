package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// MarkerFileName is the clean-shutdown marker written by Close into the log
// directory (Kafka writes .kafka_cleanshutdown for the same purpose).
const MarkerFileName = "cleanshutdown"

const (
	markerMagic = "MKCS"
	// markerVersion is what Close writes: version 2 adds the caller's
	// shutdown state after the segments, version 3 the CRC of the active
	// segment's index file after the state. Open reads versions 1 to 3.
	markerVersion     = 3
	markerHeaderSize  = 16
	markerSegmentSize = 40
)

// markerSegment is what Close records about one segment.
type markerSegment struct {
	base, next, size, maxTs int64
	maxEpoch                int32
	indexEntries            uint32
}

// marker is the decoded clean-shutdown marker.
type marker struct {
	maxEpoch int32
	segs     []markerSegment
	state    []byte // the caller's shutdown state (version 2), nil without
	// activeIndexCRC is the CRC-32 of the active segment's index file as
	// Close left it (version 3; hasActiveIndexCRC false before): a clean
	// open whose scan of the active segment gives entries with this CRC
	// need not read the file.
	activeIndexCRC    uint32
	hasActiveIndexCRC bool
}

// encodeMarker lays the marker out as documented in doc.go.
func encodeMarker(m marker) []byte {
	be := binary.BigEndian
	b := make([]byte, 0, markerHeaderSize+markerSegmentSize*len(m.segs)+8+len(m.state))
	b = appendMarkerSegments(b, markerVersion, m)
	b = be.AppendUint32(b, uint32(len(m.state)))
	b = append(b, m.state...)
	b = be.AppendUint32(b, m.activeIndexCRC)
	return be.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// appendMarkerSegments appends the header (of this version) and the
// segments, the part every version shares.
func appendMarkerSegments(b []byte, version uint16, m marker) []byte {
	be := binary.BigEndian
	b = append(b, markerMagic...)
	b = be.AppendUint16(b, version)
	b = be.AppendUint16(b, 0)
	b = be.AppendUint32(b, uint32(m.maxEpoch))
	b = be.AppendUint32(b, uint32(len(m.segs)))
	for _, s := range m.segs {
		b = be.AppendUint64(b, uint64(s.base))
		b = be.AppendUint64(b, uint64(s.next))
		b = be.AppendUint64(b, uint64(s.size))
		b = be.AppendUint64(b, uint64(s.maxTs))
		b = be.AppendUint32(b, uint32(s.maxEpoch))
		b = be.AppendUint32(b, s.indexEntries)
	}
	return b
}

// decodeMarker parses and checks a marker; any problem is a plain error
// saying why the marker is not trusted.
func decodeMarker(b []byte) (marker, error) {
	be := binary.BigEndian
	var m marker
	body, err := checkedBody(b, "marker", markerMagic, markerHeaderSize)
	if err != nil {
		return m, err
	}
	v := be.Uint16(body[4:])
	if v < 1 || v > markerVersion {
		return m, fmt.Errorf("marker version %d is not supported", v)
	}
	m.maxEpoch = int32(be.Uint32(body[8:]))
	n := uint64(be.Uint32(body[12:]))
	segsEnd := markerHeaderSize + n*markerSegmentSize
	if v == 1 && uint64(len(body)) != segsEnd {
		return m, errors.New("marker length does not match its segment count")
	}
	if v >= 2 {
		if uint64(len(body)) < segsEnd+4 {
			return m, errors.New("marker length does not match its segment count")
		}
		stateLen := uint64(be.Uint32(body[segsEnd:]))
		stateEnd := segsEnd + 4 + stateLen
		if v == 3 {
			if uint64(len(body)) != stateEnd+4 {
				return m, errors.New("marker length does not match its shutdown state")
			}
			m.activeIndexCRC, m.hasActiveIndexCRC = be.Uint32(body[stateEnd:]), true
		} else if uint64(len(body)) != stateEnd {
			return m, errors.New("marker length does not match its shutdown state")
		}
		if stateLen > 0 {
			m.state = append([]byte(nil), body[segsEnd+4:stateEnd]...)
		}
		body = body[:segsEnd]
	}
	for p := markerHeaderSize; p < len(body); p += markerSegmentSize {
		m.segs = append(m.segs, markerSegment{
			base:         int64(be.Uint64(body[p:])),
			next:         int64(be.Uint64(body[p+8:])),
			size:         int64(be.Uint64(body[p+16:])),
			maxTs:        int64(be.Uint64(body[p+24:])),
			maxEpoch:     int32(be.Uint32(body[p+32:])),
			indexEntries: be.Uint32(body[p+36:]),
		})
	}
	return m, nil
}

// checkedBody checks a file of the clean-shutdown formats (what names it
// in the errors): at least header bytes and a CRC-32 trailer, the CRC
// matching every byte before it, the magic first; it returns the bytes
// before the CRC.
func checkedBody(b []byte, what, magic string, header int) ([]byte, error) {
	if len(b) < header+4 {
		return nil, fmt.Errorf("%s is too short", what)
	}
	body := b[:len(b)-4]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("%s CRC mismatch", what)
	}
	if string(body[:len(magic)]) != magic {
		return nil, fmt.Errorf("%s has a bad magic", what)
	}
	return body, nil
}

// markerPath is where the log's clean-shutdown marker lives.
func (l *Log) markerPath() string { return filepath.Join(l.dir, MarkerFileName) }

// writeMarkerFile writes the marker to a temporary sibling, not fsynced,
// and returns its path: CloseAll makes it durable with the log's files,
// then renames it into place and fsyncs the directory.
func (l *Log) writeMarkerFile(m marker) (string, error) {
	fsys := l.opts.FS
	tmp := l.markerPath() + ".tmp"
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", storageErr(err, "write clean-shutdown marker")
	}
	_, err = f.Write(encodeMarker(m))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fsys.Remove(tmp)
		return "", storageErr(err, "write clean-shutdown marker")
	}
	return tmp, nil
}

// consumeMarker reads the marker, if listed (the names in the directory
// other than segments and indexes), and deletes it, so that a crash
// after this open forces a full scan. It returns nil without a marker;
// problem says why a present marker cannot be trusted; removed says a
// marker was deleted. The deletion is made durable by the log's next
// directory fsync, which comes before any change to the segments becomes
// durable (see Log.dirDirty).
func consumeMarker(fsys vfs.FS, dir string, listed map[string]bool) (m *marker, problem string, removed bool, err error) {
	path := filepath.Join(dir, MarkerFileName)
	if listed[MarkerFileName+".tmp"] {
		fsys.Remove(path + ".tmp") // a Close interrupted before its rename
	}
	if !listed[MarkerFileName] {
		return nil, "", false, nil
	}
	data, rerr := fsys.ReadFile(path)
	if errors.Is(rerr, fs.ErrNotExist) {
		return nil, "", false, nil
	}
	if err := fsys.RemoveAll(path); err != nil {
		return nil, "", false, storageErr(err, "delete clean-shutdown marker")
	}
	if rerr != nil {
		return nil, rerr.Error(), true, nil
	}
	dm, derr := decodeMarker(data)
	if derr != nil {
		return nil, derr.Error(), true, nil
	}
	return &dm, "", true, nil
}
