package tfinstall

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseLock: a lock file is written by whoever can push to the
// repository; no input may crash the parser, and whatever it reads
// without error is written back to text that reads back the same.
func FuzzParseLock(f *testing.F) {
	for _, name := range []string{"good.hcl", "bad.hcl"} {
		data, err := os.ReadFile(filepath.Join("testdata", "lock", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("provider \"a.b/c/d\" {\n version = \"1.0.0\"\n hashes = [\"h1:EVjZbL9RffXLhkk4kZZFpScoyl7PeVWG6VUTiYt3bqE=\"]\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, ds := ParseLock("fuzz.hcl", data)
		if ds.Err() != nil {
			return
		}
		back, ds := ParseLock("again.hcl", l.Encode())
		if ds.Err() != nil {
			t.Fatalf("Encode wrote what ParseLock refuses: %v\n%s", ds.Err(), l.Encode())
		}
		if d := cmp.Diff(l, back); d != "" {
			t.Fatalf("round trip (-first +second):\n%s", d)
		}
	})
}
