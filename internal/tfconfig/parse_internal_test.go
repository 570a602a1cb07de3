package tfconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/kyku/action/internal/tfconfig/benchchains"
)

// TestParsePiecesIsTheWholeParse: a file parsed in pieces (here cut after
// every lone "}" line) gives the body the whole file's parse gives, every
// position included, for each .tf file of the repository's test data;
// and a cut that is not between top-level blocks (in a heredoc, a
// comment, a block) or a top-level argument set twice gives up the pieces
// (the file is parsed whole), so what is reported is the whole parse's.
func TestParsePiecesIsTheWholeParse(t *testing.T) {
	cores := make(chan struct{}, 2)
	files, err := filepath.Glob("../../testdata/tfcorpus/*/*.tf")
	if err != nil || len(files) < 20 {
		t.Fatalf("the corpus's .tf files: %d, %v", len(files), err)
	}
	pieced := 0
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, crlf := range []bool{false, true} {
				if crlf {
					data = []byte(strings.ReplaceAll(string(data), "\n", "\r\n"))
				}
				whole, diags := hclsyntax.ParseConfig(data, name, hcl.Pos{Line: 1, Column: 1})
				got := parsePieces(data, name, 1, cores)
				if got == nil {
					if len(cutPoints(data, 1)) > 1 && !diags.HasErrors() {
						t.Errorf("crlf %v: not parsed in pieces", crlf)
					}
					continue
				}
				pieced++
				if !reflect.DeepEqual(whole.Body, got.Body) || string(got.Bytes) != string(data) {
					t.Errorf("crlf %v: the body parsed in %d pieces differs from the whole parse's", crlf, len(cutPoints(data, 1)))
				}
			}
		})
	}
	if pieced < 20 {
		t.Errorf("only %d files were parsed in pieces", pieced)
	}

	for name, text := range map[string]string{
		"cut in a heredoc": "locals {\n  a = <<EOT\nx\n}\nresource \"b\" \"c\" {\n}\nEOT\n}\n",
		"cut in a comment": "/*\nlocals {\n}\nlocals {\n}\n*/\nlocals {\n}\n",
		"cut in a block":   "resource \"a\" \"b\" {\n  dynamic \"x\" {\n  content {\n}\n}\n  y = 1\n}\n",
		"argument twice":   "a = 1\nlocals {\n}\na = 2\n",
		"an error":         "locals {\n}\nlocals {\n  = 1\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			if len(cutPoints([]byte(text), 1)) < 2 {
				t.Fatal("no cut: the case tests nothing")
			}
			if f := parsePieces([]byte(text), "main.tf", 1, cores); f != nil {
				t.Errorf("parsed in pieces, want the whole parse")
			}
		})
	}
}

// TestLoadLargeFileReportsAsWhole: Load of a file large enough to be
// parsed in pieces gives its resources in order, at their lines, and an
// error in it is reported as the whole file's parse reports it.
func TestLoadLargeFileReportsAsWhole(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		b.WriteString("resource \"kyku_ssh_key\" \"k" + strings.Repeat("x", i%3) + strconv.Itoa(i) + "\" {\n  public_key = \"k\"\n}\n")
	}
	text := b.String()
	if len(cutPoints([]byte(text), pieceSize)) < 2 {
		t.Fatal("the file is not cut: the test tests nothing")
	}
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(text)
	m, err := Load(dir, nil, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	r := m.Resources["kyku_ssh_key.kx19999"]
	if len(m.Resources) != 20000 || r == nil || r.DeclRange.Start.Line != 3*19999+1 {
		t.Fatalf("%d resources, the last %+v", len(m.Resources), r)
	}
	write(text + "locals {\n  = 1\n}\n")
	_, err = Load(dir, nil, Inputs{})
	if err == nil || !strings.Contains(err.Error(), "main.tf:60002") {
		t.Fatalf("error %v, want one at main.tf:60002", err)
	}
}

// TestParsePiecesAllocatesLittle: parsing .ci/bench-reads' configuration
// of 5,000 resource blocks (500 KB) in pieces allocates, tokens and syntax
// tree together, less than five times what its tokens take (4.2 times): one long
// token slice took 7.4 times, growing by copying (pieceSize).
func TestParsePiecesAllocatesLittle(t *testing.T) {
	data := []byte(benchchains.TF(5000, "cloud", "v2"))
	name := filepath.Join(t.TempDir(), "main.tf")
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, _ := hclsyntax.LexConfig(data, name, hcl.Pos{Line: 1, Column: 1})
	tokenBytes := uint64(len(tokens)) * uint64(unsafe.Sizeof(tokens[0]))
	cores := make(chan struct{}, 2)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f := parseFile(name, cores)
	runtime.ReadMemStats(&after)
	if f.file == nil || len(f.diags) > 0 || len(f.file.Body.(*hclsyntax.Body).Blocks) != 5003 {
		t.Fatalf("parse: %v", f.diags)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 5*tokenBytes {
		t.Errorf("the parse allocated %d MB, %.1f times its tokens' %d MB; want less than 5 times", got>>20, float64(got)/float64(tokenBytes), tokenBytes>>20)
	}
}
