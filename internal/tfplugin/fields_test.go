package tfplugin_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

// The hand codec's field numbers (fields.go) are checked against the
// protocol's own .proto files, read from the terraform-plugin-go (and
// go-plugin) version the test providers are built with, in the module
// cache: nothing of them is copied here.

// protoFiles are the .proto files by the qualifier fields.go gives a
// message of only one of them ("" for both protocols), each in its module.
var protoFiles = []struct {
	qualifier, module, path string
}{
	{"5", "github.com/hashicorp/terraform-plugin-go", "tfprotov5/internal/tfplugin5/tfplugin5.proto"},
	{"6", "github.com/hashicorp/terraform-plugin-go", "tfprotov6/internal/tfplugin6/tfplugin6.proto"},
	{"go-plugin", "github.com/hashicorp/go-plugin", "internal/plugin/grpc_stdio.proto"},
}

// TestFieldNumbersMatchTheProtoFiles: every constant of fields.go is the
// number of the field its comment names, in every message its block
// names, and its Go type is that field's wire type.
func TestFieldNumbersMatchTheProtoFiles(t *testing.T) {
	protos, dirs := map[string]protoMessages{}, map[string]string{}
	for _, pf := range protoFiles {
		if dirs[pf.module] == "" {
			dirs[pf.module] = moduleDir(t, pf.module)
		}
		src, err := os.ReadFile(filepath.Join(dirs[pf.module], filepath.FromSlash(pf.path)))
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := parseProto(string(src))
		if err != nil {
			t.Fatalf("%s: %v", pf.path, err)
		}
		protos[pf.qualifier] = msgs
	}
	consts := fieldConsts(t)
	if len(consts) < 50 {
		t.Fatalf("fields.go declares %d field numbers; the codec uses more: is the file read right?", len(consts))
	}
	for _, c := range consts {
		for _, m := range c.messages {
			qs := []string{m.qualifier}
			if m.qualifier == "" {
				qs = []string{"5", "6"}
			}
			for _, q := range qs {
				file := filepath.Base(protoFiles[protoFile(q)].path)
				fields, ok := protos[q][m.name]
				if !ok {
					t.Errorf("%s: %s declares no message %s", c.pos, file, m.name)
					continue
				}
				f, ok := fields[c.field]
				switch {
				case !ok:
					t.Errorf("%s: %s: %s has no field %s", c.pos, file, m.name, c.field)
				case f.num != c.num:
					t.Errorf("%s: %s = %d, but %s says %s.%s = %d", c.pos, c.name, c.num, file, m.name, c.field, f.num)
				case f.wire != c.wire:
					t.Errorf("%s: %s is a %s, but %s.%s is %s in %s", c.pos, c.name, c.typ, m.name, c.field, wireName(f.wire), file)
				}
			}
		}
	}
}

// protoFile is the index in protoFiles of qualifier q's file, -1 when
// there is none.
func protoFile(q string) int {
	for i, pf := range protoFiles {
		if pf.qualifier == q {
			return i
		}
	}
	return -1
}

// moduleDir is where the module mod of the test providers' build list
// is, downloaded into the module cache when it is not there yet.
func moduleDir(t *testing.T, mod string) string {
	t.Helper()
	dir := filepath.Join("testdata", "providers")
	run := func(args ...string) (path, version, modDir string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		var m struct{ Path, Version, Dir string }
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("go %s: %v", strings.Join(args, " "), err)
		}
		return m.Path, m.Version, m.Dir
	}
	path, version, modDir := run("list", "-m", "-json", mod)
	if modDir == "" {
		_, _, modDir = run("mod", "download", "-json", path+"@"+version)
	}
	if modDir == "" {
		t.Fatalf("module %s %s: no directory in the module cache", path, version)
	}
	return modDir
}

// fieldConst is one constant of fields.go.
type fieldConst struct {
	pos      string // file:line
	name     string
	typ      string // bytesField or varintField
	wire     protowire.Type
	num      protowire.Number
	field    string // the proto field its comment names
	messages []protoMessage
}

// protoMessage is a message a constant block names.
type protoMessage struct {
	name      string // PlanResourceChange.Request
	qualifier string // "5", "6", "go-plugin"; "" for both protocols
}

// wireOf are the wire types of the field number types.
var wireOf = map[string]protowire.Type{"bytesField": protowire.BytesType, "varintField": protowire.VarintType}

func wireName(w protowire.Type) string {
	for name, t := range wireOf {
		if t == w {
			return name
		}
	}
	return fmt.Sprintf("wire type %d", w)
}

// fieldConsts reads fields.go: each const block of field numbers starts
// its comment "Fields of M1, M2 (5), ….", each constant's comment names
// its field. Anything else is an error.
func fieldConsts(t *testing.T) []fieldConst {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fields.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []fieldConst
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		msgs, err := blockMessages(gd.Doc.Text())
		if err != nil {
			t.Errorf("%s: %v", fset.Position(gd.Pos()), err)
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			pos := fset.Position(vs.Pos()).String()
			typ, _ := vs.Type.(*ast.Ident)
			var lit *ast.BasicLit
			if len(vs.Values) == 1 {
				lit, _ = vs.Values[0].(*ast.BasicLit)
			}
			if len(vs.Names) != 1 || typ == nil || lit == nil || lit.Kind != token.INT || vs.Comment == nil {
				t.Errorf("%s: write a field number as `name bytesField|varintField = N // proto_field_name`", pos)
				continue
			}
			wire, ok := wireOf[typ.Name]
			n, err := strconv.ParseInt(lit.Value, 0, 32)
			if !ok || err != nil {
				t.Errorf("%s: %s: a field number is a bytesField or varintField constant", pos, vs.Names[0].Name)
				continue
			}
			out = append(out, fieldConst{
				pos: pos, name: vs.Names[0].Name, typ: typ.Name, wire: wire, num: protowire.Number(n),
				field: strings.Fields(vs.Comment.Text())[0], messages: msgs,
			})
		}
	}
	return out
}

// blockMessages reads the messages a const block's comment names:
// "Fields of A.Request (5), B.Request (6)." or "Fields of C: …".
func blockMessages(doc string) ([]protoMessage, error) {
	s, ok := strings.CutPrefix(strings.Join(strings.Fields(doc), " "), "Fields of ")
	if !ok {
		return nil, fmt.Errorf("a const block of field numbers starts its comment \"Fields of <messages>.\"; got %q", doc)
	}
	for _, end := range []string{". ", ":"} {
		if i := strings.Index(s, end); i >= 0 {
			s = s[:i]
		}
	}
	s = strings.TrimSuffix(s, ".")
	var out []protoMessage
	for item := range strings.SplitSeq(s, ", ") {
		m := protoMessage{name: item}
		if name, q, ok := strings.Cut(item, " ("); ok {
			m.name, m.qualifier = name, strings.TrimSuffix(q, ")")
			if protoFile(m.qualifier) < 0 {
				return nil, fmt.Errorf("message %s: unknown qualifier %q (5, 6 or go-plugin)", name, m.qualifier)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// TestBlockMessages: how fields.go's block comments name their messages.
func TestBlockMessages(t *testing.T) {
	got, err := blockMessages("Fields of Configure.Request (5),\nConfigureProvider.Request (6).\nMore text.")
	if err != nil {
		t.Fatal(err)
	}
	want := []protoMessage{{"Configure.Request", "5"}, {"ConfigureProvider.Request", "6"}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(protoMessage{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got, err = blockMessages("Fields of StdioData (go-plugin): its stream.")
	if err != nil || len(got) != 1 || got[0] != (protoMessage{"StdioData", "go-plugin"}) {
		t.Errorf("StdioData: %v %v", got, err)
	}
	if _, err := blockMessages("Fields of X (7)."); err == nil {
		t.Error("an unknown qualifier was taken")
	}
	if _, err := blockMessages("The fields of X."); err == nil {
		t.Error("a block without \"Fields of\" was taken")
	}
}

// TestFieldNumbersAreNamed: outside fields.go the codec writes no field
// number itself: every argument, struct field and comparison that takes
// one is given a named constant, so that the test above checks them all.
func TestFieldNumbersAreNamed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	params, fields := numberTakers(parsed)
	if len(params) < 5 || len(fields) < 4 {
		t.Fatalf("found %d functions and %d struct fields taking a field number: is the code read right?", len(params), len(fields))
	}
	var got []string
	for _, f := range parsed {
		got = append(got, literalNumbers(fset, f, params, fields)...)
	}
	if len(got) > 0 {
		t.Errorf("field numbers written outside fields.go (name them there):\n%s", strings.Join(got, "\n"))
	}
}

// numberTakers finds, in files, the functions (by name: the parameter
// indexes) and the struct fields (by name) whose type is a field number.
func numberTakers(files []*ast.File) (map[string][]int, map[string]bool) {
	isNumber := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && numberType(id.Name)
	}
	params, fields := map[string][]int{}, map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				i := 0
				for _, p := range n.Type.Params.List {
					for range max(len(p.Names), 1) {
						if isNumber(p.Type) {
							params[n.Name.Name] = append(params[n.Name.Name], i)
						}
						i++
					}
				}
			case *ast.StructType:
				for _, fl := range n.Fields.List {
					if isNumber(fl.Type) {
						for _, name := range fl.Names {
							fields[name.Name] = true
						}
					}
				}
			}
			return true
		})
	}
	return params, fields
}

// literalNumbers lists where f, outside fields.go, gives a field number
// as a literal: an argument of a function in params, a value of a
// struct field in fields, a conversion to a field number type (but 0,
// no field), a field's number compared (outside wire.go), a tag written
// by hand.
func literalNumbers(fset *token.FileSet, f *ast.File, params map[string][]int, fields map[string]bool) []string {
	file := fset.Position(f.Pos()).Filename
	if file == "fields.go" {
		return nil
	}
	var out []string
	bad := func(n ast.Node, what string) { out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what)) }
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			name := calledName(n.Fun)
			for _, i := range params[name] {
				if i < len(n.Args) && hasIntLiteral(n.Args[i]) {
					bad(n, name+" given a literal field number")
				}
			}
			if numberType(name) {
				if len(n.Args) == 1 && hasIntLiteral(n.Args[0]) && !isZeroLiteral(n.Args[0]) {
					bad(n, "a literal converted to "+name)
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && fields[k.Name] && hasIntLiteral(n.Value) {
				bad(n, k.Name+" set to a literal")
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if sel, ok := lhs.(*ast.SelectorExpr); ok && fields[sel.Sel.Name] && i < len(n.Rhs) && hasIntLiteral(n.Rhs[i]) {
					bad(n, sel.Sel.Name+" set to a literal")
				}
			}
		case *ast.SelectorExpr:
			switch {
			case n.Sel.Name == "num" && file != "wire.go":
				bad(n, "a field's number read outside wire.go: compare it with isBytes or isVarint")
			case (n.Sel.Name == "AppendTag" || n.Sel.Name == "EncodeTag") && file != "wire.go":
				bad(n, "a tag written outside wire.go's appenders")
			}
		}
		return true
	})
	return out
}

// numberType reports whether name is a field number type.
func numberType(name string) bool {
	_, ok := wireOf[name]
	return ok
}

func calledName(fun ast.Expr) string {
	switch fun := fun.(type) {
	case *ast.Ident:
		return fun.Name
	case *ast.SelectorExpr:
		return fun.Sel.Name
	}
	return ""
}

func hasIntLiteral(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.INT {
			found = true
		}
		return !found
	})
	return found
}

func isZeroLiteral(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Value == "0"
}
