package local

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReadAllReadsTheWholeFileFromItsStart: the locked descriptor is read
// from its start whatever was read before, every byte, whatever the size
// (empty, under and over the read size, a state of MBs).
func TestReadAllReadsTheWholeFileFromItsStart(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 2<<20 + 7} {
		want := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		p := filepath.Join(t.TempDir(), "terraform.tfstate")
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second read starts again from the start
			got, err := readAll(f)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%d bytes: read %d bytes, %v", n, len(got), err)
			}
		}
		f.Close()
	}
}

// BenchmarkReadAllState: a state of 2 MB (5,000 null_resources) read
// through the locked descriptor, as each plan and apply reads it.
func BenchmarkReadAllState(b *testing.B) {
	p := filepath.Join(b.TempDir(), "terraform.tfstate")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 2127393), 0o600); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readAll(f); err != nil {
			b.Fatal(err)
		}
	}
}
