package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"pgregory.net/rapid"
)

// errKind names the class of an error the way the engine tells errors
// apart (errors.Is), so OS and Mem can be compared.
func errKind(err error) string {
	if err == nil {
		return "ok"
	}
	for _, k := range []struct {
		name   string
		target error
	}{
		{"ENOENT", syscall.ENOENT}, {"EEXIST", syscall.EEXIST}, {"ENOTEMPTY", syscall.ENOTEMPTY},
		{"ENOTDIR", syscall.ENOTDIR}, {"EISDIR", syscall.EISDIR}, {"EINVAL", syscall.EINVAL},
		{"EBADF", syscall.EBADF}, {"ENOSPC", syscall.ENOSPC}, {"EIO", syscall.EIO},
		{"closed", os.ErrClosed}, {"EOF", io.EOF},
	} {
		if errors.Is(err, k.target) {
			return k.name
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "other:" + pe.Err.Error()
	}
	return "other:" + err.Error()
}

// diffSide is one file system under test, with its open handles.
type diffSide struct {
	fsys  FS
	root  string
	files []File
}

func (s *diffSide) path(p string) string { return filepath.Join(s.root, p) }

// diffPaths is the small universe of names the differential test uses, so
// that operations meet each other's files often.
var diffPaths = func() []string {
	var out []string
	for _, a := range []string{"a", "b"} {
		out = append(out, a)
		for _, b := range []string{"a", "b"} {
			out = append(out, a+"/"+b)
			out = append(out, a+"/"+b+"/c")
		}
	}
	return out
}()

// diffOp is one operation, run on a side, rendered as what it observed.
type diffOp struct {
	name string
	run  func(s *diffSide) string
}

func drawDiffOp(t *rapid.T) diffOp {
	p := rapid.SampledFrom(diffPaths).Draw(t, "path")
	q := rapid.SampledFrom(diffPaths).Draw(t, "path2")
	h := rapid.IntRange(0, 3).Draw(t, "handle")
	data := []byte(strings.Repeat(string(rune('a'+rapid.IntRange(0, 25).Draw(t, "byte"))), rapid.IntRange(0, 9000).Draw(t, "len")))
	off := rapid.Int64Range(0, 10000).Draw(t, "off")
	n := rapid.IntRange(0, 9000).Draw(t, "n")
	flags := rapid.SampledFrom([]int{
		os.O_RDONLY, os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_RDWR | os.O_CREATE,
		os.O_RDWR, os.O_WRONLY | os.O_APPEND | os.O_CREATE, os.O_RDWR | os.O_CREATE | os.O_EXCL,
	}).Draw(t, "flags")
	handle := func(s *diffSide) File {
		if h < len(s.files) {
			return s.files[h]
		}
		return nil
	}
	ops := []diffOp{
		{"mkdir " + p, func(s *diffSide) string { return errKind(s.fsys.Mkdir(s.path(p), 0o755)) }},
		{"mkdirall " + p, func(s *diffSide) string { return errKind(s.fsys.MkdirAll(s.path(p), 0o755)) }},
		{fmt.Sprintf("open %s %#x", p, flags), func(s *diffSide) string {
			f, err := s.fsys.OpenFile(s.path(p), flags, 0o644)
			if err == nil {
				s.files = append(s.files, f)
			}
			return errKind(err)
		}},
		{fmt.Sprintf("write #%d %d bytes", h, len(data)), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			k, err := f.Write(data)
			return fmt.Sprint(k, errKind(err))
		}},
		{fmt.Sprintf("writeat #%d %d bytes at %d", h, len(data), off), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			k, err := f.WriteAt(data, off)
			return fmt.Sprint(k, errKind(err))
		}},
		{fmt.Sprintf("read #%d %d", h, n), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			buf := make([]byte, n)
			k, err := f.Read(buf)
			return fmt.Sprintf("%d %s %q", k, errKind(err), buf[:max(k, 0)])
		}},
		{fmt.Sprintf("readat #%d %d at %d", h, n, off), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			buf := make([]byte, n)
			k, err := f.ReadAt(buf, off)
			return fmt.Sprintf("%d %s %q", k, errKind(err), buf[:max(k, 0)])
		}},
		{fmt.Sprintf("seek #%d %d", h, off-100), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			pos, err := f.Seek(off-100, io.SeekStart)
			return fmt.Sprint(pos, errKind(err))
		}},
		{fmt.Sprintf("seekend #%d", h), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			if st, err := f.Stat(); err == nil && st.IsDir() {
				return "directory" // directory offsets are the file system's own business
			}
			pos, err := f.Seek(0, io.SeekEnd)
			return fmt.Sprint(pos, errKind(err))
		}},
		{fmt.Sprintf("ftruncate #%d %d", h, off), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			return errKind(f.Truncate(off))
		}},
		{fmt.Sprintf("fstat #%d", h), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			st, err := f.Stat()
			if err != nil {
				return errKind(err)
			}
			return infoString(st)
		}},
		{fmt.Sprintf("close #%d", h), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			return errKind(f.Close())
		}},
		{fmt.Sprintf("sync #%d", h), func(s *diffSide) string {
			f := handle(s)
			if f == nil {
				return "no handle"
			}
			return errKind(f.Sync())
		}},
		{"syncdir " + p, func(s *diffSide) string { return errKind(s.fsys.SyncDir(s.path(p))) }},
		{"remove " + p, func(s *diffSide) string { return errKind(s.fsys.Remove(s.path(p))) }},
		{"removeall " + p, func(s *diffSide) string { return errKind(s.fsys.RemoveAll(s.path(p))) }},
		{"rename " + p + " " + q, func(s *diffSide) string { return errKind(s.fsys.Rename(s.path(p), s.path(q))) }},
		{fmt.Sprintf("truncate %s %d", p, off), func(s *diffSide) string { return errKind(s.fsys.Truncate(s.path(p), off)) }},
		{"stat " + p, func(s *diffSide) string {
			st, err := s.fsys.Stat(s.path(p))
			if err != nil {
				return errKind(err)
			}
			return infoString(st)
		}},
		{"readdir " + p, func(s *diffSide) string {
			es, err := s.fsys.ReadDir(s.path(p))
			var names []string
			for _, e := range es {
				names = append(names, fmt.Sprint(e.Name(), e.IsDir(), e.Type()))
			}
			return fmt.Sprint(names, errKind(err))
		}},
		{"readfile " + p, func(s *diffSide) string {
			b, err := s.fsys.ReadFile(s.path(p))
			return fmt.Sprintf("%d %s", len(b), errKind(err))
		}},
	}
	return rapid.SampledFrom(ops).Draw(t, "op")
}

// infoString renders what the engine may rely on in a FileInfo.
func infoString(st fs.FileInfo) string {
	size := st.Size()
	if st.IsDir() {
		size = 0 // directory sizes are the file system's own business
	}
	return fmt.Sprint(st.Name(), size, st.IsDir())
}

// treeOf renders every file and directory under root with sizes and a
// checksum of the content.
func treeOf(t *rapid.T, fsys FS, root string) string {
	var b strings.Builder
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		es, err := fsys.ReadDir(dir)
		if err != nil {
			t.Fatalf("readdir %s: %v", dir, err)
		}
		for _, e := range es {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				fmt.Fprintf(&b, "%s/\n", rel+e.Name())
				walk(p, rel+e.Name()+"/")
				continue
			}
			data, err := fsys.ReadFile(p)
			if err != nil {
				t.Fatalf("read %s: %v", p, err)
			}
			var sum uint32
			for _, c := range data {
				sum = sum*31 + uint32(c)
			}
			fmt.Fprintf(&b, "%s %d %08x\n", rel+e.Name(), len(data), sum)
		}
	}
	walk(root, "")
	return b.String()
}

// TestMemMatchesOS runs the same random operation sequences on the OS (a
// temporary directory) and on a Mem and requires the same observations:
// results, error kinds, contents, sizes and listings.
func TestMemMatchesOS(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		osSide := &diffSide{fsys: OS, root: filepath.Join(base, fmt.Sprint(run))}
		if err := os.Mkdir(osSide.root, 0o755); err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(osSide.root)
		memSide := &diffSide{fsys: NewMem(), root: "root"}
		if err := memSide.fsys.Mkdir("root", 0o755); err != nil {
			rt.Fatal(err)
		}
		defer func() {
			for _, f := range osSide.files {
				f.Close()
			}
		}()
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			op := drawDiffOp(rt)
			got, want := op.run(memSide), op.run(osSide)
			if got != want {
				rt.Fatalf("step %d %s: mem %s, os %s", i, op.name, got, want)
			}
			if a, b := treeOf(rt, memSide.fsys, memSide.root), treeOf(rt, OS, osSide.root); a != b {
				rt.Fatalf("after step %d %s: mem tree\n%s\nos tree\n%s", i, op.name, a, b)
			}
		}
	})
}
