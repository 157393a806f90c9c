package producer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/atomicfile"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// IdentityFile is the name of the producer identity store in the data
// directory, and IdentityTempFile the temporary file of its atomic replace.
const (
	IdentityFile     = "producer-identities.json"
	IdentityTempFile = "producer-identities.tmp"
)

// Identity is an idempotent producer's id and epoch.
type Identity struct {
	PID   int64
	Epoch int32
}

// IdentityStore maps producer names to identities (§8.5.1). A new name gets
// PID = (names stored) + 1 and epoch 0; an existing name keeps its PID and
// bumps the epoch, which fences the previous instance. Every allocation
// rewrites producer-identities.json atomically (temp file, fsync, rename; no
// directory fsync, as in the spec).
type IdentityStore struct {
	fsys vfs.FS
	dir  string
	ids  map[string]Identity
}

// OpenIdentityStore loads dir/producer-identities.json from fsys; a missing
// file is an empty store. A malformed file is STORAGE_ERROR (decision 29).
func OpenIdentityStore(fsys vfs.FS, dir string) (*IdentityStore, error) {
	path := filepath.Join(dir, IdentityFile)
	data, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &IdentityStore{fsys: fsys, dir: dir, ids: map[string]Identity{}}, nil
	}
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "read %s", path)
	}
	ids, err := DecodeIdentities(data)
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "invalid producer identity file %s", path)
	}
	return &IdentityStore{fsys: fsys, dir: dir, ids: ids}, nil
}

// Get returns a name's identity.
func (s *IdentityStore) Get(name string) (Identity, bool) {
	id, ok := s.ids[name]
	return id, ok
}

// Len is the number of names stored.
func (s *IdentityStore) Len() int { return len(s.ids) }

// Next returns the identity Allocate would give name, or the error it would
// return when name has exhausted its epochs, without changing anything.
func (s *IdentityStore) Next(name string) (Identity, error) {
	if err := ValidateName(name); err != nil {
		return Identity{}, err
	}
	id, ok := s.ids[name]
	if !ok {
		return Identity{PID: int64(len(s.ids)) + 1}, nil
	}
	if id.Epoch == math.MaxInt32 {
		return Identity{}, kerr.State("producer %q has exhausted its epochs", name)
	}
	id.Epoch++
	return id, nil
}

// ValidateName checks a producer's name, its identity in
// producer-identities.json: non-empty valid UTF-8, so that the JSON file
// carries it byte for byte (invalid bytes would be read back as U+FFFD, and
// two names would become one identity). Anything else is an argument
// error.
func ValidateName(name string) error {
	if name == "" || !utf8.ValidString(name) {
		return kerr.Argument("producer name %q must be a non-empty UTF-8 string", name)
	}
	return nil
}

// Allocate returns the next identity for name (see Next) and persists it. On
// a write failure (STORAGE_ERROR) nothing changes in memory.
func (s *IdentityStore) Allocate(name string) (Identity, error) {
	id, err := s.Next(name)
	if err != nil {
		return Identity{}, err
	}
	next := make(map[string]Identity, len(s.ids)+1)
	for k, v := range s.ids {
		next[k] = v
	}
	next[name] = id
	if err := s.write(next); err != nil {
		return Identity{}, err
	}
	s.ids = next
	return id, nil
}

func (s *IdentityStore) write(ids map[string]Identity) error {
	// §4: temp file, fsync, rename; no directory fsync for this file.
	path := filepath.Join(s.dir, IdentityFile)
	if err := atomicfile.Replace(s.fsys, path, EncodeIdentities(ids), false); err != nil {
		return kerr.Wrap(kerr.StorageError, err, "write %s", path)
	}
	return nil
}

// EncodeIdentities renders the store's file: a JSON object with sorted keys
// and the reference's default separators, e.g.
// {"producer-1": [1, 0], "w": [5, 1]}.
func EncodeIdentities(ids map[string]Identity) []byte {
	names := make([]string, 0, len(ids))
	for n := range ids {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(quoteJSON(n))
		fmt.Fprintf(&b, ": [%d, %d]", ids[n].PID, ids[n].Epoch)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func quoteJSON(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// DecodeIdentities parses the store's file: an object mapping each name to
// [pid, epoch] with pid >= 1 and 0 <= epoch <= 2^31-1. Anything else is an
// error (the caller wraps it in STORAGE_ERROR).
func DecodeIdentities(data []byte) (map[string]Identity, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("identity file is not valid UTF-8")
	}
	var raw map[string][]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the identity object")
	}
	if raw == nil {
		return nil, errors.New("identity file is not a JSON object")
	}
	if err := uniqueKeys(data); err != nil {
		return nil, err
	}
	ids := make(map[string]Identity, len(raw))
	pids := make(map[int64]string, len(raw))
	for name, pair := range raw {
		if len(pair) != 2 {
			return nil, fmt.Errorf("identity %q: want [producer_id, epoch]", name)
		}
		pid, err1 := strconv.ParseInt(string(pair[0]), 10, 64)
		epoch, err2 := strconv.ParseInt(string(pair[1]), 10, 32)
		if err1 != nil || err2 != nil || pid < 1 || epoch < 0 {
			return nil, fmt.Errorf("identity %q: invalid [producer_id, epoch] [%s, %s]", name, pair[0], pair[1])
		}
		if other, dup := pids[pid]; dup {
			return nil, fmt.Errorf("identities %q and %q share producer id %d", min(name, other), max(name, other), pid)
		}
		pids[pid] = name
		ids[name] = Identity{PID: pid, Epoch: int32(epoch)}
	}
	return ids, nil
}

// uniqueKeys checks that the top-level object of data names no key twice
// (encoding/json would keep the last one silently).
func uniqueKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("identity %q appears twice", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}
