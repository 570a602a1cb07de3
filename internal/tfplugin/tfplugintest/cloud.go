package tfplugintest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Received is what the test cloud in dir recorded of the write-only value
// its item name received (the test providers' TP_password): the sha256 of
// it, in hex ("" for none). It fails the test when dir has no such item.
func Received(t testing.TB, dir, name string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var it struct{ Name, Received string }
		if json.Unmarshal(data, &it) == nil && it.Name == name {
			return it.Received
		}
	}
	t.Fatalf("the test cloud %s has no item %q", dir, name)
	return ""
}

// Digest is what Received reports of a value received.
func Digest(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}
