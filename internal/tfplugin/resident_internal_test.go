package tfplugin

import (
	"os"
	"runtime"
	"testing"
)

// TestStatmFileFollowsTheProcess: the size read through the file kept
// open is the size now, not the one at the first read: it grows when the
// process touches more memory; nothing is read once the file is closed;
// a process whose statm cannot be opened has no size.
func TestStatmFileFollowsTheProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sizes are read from /proc")
	}
	var s statmFile
	before, ok := s.resident(os.Getpid())
	if !ok || before <= 0 {
		t.Fatalf("first read: %d %v", before, ok)
	}
	const grow = 64 << 20
	held := make([]byte, grow)
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1 // resident once touched
	}
	after, ok := s.resident(os.Getpid())
	runtime.KeepAlive(held)
	if !ok || after < before+grow/2 {
		t.Errorf("after touching %d MiB more: %d bytes, had %d (a stale read?)", grow>>20, after, before)
	}
	s.close()
	if n, ok := s.resident(os.Getpid()); ok {
		t.Errorf("read %d bytes after close", n)
	}
	var none statmFile
	if n, ok := none.resident(1 << 30); ok {
		t.Errorf("a size for a process that does not exist: %d", n)
	}
}

// BenchmarkResident: one read of a process's resident size, as the
// provider's replacement check makes every renewCheckEvery calls.
func BenchmarkResident(b *testing.B) {
	var s statmFile
	defer s.close()
	for b.Loop() {
		if _, ok := s.resident(os.Getpid()); !ok {
			b.Fatal("no size")
		}
	}
}
