// Package plantest helps tests play the attacker against saved plans: it
// recomputes the digest of a plan file after a test edited it, as anyone
// who can write the file can (the digest is a checksum, not a signature).
// Only tests import it.
package plantest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// Reseal returns data, an edited plan file, with a digest that matches it
// again. The edit must leave valid JSON whose first member is the digest.
func Reseal(t testing.TB, data []byte) []byte {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, data); err != nil {
		t.Fatalf("reseal: the edited plan is not JSON: %v", err)
	}
	const key = `{"digest":"`
	n := len(key) + 2*sha256.Size + 1
	b := c.Bytes()
	if !bytes.HasPrefix(b, []byte(key)) || len(b) <= n || b[n] != ',' {
		t.Fatal("reseal: the plan file does not start with its digest")
	}
	body := append([]byte{'{'}, b[n+1:]...)
	sum := sha256.Sum256(body)
	out := append([]byte(key+hex.EncodeToString(sum[:])+`",`), body[1:]...)
	var ind bytes.Buffer
	if err := json.Indent(&ind, out, "", "  "); err != nil {
		t.Fatal(err)
	}
	ind.WriteByte('\n')
	return ind.Bytes()
}
