package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// EncodeAnswer writes what json.Marshal writes of an Answer (the keeper
// and the engine write answers, and older Kykus read them), and
// DecodeAnswer reads it back under AnswerName of its address.
func TestEncodeAnswerMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	texts := []string{"", `null_resource.node[0]`, `module.site["site-00"].null_resource.node[7]`, "a<b>&c", "tab\there\nline", "v\u2028\u2029", "bad \xff utf-8", `q"uote\back`}
	for i := 0; i < 300; i++ {
		a := Answer{
			Address: texts[r.IntN(len(texts))], Type: texts[r.IntN(len(texts))],
			Asked: r.IntN(2) == 0, Note: texts[r.IntN(len(texts))],
		}
		switch r.IntN(3) {
		case 1:
			a.Response = []byte{}
		case 2:
			a.Response = make([]byte, r.IntN(40)+1)
			for k := range a.Response {
				a.Response[k] = byte(r.IntN(256))
			}
		}
		want, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeAnswer(a)
		if err != nil || string(got) != string(want) {
			t.Fatalf("EncodeAnswer(%+v) = %s, %v; json.Marshal: %s", a, got, err, want)
		}
		if a.Address == "" || a.Type == "" || !utf8.ValidString(a.Address) {
			continue // refused, or (not UTF-8) read back as another address
		}
		if back, err := DecodeAnswer(AnswerName(a.Address), got); err != nil || back.Address != a.Address {
			t.Fatalf("DecodeAnswer: %+v, %v", back, err)
		}
	}
}

// AnswerName is the first 128 bits of the address's SHA-256 in hex, with
// ".json": the names answer boxes already hold.
func TestAnswerName(t *testing.T) {
	for _, addr := range []string{"", "web", `module.site["site-00"].null_resource.node[7]`} {
		sum := sha256.Sum256([]byte(addr))
		if got, want := AnswerName(addr), hex.EncodeToString(sum[:16])+".json"; got != want {
			t.Errorf("AnswerName(%q) = %q, want %q", addr, got, want)
		}
	}
	if got, want := AnswerName("web"), "4b5e57f6eb2f42b9039b3d1e13929295.json"; got != want { // sha256sum of "web"
		t.Errorf("AnswerName(web) = %q, want %q", got, want)
	}
}
