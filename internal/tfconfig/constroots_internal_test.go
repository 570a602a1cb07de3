package tfconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// TestConstantRootsKeptForNativeExpressionsOnly: the var and local
// objects kept per expression (constRoots) are keyed by the traversals
// the travCache hands out, which a JSON body's expression gets anew on
// every evaluation: kept for it, each evaluation would add an entry
// never read again, for as long as the module instance lives.
func TestConstantRootsKeptForNativeExpressionsOnly(t *testing.T) {
	for name, file := range map[string]string{
		"main.tf":      "locals {\n  a = \"x\"\n}\noutput \"o\" {\n  value = \"${local.a}-y\"\n}\n",
		"main.tf.json": `{"locals": {"a": "x"}, "output": {"o": {"value": "${local.a}-y"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, name), []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := Load(dir, nil, Inputs{})
			if err != nil {
				t.Fatal(err)
			}
			ev := &evaluator{files: m.files}
			ev.fns = ev.newFunctions()
			mi := newModInst(ev, m, "", nil, nil, instKey{})
			ev.root = mi
			for range 50 {
				v, diags := scope{mi: mi}.eval(m.Outputs["o"].Expr, nil, memo{})
				if diags.HasErrors() || v.AsString() != "x-y" {
					t.Fatalf("o = %#v, %v", v, diags)
				}
			}
			if n := len(mi.consts.objs); n > 1 {
				t.Errorf("%d kept objects after 50 evaluations of one expression, want at most 1", n)
			}
		})
	}
}
