package vfs

import (
	"encoding/binary"
	"io"
)

// Digest writes to w a canonical description of the whole file system:
// every directory's current listing and, where it differs, its durable one
// (as of its last SyncDir); every file's current bytes and, where they may
// differ, its durable bytes (as of its last Sync). Two Mems with the same
// digest behave the same under every operation and every crash: a state
// explorer hashes it to recognise a state it has seen. It changes nothing.
func (m *Mem) Digest(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := digester{w: w, seen: map[*inode]int{}}
	d.node(m.root)
}

// digester writes a Digest; seen numbers inodes already written (hard
// links: a durable listing may name the inode the current one names).
type digester struct {
	w    io.Writer
	seen map[*inode]int
	buf  [binary.MaxVarintLen64]byte
}

func (d *digester) int(v int64) {
	n := binary.PutVarint(d.buf[:], v)
	d.w.Write(d.buf[:n])
}

func (d *digester) bytes(b []byte) {
	d.int(int64(len(b)))
	d.w.Write(b)
}

func (d *digester) node(n *inode) {
	if i, ok := d.seen[n]; ok {
		d.int(-int64(i) - 1)
		return
	}
	d.seen[n] = len(d.seen)
	d.int(int64(n.perm))
	if n.dir {
		d.int(1)
		d.entries(n.entries)
		if n.durableSame {
			d.int(0)
		} else {
			d.int(1)
			d.entries(n.durable)
		}
		return
	}
	d.int(2)
	d.content(n.data)
	if !n.dirty {
		d.int(0) // unchanged since the last Sync
		return
	}
	d.int(1)
	d.content(n.synced)
}

func (d *digester) entries(es []dirent) {
	d.int(int64(len(es)))
	for _, e := range es {
		d.bytes([]byte(e.name))
		d.node(e.n)
	}
}

func (d *digester) content(c content) {
	d.int(c.size)
	left := c.size
	for _, p := range c.pages {
		if left <= 0 {
			break
		}
		k := min(left, pageSize)
		d.w.Write(p.b[:k])
		left -= k
	}
}
