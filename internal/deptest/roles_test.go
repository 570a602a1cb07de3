package deptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// holders are the packages that drive a provider.Provider: none may look
// for a role by type assertion, since every provider implements them all.
var holders = []string{
	"internal/engine", "internal/review", "internal/workspace", "internal/cli",
	"internal/action", "internal/bot", "internal/provider/tfprovider",
}

// TestNoProviderRoleAsserted type-checks the holders' code (tests aside)
// and fails on every type assertion or type switch that asks a value of
// one of package provider's interfaces for anything, asks any value for
// one of them, or asks for an interface made of the contract's methods
// (an IDChecker declared beside the engine).
func TestNoProviderRoleAsserted(t *testing.T) {
	const mod = "github.com/kyku/action/"
	pkgs, exports := listExports(t, holders)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	prov, err := imp.Import(mod + "internal/provider")
	if err != nil {
		t.Fatal(err)
	}
	contract := prov.Scope().Lookup("Provider").Type().Underlying().(*types.Interface)
	for _, name := range holders {
		p := pkgs[mod+name]
		if p == nil {
			t.Fatalf("go list did not list %s", name)
		}
		for _, bad := range roleAssertions(t, fset, imp, p, contract) {
			t.Errorf("%s: asserts a provider role; call the contract's method instead (every provider implements it)", bad)
		}
	}
}

// listed is what go list says of one package.
type listed struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
}

// listExports lists the holders and everything they import, with the
// export data of each (built if the cache lacks it). The build settings
// are .ci/run's go vet's (CGO_ENABLED=0, -trimpath), so that on a cold
// machine the packages vet compiled are not compiled again.
func listExports(t *testing.T, names []string) (map[string]*listed, map[string]string) {
	t.Helper()
	args := []string{"list", "-trimpath", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles"}
	for _, n := range names {
		args = append(args, "github.com/kyku/action/"+n)
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %v: %v", args, err)
	}
	pkgs, exports := map[string]*listed{}, map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath], exports[p.ImportPath] = &p, p.Export
	}
	return pkgs, exports
}

// roleAssertions type-checks p and returns the position of each type
// assertion (or type switch case) that involves a role of contract.
func roleAssertions(t *testing.T, fset *token.FileSet, imp types.Importer, p *listed, contract *types.Interface) []string {
	t.Helper()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-check %s: %v", p.ImportPath, err)
	}
	var out []string
	flag := func(n ast.Node) { out = append(out, fset.Position(n.Pos()).String()) }
	check := func(operand ast.Expr, asked []ast.Expr) {
		if isRole(info.TypeOf(operand), p.ImportPath, contract) {
			flag(operand)
			return
		}
		for _, e := range asked {
			if isRole(info.TypeOf(e), p.ImportPath, contract) {
				flag(e)
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeAssertExpr:
				if x.Type != nil { // x.(type) is the switch's, below
					check(x.X, []ast.Expr{x.Type})
				}
			case *ast.TypeSwitchStmt:
				var operand ast.Expr
				ast.Inspect(x.Assign, func(n ast.Node) bool {
					if ta, ok := n.(*ast.TypeAssertExpr); ok {
						operand = ta.X
					}
					return operand == nil
				})
				var asked []ast.Expr
				for _, c := range x.Body.List {
					asked = append(asked, c.(*ast.CaseClause).List...)
				}
				check(operand, asked)
			}
			return true
		})
	}
	return out
}

// isRole reports whether t is an interface of package provider, or one
// written or declared in package holder whose every method is one of
// contract's.
func isRole(t types.Type, holder string, contract *types.Interface) bool {
	if t == nil {
		return false
	}
	t = types.Unalias(t)
	iface, ok := t.Underlying().(*types.Interface)
	if !ok || iface.NumMethods() == 0 {
		return false
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
		switch n.Obj().Pkg().Path() {
		case "github.com/kyku/action/internal/provider":
			return true
		case holder:
		default:
			return false // io.Closer and the like, asked of what is not a provider
		}
	}
	for m := range iface.Methods() {
		obj, _, _ := types.LookupFieldOrMethod(contract, false, nil, m.Name())
		f, ok := obj.(*types.Func)
		if !ok || !types.Identical(f.Type(), m.Type()) {
			return false
		}
	}
	return true
}
