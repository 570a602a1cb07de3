package tfplugintest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Received is what the test cloud in dir recorded of the write-only value
// its item name received (the test providers' TP_password): the sha256 of
// it, in hex ("" for none). It fails the test when dir has no such item.
func Received(t testing.TB, dir, name string) string {
	t.Helper()
	for _, it := range items(t, dir) {
		if it.Name == name {
			return it.Received
		}
	}
	t.Fatalf("the test cloud %s has no item %q", dir, name)
	return ""
}

// Names are the names of the test cloud's items in dir, sorted.
func Names(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, it := range items(t, dir) {
		out = append(out, it.Name)
	}
	slices.Sort(out)
	return out
}

// item is what the tests read of one of the test cloud's items.
type item struct{ Name, Received string }

// items reads the test cloud's items in dir (one JSON file an item).
func items(t testing.TB, dir string) []item {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []item
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var it item
		if json.Unmarshal(data, &it) == nil {
			out = append(out, it)
		}
	}
	return out
}

// Digest is what Received reports of a value received.
func Digest(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}
