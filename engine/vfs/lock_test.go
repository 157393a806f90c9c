package vfs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLockOneHolder: a locked directory refuses a second lock, from this
// process too and through every spelling of it (a relative path, "dir/.",
// a symbolic link), with an error naming the holder's pid; releasing
// removes the lock file and lets the next holder in. The in-memory file
// system behaves the same, and a simulated machine crash releases it.
func TestLockOneHolder(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(cwd, dir)
	if err != nil {
		t.Fatal(err)
	}
	spellings := []string{dir, dir + "/.", rel, rel + "/", link}

	type fsCase struct {
		name  string
		fsys  FS
		names []string
	}
	cases := []fsCase{{"mem", NewMem(), []string{"data", "data/.", "./data"}}}
	if runtime.GOOS != "windows" {
		cases = append(cases, fsCase{"os", OS, spellings}, fsCase{"nosync", NoSync(OS), spellings})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := MkdirAllSynced(c.fsys, c.names[0], 0o755); err != nil {
				t.Fatal(err)
			}
			release, err := Lock(c.fsys, c.names[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range c.names {
				_, err := Lock(c.fsys, name)
				var le *LockedError
				if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || le.PID != os.Getpid() {
					t.Fatalf("second lock through %q: %v", name, err)
				}
				if !strings.Contains(err.Error(), "this process") || !strings.Contains(err.Error(), LockFileName) {
					t.Errorf("the refusal does not name the holder: %v", err)
				}
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if _, err := c.fsys.Stat(filepath.Join(c.names[0], LockFileName)); !IsNotExist(err) {
				t.Fatalf("the lock file outlived its release: %v", err)
			}
			again, err := Lock(c.fsys, c.names[len(c.names)-1])
			if err != nil {
				t.Fatalf("lock after the release: %v", err)
			}
			if m, ok := c.fsys.(*Mem); ok {
				m.Crash()
				if r, err := Lock(m, "data"); err != nil {
					t.Fatalf("lock after a machine crash: %v", err)
				} else {
					r()
				}
				return
			}
			if err := again(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLockOnAClone: a clone of a locked Mem is not locked (Clone copies no
// holder), and locking it leaves the lock file it copied, which already
// names this process, as it is: no write (a clone restored as a running
// cluster locks it again at no cost).
func TestLockOnAClone(t *testing.T) {
	m := NewMem()
	if err := m.MkdirAll("data", 0o755); err != nil {
		t.Fatal(err)
	}
	release, err := Lock(m, "data")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	c := m.Clone()
	inj := c.Inject(Fault{Op: OpWrite | OpCreate | OpTruncate, Persistent: true})
	cloneRelease, err := Lock(c, "data")
	if err != nil {
		t.Fatalf("lock a clone: %v", err)
	}
	if inj.Fired() != 0 {
		t.Fatalf("locking the clone wrote its lock file (%d operations)", inj.Fired())
	}
	if _, err := Lock(c, "data"); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second lock of the clone: %v", err)
	}
	inj.Clear()
	if err := cloneRelease(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stat(filepath.Join("data", LockFileName)); err != nil {
		t.Fatalf("releasing the clone's lock touched the original: %v", err)
	}
}
