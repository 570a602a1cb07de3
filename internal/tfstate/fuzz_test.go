package tfstate_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/tfstate"
)

// FuzzDecode: Decode never panics; what it accepts encodes, in both forms,
// to a state that decodes again and encodes to the same bytes (what
// Kyku writes, it reads back unchanged).
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.tfstate")
	for _, p := range seeds {
		f.Add(read(f, p))
	}
	f.Add([]byte(instance(`"index_key":"a\"${b}","sensitive_attributes":[[{"type":"index","value":{"value":[1],"type":["tuple",["number"]]}}]]`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := tfstate.Decode("fuzz", data)
		if err != nil {
			return
		}
		for _, form := range []tfstate.Form{tfstate.Compact, tfstate.Indented} {
			once, err := tfstate.Encode(st, form)
			if err != nil {
				t.Fatalf("encode what decoded: %v", err)
			}
			again, err := tfstate.Decode("encoded", once)
			if err != nil {
				t.Fatalf("decode what was encoded: %v\n%s", err, once)
			}
			twice, err := tfstate.Encode(again, form)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(once, twice) {
				t.Fatalf("encoding is not stable:\n%s\n%s", once, twice)
			}
		}
	})
}
