package tfconfig

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestExprJSONIsMarshals: what an argument's MarshalJSON writes (hashed
// into every plan) is what json.Marshal writes of its description, for
// names and text of every kind of character.
func TestExprJSONIsMarshals(t *testing.T) {
	dir := t.TempDir()
	text := "a = \"<b> & \u2028 \xff \\\"q\\\" é\"\n"
	for _, c := range []struct {
		file, addr string
		key        instKey
		from       string
		end        int
	}{
		{file: filepath.Join(dir, "main.tf"), end: len(text)},
		{file: filepath.Join(dir, "<m>&.tf"), addr: `module.a["x&<y>"]`, key: instKey{rep: eached, key: "k\"\u2029"}, from: dir, end: 9},
		{file: filepath.Join(dir, "sub", "m.tf"), addr: "module.b[1]", key: instKey{rep: counted, index: 3}, from: dir, end: len(text)},
		{file: "elsewhere.tf", end: len(text) + 1},
	} {
		ev := &evaluator{files: map[string]*hcl.File{c.file: {Bytes: []byte(text)}}, in: Inputs{NamesFrom: c.from}}
		e := &Expr{sc: scope{mi: &modInst{ev: ev, addr: c.addr}, key: c.key},
			rng: hcl.Range{Filename: c.file, Start: hcl.Pos{Line: 1, Column: 5, Byte: 4}, End: hcl.Pos{Line: 1, Column: c.end + 1, Byte: c.end}}}
		got, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalDescription(e); string(got) != string(want) {
			t.Errorf("MarshalJSON wrote\n%s\nwhere json.Marshal writes\n%s", got, want)
		}
	}
}

// marshalDescription is MarshalJSON as it was written: json.Marshal of
// the description.
func marshalDescription(e *Expr) []byte {
	rng := e.rng
	if from := e.sc.mi.ev.in.NamesFrom; from != "" {
		if rel, err := filepath.Rel(from, rng.Filename); err == nil && filepath.IsLocal(rel) {
			rng.Filename = filepath.ToSlash(rel)
		}
	}
	desc := map[string]any{"hcl": rng.String()}
	if e.sc.mi.addr != "" {
		desc["module"] = e.sc.mi.addr
	}
	if s := e.sc.key.suffix(); s != "" {
		desc["instance"] = s
	}
	if f := e.sc.mi.ev.files[e.rng.Filename]; f != nil && e.rng.End.Byte <= len(f.Bytes) {
		desc["text"] = string(e.rng.SliceBytes(f.Bytes))
	}
	b, _ := json.Marshal(desc)
	return b
}
