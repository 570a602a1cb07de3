package funcs

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/marks"
)

// TestBehaviour covers what the documented examples do not: recursion,
// the injected environment, clock and working directory, namespaces,
// errors naming files, refinements and the impure functions.
func TestBehaviour(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "templates"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TF_TEMPLATE_RECURSION_DEPTH": "5", "HOME": "/home/ana"}
	base := Options{BaseDir: dir, WorkDir: "/srv/work", Getenv: func(k string) string { return env[k] }}
	planned := base
	planned.PlanTimestamp = time.Date(2026, 12, 6, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	pure := base
	pure.PureOnly = true
	for _, tc := range []struct {
		name string
		opts Options
		expr string
		want string
		vars map[string]cty.Value
	}{
		{"a template calling itself stops at the depth the environment sets", base, `templatefile("self.tftpl", {})`,
			"Error: Error in function call\n\nCall to function \"templatefile\" failed: maximum recursion depth 5 reached in self.tftpl:1,3-16, self.tftpl:1,3-16 ... .", nil},
		{"so does one calling itself as core::templatefile", base, `templatefile("core.tftpl", {})`,
			"Error: Error in function call\n\nCall to function \"templatefile\" failed: maximum recursion depth 5 reached in core.tftpl:1,3-22, core.tftpl:1,3-22 ... .", nil},
		{"a variable the template uses and vars lack is named with where", base, `templatefile("missing.tftpl", {name = "Ana"})`,
			"Error: Invalid function argument\n\nInvalid value for \"vars\" parameter: vars map does not contain key \"place\", referenced at missing.tftpl:1,23-28.", nil},
		{"a variable name that is not an identifier", base, `templatefile("missing.tftpl", {"1a" = 1, name = "x", place = "y"})`,
			"Error: Invalid function argument\n\nInvalid value for \"vars\" parameter: invalid template variable name \"1a\": must start with a letter, followed by zero or more letters, digits, and underscores.", nil},
		{"vars must be a map", base, `templatefile("missing.tftpl", "x")`,
			"Error: Invalid function argument\n\nInvalid value for \"vars\" parameter: invalid vars value: must be a map.", nil},
		{"templates see the whole table, plantimestamp included", planned, `templatefile("funcs.tftpl", {x = "a"})`,
			`"2026-12-06T10:00:00+01:00 A"`, nil},
		{"templatestring names no file", base, `templatestring("$${nope}", {})`,
			"Error: Invalid function argument\n\nInvalid value for \"vars\" parameter: vars map does not contain key \"nope\".", nil},
		{"file refuses bytes that are not UTF-8", base, `file("binary.txt")`,
			"Error: Error in function call\n\nCall to function \"file\" failed: contents of \"binary.txt\" are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead.", nil},
		{"filebase64 reads them", base, `filebase64("binary.txt")`, `"//4="`, nil},
		{"file of nothing says the file must ship with the configuration", base, `file("nothing.txt")`,
			"Error: Invalid function argument\n\nInvalid value for \"path\" parameter: no file exists at \"nothing.txt\"; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource.", nil},
		{"fileexists of a directory fails as OpenTofu's does", base, `fileexists(".")`,
			"Error: Error in function call\n\nCall to function \"fileexists\" failed: \"" + dir + "\" is a directory, not a file.", nil},
		{"fileexists of nothing", base, `fileexists("nothing.txt")`, "false", nil},
		{"~ is the injected HOME", base, `pathexpand("~/x")`, `"/home/ana/x"`, nil},
		{"~user is refused", base, `pathexpand("~bob/x")`,
			"Error: Error in function call\n\nCall to function \"pathexpand\" failed: cannot expand user-specific home dir.", nil},
		{"abspath resolves against the injected working directory", base, `abspath("a/../b")`, `"/srv/work/b"`, nil},
		{"file reads ~ from HOME too", base, `fileexists("~/none")`, "false", nil},
		{"core:: reaches the same function", base, `core::upper("a")`, `"A"`, nil},
		{"timestamp without a clock is unknown", base, `timestamp()`, "(known after apply)", nil},
		{"plantimestamp before a plan is unknown", base, `plantimestamp()`, "(known after apply)", nil},
		{"plantimestamp keeps the plan's zone", planned, `plantimestamp()`, `"2026-12-06T10:00:00+01:00"`, nil},
		{"PureOnly makes uuid unknown", pure, `uuid()`, "(known after apply)", nil},
		{"PureOnly makes bcrypt unknown", pure, `bcrypt("x")`, "(known after apply)", nil},
		{"try takes the first expression that works", base, `try(nope.x, "fallback")`, `"fallback"`, nil},
		{"can says whether it works", base, `[can(nope.x), can(upper("a"))]`, "[\n  false,\n  true,\n]", nil},
		{"startswith answers from the known prefix of an unknown string", base, `startswith("${u}-suffix", "ab")`, "(known after apply)",
			map[string]cty.Value{"u": cty.UnknownVal(cty.String).Refine().StringPrefix("abc").NewValue()}},
		{"and yes when the known prefix starts with it", base, `startswith(u, "ab")`, "true",
			map[string]cty.Value{"u": cty.UnknownVal(cty.String).Refine().StringPrefix("abc").NewValue()}},
		{"and says no when the known prefix rules it out", base, `startswith(u, "x")`, "false",
			map[string]cty.Value{"u": cty.UnknownVal(cty.String).Refine().StringPrefix("abc").NewValue()}},
		{"length of an unknown list is unknown", base, `length(u)`, "(known after apply)",
			map[string]cty.Value{"u": cty.UnknownVal(cty.List(cty.String))}},
		{"length of a tuple with unknowns is known", base, `length([u, "b"])`, "2",
			map[string]cty.Value{"u": cty.UnknownVal(cty.String)}},
		{"nonsensitive leaves an ephemeral value ephemeral", base, `nonsensitive(e)`, "(ephemeral value)",
			map[string]cty.Value{"e": cty.StringVal("x").Mark(marks.Sensitive).Mark(marks.Ephemeral)}},
		{"ephemeralasnull keeps an unknown unknown", base, `ephemeralasnull(e)`, "(known after apply)",
			map[string]cty.Value{"e": cty.UnknownVal(cty.String).Mark(marks.Ephemeral)}},
		{"ephemeralasnull keeps other marks", base, `issensitive(ephemeralasnull(e))`, "true",
			map[string]cty.Value{"e": cty.StringVal("x").Mark(marks.Sensitive).Mark(marks.Ephemeral)}},
		{"issensitive of an unknown is unknown", base, `issensitive(u)`, "(known after apply)",
			map[string]cty.Value{"u": cty.UnknownVal(cty.String)}},
		{"matchkeys with an unknown in searchset is unknown", base, `matchkeys(["a"], ["x"], [u])`, "(known after apply)",
			map[string]cty.Value{"u": cty.UnknownVal(cty.String)}},
		{"lookup with a sensitive unknown key is sensitive", base, `lookup({a = 1}, k)`, sensitiveUnknown,
			map[string]cty.Value{"k": cty.UnknownVal(cty.String).Mark(marks.Sensitive)}},
		{"a sensitive unknown path keeps file's result sensitive", base, `file(p)`, sensitiveUnknown,
			map[string]cty.Value{"p": cty.UnknownVal(cty.String).Mark(marks.Sensitive)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := &hcl.EvalContext{Functions: Table(tc.opts), Variables: tc.vars}
			v, diags := evalConsole(ctx, tc.expr)
			got := consoleResult(v, diags)
			if !diags.HasErrors() && !v.IsKnown() && v.HasMark(marks.Sensitive) {
				got = sensitiveUnknown
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.expr, diff)
			}
		})
	}
}

// sensitiveUnknown stands for an unknown value marked sensitive, which
// the console shows as any unknown.
const sensitiveUnknown = "(sensitive, known after apply)"

// TestFileFunctionsReadAnyPath: as OpenTofu's, the file functions read
// absolute paths and paths out of the module (a confined reader is the
// evaluator's choice, not theirs).
func TestFileFunctionsReadAnyPath(t *testing.T) {
	outside, err := filepath.Abs(filepath.Join("testdata", "docs", "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := &hcl.EvalContext{Functions: Table(Options{BaseDir: filepath.Join("testdata", "templates")})}
	for _, expr := range []string{`file("` + outside + `")`, `file("../docs/hello.txt")`} {
		if got := consoleResult(evalConsole(ctx, expr)); got != `"Hello World"` {
			t.Errorf("%s = %s", expr, got)
		}
	}
}

// TestUUIDReadsTheInjectedRandomness: uuid() formats 16 bytes of Rand
// and sets no version bits, as OpenTofu's does.
func TestUUIDReadsTheInjectedRandomness(t *testing.T) {
	ctx := &hcl.EvalContext{Functions: Table(Options{Rand: strings.NewReader(strings.Repeat("\xff", 16) + "\x00")})}
	if got := consoleResult(evalConsole(ctx, `uuid()`)); got != `"ffffffff-ffff-ffff-ffff-ffffffffffff"` {
		t.Errorf("uuid() = %s", got)
	}
	if got := consoleResult(evalConsole(ctx, `uuid()`)); !strings.Contains(got, "read random bytes") {
		t.Errorf("uuid() with the randomness run dry = %s", got)
	}
}
