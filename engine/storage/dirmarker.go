package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"

	"github.com/minikafka-lab/minikafka/engine/atomicfile"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// DirMarkerFileName is the clean-shutdown file ShutdownAll writes into the
// parent directory of the logs it closes (a broker's data directory): one
// file holding every log's marker, as Kafka keeps one .kafka_cleanshutdown
// per log directory rather than one per partition.
const DirMarkerFileName = "cleanshutdown.logs"

const (
	dirMarkerMagic   = "MKCD"
	dirMarkerVersion = 1
	// dirMarkerHeaderSize is the magic, the version, a reserved uint16 and
	// the entry count.
	dirMarkerHeaderSize = 12
)

// dirMarkerEntry is one log's marker in the directory's file: the log
// directory's base name and its marker, encoded as a per-log marker.
type dirMarkerEntry struct {
	name   string
	marker []byte
}

// encodeDirMarker lays the file out as documented in doc.go.
func encodeDirMarker(entries []dirMarkerEntry) []byte {
	be := binary.BigEndian
	b := append([]byte(nil), dirMarkerMagic...)
	b = be.AppendUint16(b, dirMarkerVersion)
	b = be.AppendUint16(b, 0)
	b = be.AppendUint32(b, uint32(len(entries)))
	for _, e := range entries {
		b = be.AppendUint16(b, uint16(len(e.name)))
		b = append(b, e.name...)
		b = be.AppendUint32(b, uint32(len(e.marker)))
		b = append(b, e.marker...)
	}
	return be.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// decodeDirMarker parses and checks the directory's file and returns each
// log's encoded marker by name; any problem is a plain error saying why
// the file is not trusted. The markers themselves are checked when a log
// takes its own (decodeMarker).
func decodeDirMarker(b []byte) (map[string][]byte, error) {
	be := binary.BigEndian
	body, err := checkedBody(b, "file", dirMarkerMagic, dirMarkerHeaderSize)
	if err != nil {
		return nil, err
	}
	if v := be.Uint16(body[4:]); v != dirMarkerVersion {
		return nil, fmt.Errorf("version %d is not supported", v)
	}
	n := be.Uint32(body[8:])
	logs := map[string][]byte{}
	p := dirMarkerHeaderSize
	for range n {
		if len(body)-p < 2 {
			return nil, errors.New("an entry is cut short")
		}
		nameLen := int(be.Uint16(body[p:]))
		p += 2
		if len(body)-p < nameLen+4 {
			return nil, errors.New("an entry is cut short")
		}
		name := string(body[p : p+nameLen])
		p += nameLen
		markerLen := uint64(be.Uint32(body[p:]))
		p += 4
		if uint64(len(body)-p) < markerLen {
			return nil, errors.New("an entry is cut short")
		}
		if name == "" || name != filepath.Base(name) {
			return nil, fmt.Errorf("entry name %q is not a directory name", name)
		}
		if _, dup := logs[name]; dup {
			return nil, fmt.Errorf("log %s is listed twice", name)
		}
		logs[name] = body[p : p+int(markerLen)]
		p += int(markerLen)
	}
	if p != len(body) {
		return nil, errors.New("length does not match its entries")
	}
	return logs, nil
}

// DirMarkers are the clean-shutdown markers ShutdownAll left in one
// directory, read by TakeDirMarkers. OpenWith takes the entry of the
// log it opens: each entry is used once.
type DirMarkers struct {
	dir     string
	logs    map[string][]byte
	problem string // why the file was not trusted ("" when it was, or absent)
}

// TakeDirMarkers reads dir's clean-shutdown file (DirMarkerFileName), if
// any, and deletes it durably (dir is fsynced), so that a crash after this
// open makes the next one scan every log, as a per-log marker's deletion
// does. A missing file gives markers without entries; a damaged one too,
// and every log opened with them reports why (RecoveryReport.MarkerIgnored).
// It fails only when the file cannot be deleted.
func TakeDirMarkers(fsys vfs.FS, dir string) (*DirMarkers, error) {
	if fsys == nil {
		fsys = vfs.OS
	}
	d := &DirMarkers{dir: filepath.Clean(dir)}
	path := filepath.Join(dir, DirMarkerFileName)
	data, err := fsys.ReadFile(path)
	if vfs.IsNotExist(err) {
		return d, nil
	}
	if rerr := fsys.RemoveAll(path); rerr != nil {
		return nil, storageErr(rerr, "delete clean-shutdown file %s", path)
	}
	if serr := fsys.SyncDir(dir); serr != nil {
		return nil, storageErr(serr, "fsync directory %s", dir)
	}
	if err != nil {
		d.problem = "the directory's clean-shutdown file: " + err.Error()
		return d, nil
	}
	logs, derr := decodeDirMarker(data)
	if derr != nil {
		d.problem = "the directory's clean-shutdown file: " + derr.Error()
		return d, nil
	}
	d.logs = logs
	return d, nil
}

// take returns and forgets the marker of the log in dir: nil without an
// entry; problem says why a present entry (or the whole file) is not
// trusted.
func (d *DirMarkers) take(dir string) (m *marker, problem string) {
	if d == nil || filepath.Dir(filepath.Clean(dir)) != d.dir {
		return nil, ""
	}
	name := filepath.Base(dir)
	b, ok := d.logs[name]
	if !ok {
		return nil, d.problem
	}
	delete(d.logs, name)
	dm, err := decodeMarker(b)
	if err != nil {
		return nil, err.Error()
	}
	return &dm, ""
}

// ShutdownAll closes logs as CloseAll does (their changed files made
// durable together, one error per log), but keeps their clean-shutdown
// markers in one file per parent directory (DirMarkerFileName) instead of
// one file per log: no marker file is created in a log directory, and the
// next open, given the markers (TakeDirMarkers, OpenWith), deletes
// none. Each directory's file is replaced atomically (written, fsynced,
// renamed, the directory fsynced) after the logs' files are durable, and
// lists the logs whose files were; a log whose step fails is left out
// (it scans at the next open) and gets its error. A file already in the
// directory is replaced: logs it listed that are not closed here scan.
// Every log's files are closed in the end.
func ShutdownAll(logs []*Log) []error {
	errs := make([]error, len(logs))
	if len(logs) == 0 {
		return errs
	}
	fsys := logs[0].opts.FS
	open, sets := prepareAll(logs, errs, false)
	var parents []string
	byParent := map[string][]int{}
	entries := map[string][]dirMarkerEntry{}
	for k, err := range vfs.SyncAll(fsys, sets) {
		i := open[k]
		l := logs[i]
		if err != nil {
			errs[i] = storageErr(err, "close %s", l.dir)
			l.finishClose()
			continue
		}
		l.markFlushed()
		if len(sets[k].Dirs) > 0 {
			l.markDurable()
		}
		parent := filepath.Dir(filepath.Clean(l.dir))
		if _, ok := byParent[parent]; !ok {
			parents = append(parents, parent)
		}
		byParent[parent] = append(byParent[parent], i)
		entries[parent] = append(entries[parent], dirMarkerEntry{name: filepath.Base(l.dir), marker: encodeMarker(l.marker())})
	}
	for _, parent := range parents {
		path := filepath.Join(parent, DirMarkerFileName)
		err := atomicfile.Replace(fsys, path, encodeDirMarker(entries[parent]), true)
		if err != nil {
			fsys.Remove(path) // an older file must not describe these logs
		}
		for _, i := range byParent[parent] {
			if err != nil {
				errs[i] = storageErr(err, "write clean-shutdown file %s", path)
			}
			logs[i].finishClose()
		}
	}
	return errs
}
