package bench

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// The machine's limits, measured the way docs/performance.md quotes them:
// go test -run '^$' -bench Limit ./tools/bench

// BenchmarkLimitMemcpy copies 64 MiB between two buffers (memory
// bandwidth for a copy: read once, write once).
func BenchmarkLimitMemcpy(b *testing.B) {
	src, dst := make([]byte, 64<<20), make([]byte, 64<<20)
	for i := range src {
		src[i] = byte(i)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkLimitPageCacheRead reads a 256 MiB file that is in the page
// cache, 1 MiB per read (what a log read costs at best).
func BenchmarkLimitPageCacheRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 256<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	b.SetBytes(256 << 20)
	for b.Loop() {
		for off := int64(0); off < 256<<20; off += int64(len(buf)) {
			if _, err := f.ReadAt(buf, off); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLimitFsync writes 4 KiB and fsyncs it: one durable small write
// on this disk (the cost of every fsync a close avoids).
func BenchmarkLimitFsync(b *testing.B) {
	durableWrites(b, (*os.File).Sync)
}

// BenchmarkLimitCreateFile creates, writes 40 bytes to and closes a new
// file in its own directory (what a clean-shutdown marker costs on this
// file system), then removes it.
func BenchmarkLimitCreateFile(b *testing.B) {
	dir := b.TempDir()
	data := make([]byte, 40)
	for b.Loop() {
		p := filepath.Join(dir, "marker")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.Remove(p)
		b.StartTimer()
	}
}

// BenchmarkLimitSyncfs writes 4 KiB to a file and calls syncfs(2) once
// (what one durable step of a cluster close costs when little is dirty;
// it also waits for what other processes left dirty on the file system).
func BenchmarkLimitSyncfs(b *testing.B) {
	durableWrites(b, func(f *os.File) error { return unix.Syncfs(int(f.Fd())) })
}

// durableWrites times writing 4 KiB to a file and making it durable.
func durableWrites(b *testing.B, sync func(*os.File) error) {
	f, err := os.Create(filepath.Join(b.TempDir(), "f"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	for b.Loop() {
		if _, err := f.WriteAt(page, 0); err != nil {
			b.Fatal(err)
		}
		if err := sync(f); err != nil {
			b.Fatal(err)
		}
	}
}
