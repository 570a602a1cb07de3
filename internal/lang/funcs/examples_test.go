package funcs

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/marks"
)

var update = flag.Bool("update", false, "rewrite the results in testdata/examples from what the functions return")

// example is one "> expression" of testdata/examples and what the
// console shows for it.
type example struct {
	fn      string // the function whose section holds it
	notes   []string
	expr    string
	want    string
	match   string // a regular expression the result must match instead
	skip    string // why it is not evaluated
	line    int
	trailer string // blank lines after it, kept by -update
}

// exampleFile is a file of testdata/examples: a header, then "## name"
// sections of examples. Lines starting "#" are notes; "#! match RE"
// and "#! skip WHY" apply to the next example.
type exampleFile struct {
	header   []string
	examples []*example
	sections []string // the section names in order, each before its first example
	starts   map[int]string
}

func readExamples(t *testing.T, path string) *exampleFile {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := &exampleFile{starts: map[int]string{}}
	var section string
	var notes []string
	var cur *example
	lines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
			f.sections = append(f.sections, section)
			f.starts[len(f.examples)] += section + "\n"
			cur = nil
		case strings.HasPrefix(line, "#"):
			if section == "" {
				f.header = append(f.header, line)
				continue
			}
			notes = append(notes, line)
			cur = nil
		case strings.HasPrefix(line, ">"):
			ex := &example{fn: section, notes: notes, line: i + 1}
			notes = nil
			var expr []string
			for ; i < len(lines) && strings.HasPrefix(lines[i], ">"); i++ {
				expr = append(expr, strings.TrimPrefix(strings.TrimPrefix(lines[i], ">"), " "))
			}
			i--
			ex.expr = strings.Join(expr, "\n")
			for _, n := range ex.notes {
				if re, ok := strings.CutPrefix(n, "#! match "); ok {
					ex.match = re
				}
				if why, ok := strings.CutPrefix(n, "#! skip "); ok {
					ex.skip = why
				}
			}
			f.examples = append(f.examples, ex)
			cur = ex
		case cur != nil:
			cur.want += line + "\n"
		case strings.TrimSpace(line) != "":
			t.Fatalf("%s:%d: a result with no expression before it", path, i+1)
		}
	}
	for i, ex := range f.examples {
		trimmed := strings.TrimRight(ex.want, "\n")
		if _, last := f.starts[i+1]; !last && ex.want != "" {
			ex.trailer = strings.Repeat("\n", strings.Count(ex.want, "\n")-strings.Count(trimmed, "\n")-1)
		}
		ex.want = trimmed
	}
	return f
}

func (f *exampleFile) write(path string) error {
	var b bytes.Buffer
	for _, h := range f.header {
		b.WriteString(h + "\n")
	}
	for i, ex := range f.examples {
		if names, ok := f.starts[i]; ok {
			for _, n := range strings.Split(strings.TrimSuffix(names, "\n"), "\n") {
				b.WriteString("\n## " + n + "\n")
			}
		}
		for _, n := range ex.notes {
			b.WriteString(n + "\n")
		}
		for _, l := range strings.Split(ex.expr, "\n") {
			b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
		}
		b.WriteString(ex.want + "\n" + ex.trailer)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// docsDir holds the files the documented examples read.
func docsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// docsOptions are what the documented examples assume: the clock and the
// plan at 2018-05-13T07:44:12Z, a home in /home/steve, and the random
// bytes of the uuid example.
func docsOptions(dir string) Options {
	at := time.Date(2018, 5, 13, 7, 44, 12, 0, time.UTC)
	return Options{
		BaseDir:       dir,
		WorkDir:       "/home/user/some/tofu/root",
		Getenv:        func(k string) string { return map[string]string{"HOME": "/home/steve"}[k] },
		Now:           func() time.Time { return at },
		PlanTimestamp: at,
		Rand:          bytes.NewReader([]byte("\xb5\xee\x72\xa3\x54\xdd\xc4\xb8\x55\x1c\x4b\xdc\x02\x04\xce\xdb")),
	}
}

// docsContext is the evaluation context of the documented examples: the
// function table (with the console's type) and the variables the pages
// speak of.
func docsContext(t *testing.T) *hcl.EvalContext {
	dir := docsDir(t)
	opts := docsOptions(dir)
	fns := Table(opts)
	opts.Console = true
	fns["type"] = Table(opts)["type"]
	secretJSON := "{\n  \"username\": \"zqb\",\n  \"password\": \"p4ssw0rd\"\n}"
	ephemeral := cty.StringVal("an ephemeral secret").Mark(marks.Ephemeral)
	return &hcl.EvalContext{
		Functions: fns,
		Variables: map[string]cty.Value{
			"path": cty.ObjectVal(map[string]cty.Value{
				"module": cty.StringVal(dir),
				"root":   cty.StringVal("/home/user/some/tofu/root"),
			}),
			"var": cty.ObjectVal(map[string]cty.Value{
				"name":               cty.StringVal("Valentina"),
				"mixed_content_json": cty.StringVal(secretJSON).Mark(marks.Sensitive),
				"ephemeral_variable": ephemeral,
				"list":               cty.EmptyTupleVal,
			}),
			"local": cty.ObjectVal(map[string]cty.Value{
				"foo": cty.ObjectVal(map[string]cty.Value{"bar": cty.StringVal("baz")}),
				"mixed_content": cty.ObjectVal(map[string]cty.Value{
					"username": cty.StringVal("zqb"),
					"password": cty.StringVal("p4ssw0rd"),
				}).Mark(marks.Sensitive),
				"default_list": cty.TupleVal([]cty.Value{
					cty.ObjectVal(map[string]cty.Value{
						"foo": cty.StringVal("bar"),
						"map": cty.ObjectVal(map[string]cty.Value{"bleep": cty.StringVal("blop")}),
					}),
					cty.ObjectVal(map[string]cty.Value{"beep": cty.StringVal("boop")}),
				}),
			}),
			"ephemeral": cty.ObjectVal(map[string]cty.Value{
				"some_resource": cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("e-1")}).Mark(marks.Ephemeral),
			}),
			"aws_instance": cty.ObjectVal(map[string]cty.Value{
				"example": cty.TupleVal([]cty.Value{
					cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i-abc123"), "availability_zone": cty.StringVal("us-east-1a")}),
					cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i-def456"), "availability_zone": cty.StringVal("us-east-1a")}),
					cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i-ghi789"), "availability_zone": cty.StringVal("us-east-1b")}),
				}),
			}),
		},
	}
}

// evalConsole evaluates one console line.
func evalConsole(ctx *hcl.EvalContext, src string) (cty.Value, hcl.Diagnostics) {
	expr, diags := hclsyntax.ParseExpression([]byte(src), "<console-input>", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	return expr.Value(ctx)
}

func exampleFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "examples", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	return paths
}

// TestDocumentedExamples evaluates every example of OpenTofu's function
// pages and compares what the console would print.
func TestDocumentedExamples(t *testing.T) {
	for _, path := range exampleFiles(t) {
		f := readExamples(t, path)
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			for _, ex := range f.examples {
				t.Run(ex.fn, func(t *testing.T) {
					if ex.skip != "" {
						t.Skip(ex.skip)
					}
					got := consoleResult(evalConsole(docsContext(t), ex.expr))
					if *update && ex.match == "" {
						ex.want = got
						return
					}
					if ex.match != "" {
						if !regexp.MustCompile(ex.match).MatchString(got) {
							t.Errorf("%s:%d: > %s\ngot %s\nwant a match of %s", path, ex.line, ex.expr, got, ex.match)
						}
						return
					}
					if diff := cmp.Diff(ex.want, got); diff != "" {
						t.Errorf("%s:%d: > %s\n(-want +got):\n%s", path, ex.line, ex.expr, diff)
					}
				})
			}
		})
		if *update {
			if err := f.write(path); err != nil {
				t.Fatal(err)
			}
		}
	}
}
