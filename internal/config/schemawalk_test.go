package config

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoaderSwitchesAreDeclared walks the loader's source: every switch on
// a mapping's keys (switch kv.key.Value) takes exactly the keys its
// declared list holds, the list TestSchemaKeysAreTheLoaders holds the
// schema to. A key the loader starts to take in a switch, without the
// list and so without the schema, fails here.
func TestLoaderSwitchesAreDeclared(t *testing.T) {
	declared := map[string][]string{ // by the function holding the switch
		"parseFile":       topKeys,
		"outputDecl":      outputKeys,
		"resource":        resourceKeys,
		"encryptionAt":    encryptionKeys,
		"expandProviders": providerKeys,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sw, ok := n.(*ast.SwitchStmt)
				if !ok || !switchesOnKey(sw.Tag) {
					return true
				}
				var keys []string
				for _, stmt := range sw.Body.List {
					for _, e := range stmt.(*ast.CaseClause).List {
						if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							k, _ := strconv.Unquote(lit.Value)
							keys = append(keys, k)
						}
					}
				}
				want, known := declared[fn.Name.Name]
				if !known {
					t.Errorf("%s: %s switches on a mapping's keys %v: declare its keys in a list, hold kyku.schema.json to it (TestSchemaKeysAreTheLoaders) and name the function here", fset.Position(sw.Pos()), fn.Name.Name, keys)
					return true
				}
				seen[fn.Name.Name] = true
				slices.Sort(keys)
				if diff := cmp.Diff(slices.Sorted(slices.Values(want)), keys); diff != "" {
					t.Errorf("%s: %s takes other keys than its declared list (-list +switch):\n%s", fset.Position(sw.Pos()), fn.Name.Name, diff)
				}
				return true
			})
		}
	}
	for fn := range declared {
		if !seen[fn] {
			t.Errorf("no switch on a mapping's keys in %s: the walk no longer finds the loader's keys", fn)
		}
	}
}

// switchesOnKey reports whether a switch's tag is <pair>.key.Value.
func switchesOnKey(tag ast.Expr) bool {
	sel, ok := tag.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Value" {
		return false
	}
	inner, ok := sel.X.(*ast.SelectorExpr)
	return ok && inner.Sel.Name == "key"
}
