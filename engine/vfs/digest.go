package vfs

import (
	"io"

	"github.com/minikafka-lab/minikafka/engine/statekey"
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
	d := digester{Writer: statekey.New(w), seen: map[*inode]int{}}
	d.node(m.root)
}

// digester writes a Digest; seen numbers inodes already written (hard
// links: a durable listing may name the inode the current one names).
type digester struct {
	*statekey.Writer
	seen map[*inode]int
}

func (d *digester) node(n *inode) {
	if i, ok := d.seen[n]; ok {
		d.Int(-int64(i) - 1)
		return
	}
	d.seen[n] = len(d.seen)
	d.Int(int64(n.perm))
	if n.dir {
		d.Int(1)
		d.entries(n.entries)
		if n.durableSame {
			d.Int(0)
		} else {
			d.Int(1)
			d.entries(n.durable)
		}
		return
	}
	d.Int(2)
	d.content(n.data)
	if !n.dirty {
		d.Int(0) // unchanged since the last Sync
		return
	}
	d.Int(1)
	d.content(n.synced)
}

func (d *digester) entries(es []dirent) {
	d.Int(int64(len(es)))
	for _, e := range es {
		d.String(e.name)
		d.node(e.n)
	}
}

func (d *digester) content(c content) {
	d.Int(c.size)
	left := c.size
	for _, p := range c.pages {
		if left <= 0 {
			break
		}
		k := min(left, pageSize)
		d.Raw(p.b[:k])
		left -= k
	}
}
