package tfcorpus

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// corpusRoot is the corpus, from this package's directory.
var corpusRoot = filepath.Join("..", "..", "testdata", "tfcorpus")

// constructs are what the corpus must cover (issue 39's list): each is
// found by a pattern in some entry's configuration files.
var constructs = []struct{ name, pattern string }{
	{"terraform required_version", `required_version\s*=`},
	{"terraform required_providers", `required_providers\s*{`},
	{"provider alias", `alias\s*=`},
	{"provider meta-argument", `provider\s*=\s*(fwtest|random)\.`},
	{"providers passed to a module", `providers\s*=\s*{`},
	{"configuration_aliases", `configuration_aliases`},
	{"variable type constraints", `type\s*=\s*(object|tuple|map|set|list)\(`},
	{"optional() with default", `optional\([a-z]+(\(.*\))?,`},
	{"variable validation", `validation\s*{`},
	{"sensitive variable", `(?s)variable "[^"]+" {[^}]*sensitive\s*=\s*true`},
	{"nullable", `nullable\s*=`},
	{"terraform.tfvars", `@file:[^/]+/terraform\.tfvars$`},
	{"*.auto.tfvars", `@file:.*\.auto\.tfvars$`},
	{"*.auto.tfvars.json", `@file:.*\.auto\.tfvars\.json$`},
	{"-var-file and -var", `@file:[^/]+/corpus\.args$`},
	{"TF_VAR_", `TF_VAR_`},
	{".tf.json", `@file:.*\.tf\.json$`},
	{".tofu", `@file:.*\.tofu$`},
	{"override files", `@file:.*_override\.tf$`},
	{"locals", `^locals\s*{`},
	{"count", `count\s*=`},
	{"for_each", `for_each\s*=`},
	{"dynamic block", `dynamic\s+"[a-z_]+"`},
	{"dynamic iterator", `iterator\s*=`},
	{"conditional", `\?[^:\n]+:`},
	{"for expression", `\[for\s`},
	{"for expression to map", `{\s*for\s`},
	{"grouping for", `\.\.\.\s*}`},
	{"full splat", `\[\*\]`},
	{"legacy splat", `\.\*\.`},
	{"template if", `%{\s*if`},
	{"template for", `%{\s*for`},
	{"strip markers", `~}`},
	{"heredoc", `<<EOT`},
	{"indented heredoc", `<<-EOT`},
	{"templatefile", `templatefile\(`},
	{"jsonencode", `jsonencode\(`},
	{"cidrsubnet", `cidrsubnet\(`},
	{"local module", `source\s*=\s*"\./modules/`},
	{"module source from variables and locals", `source\s*=\s*(local|var)\.`},
	{"lifecycle destroy = false", `(?s)lifecycle\s*{[^}]*\bdestroy\s*=\s*false`},
	{"nested module", `@file:[^/]+/modules/.+/modules/.+\.tf$`},
	{"module count", `(?s)module "[^"]+" {[^}]*count\s*=`},
	{"module for_each", `(?s)module "[^"]+" {[^}]*for_each\s*=`},
	{"module depends_on", `(?s)module "[^"]+" {[^}]*depends_on\s*=`},
	{"moved", `^moved\s*{`},
	{"import", `^import\s*{`},
	{"import for_each", `(?s)import\s*{\s*for_each`},
	{"removed", `^removed\s*{`},
	{"check", `^check\s+"`},
	{"check scoped data source", `(?s)check "[^"]+" {\s*data "`},
	{"create_before_destroy", `create_before_destroy\s*=\s*true`},
	{"prevent_destroy", `prevent_destroy\s*=\s*true`},
	{"ignore_changes", `ignore_changes\s*=\s*\[`},
	{"ignore_changes all", `ignore_changes\s*=\s*all`},
	{"replace_triggered_by", `replace_triggered_by`},
	{"precondition", `precondition\s*{`},
	{"postcondition", `postcondition\s*{`},
	{"self", `self\.`},
	{"depends_on", `depends_on\s*=`},
	{"data source", `data\s+"`},
	{"terraform_remote_state", `terraform_remote_state`},
	{"sensitive output", `(?s)output "[^"]+" {[^}]*sensitive\s*=\s*true`},
	{"output precondition", `(?s)output "[^"]+" {[^}]*precondition`},
	{"terraform_data", `resource "terraform_data"`},
	{"terraform.workspace", `terraform\.workspace`},
	{"path.module", `path\.module`},
	{"path.root", `path\.root`},
	{"path.cwd", `path\.cwd`},
	{"backend", `backend\s+"`},
	{"hashicorp/null", `null_resource`},
	{"hashicorp/random", `random_`},
	{"hashicorp/local", `local_file`},
	{"hashicorp/tls", `tls_private_key`},
	{"hashicorp/time", `time_static`},
	{"fwtest (protocol 6)", `fwtest_item`},
	{"sdktest (protocol 5)", `sdktest_item`},
	{"numeric functions", `parseint\(`},
	{"string functions", `regexall\(`},
	{"collection functions", `setproduct\(`},
	{"encoding functions", `yamldecode\(`},
	{"filesystem functions", `fileset\(`},
	{"date and time functions", `formatdate\(`},
	{"hash and crypto functions", `uuidv5\(`},
	{"IP network functions", `cidrsubnets\(`},
	{"type conversion functions", `tomap\(`},
	{"try and can", `try\(`},
	{"impure functions", `uuid\(\)`},
	{"for_each unknown at plan (refused)", `@file:error-for-each-unknown/`},
	{"count unknown at plan (refused)", `@file:error-count-unknown/`},
	{"sensitive for_each (refused)", `@file:error-sensitive-for-each/`},
}

// goldenActions are what the goldens must show among them: every
// action OpenTofu plans, moves and imports.
var goldenActions = []string{
	`"create"`, `"update"`, `"delete"`, `"no-op"`, `"read"`, `"forget"`,
	`"delete",\s*"create"`, `"create",\s*"delete"`, `"previous_address"`, `"importing"`,
	`"read_because_config_unknown"`, `"read_because_dependency_pending"`, `"replace_by_triggers"`,
}

// realWorld are the estates the issue asks for, one entry each.
var realWorld = []string{"estate-vpc", "estate-module-foreach", "estate-userdata", "estate-iam-policy", "estate-dynamic-sg", "estate-cert-validation"}

// TestCorpus: the corpus has at least 40 entries OpenTofu plans and some
// it refuses, each with a golden Load reads, in the normalised form and
// free of the recording machine's paths; the entries that start from a
// state carry it; and together they cover every construct and action.
func TestCorpus(t *testing.T) {
	entries, err := Load(corpusRoot)
	if err != nil {
		t.Fatal(err)
	}
	var refused int
	defer func() {
		if len(entries)-refused < 40 {
			t.Errorf("the corpus has %d entries OpenTofu plans, want at least 40", len(entries)-refused)
		}
		if refused == 0 {
			t.Error("no entry OpenTofu refuses to plan")
		}
	}()
	var configs, goldens strings.Builder
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name] = true
		file := GoldenFile
		if e.Errors != nil {
			file = DiagnosticsFile
			refused++
		} else if len(e.Golden.Changes) == 0 && len(e.Golden.Outputs) == 0 {
			t.Errorf("%s: OpenTofu plans nothing", e.Name)
		}
		golden, err := os.ReadFile(filepath.Join(e.Dir, file))
		if err != nil {
			t.Fatal(err)
		}
		checkRecorded(t, e.Name+"/"+file, golden)
		if e.PriorState != nil {
			checkRecorded(t, e.Name+"/"+Step1State, e.PriorState)
		}
		goldens.Write(golden)
		configs.WriteString(configText(t, e.Dir))
	}
	readme, err := os.ReadFile(filepath.Join(corpusRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range names {
		if !bytes.Contains(readme, []byte("| `"+name+"` |")) {
			t.Errorf("testdata/tfcorpus/README.md has no row for %s", name)
		}
	}
	for _, want := range realWorld {
		if !names[want] {
			t.Errorf("no real-world entry %s", want)
		}
	}
	for _, c := range constructs {
		if !regexp.MustCompile(`(?m)` + c.pattern).MatchString(configs.String()) {
			t.Errorf("no entry covers %s (/%s/)", c.name, c.pattern)
		}
	}
	for _, a := range goldenActions {
		if !regexp.MustCompile(a).MatchString(goldens.String()) {
			t.Errorf("no golden shows %s", a)
		}
	}
}

// checkRecorded fails the test when a recorded file is not as
// .ci/record-tofu-goldens writes it.
func checkRecorded(t *testing.T, name string, data []byte) {
	t.Helper()
	again, err := Normalize(data, "/nonexistent-workdir")
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if !bytes.Equal(again, data) {
		t.Errorf("%s is not in its normalised form: record it with .ci/record-tofu-goldens", name)
	}
	for _, leak := range []string{"/tmp/", "/work/", "/home/", "/root/"} {
		if bytes.Contains(data, []byte(leak)) {
			t.Errorf("%s holds a path of the recording machine (%s…)", name, leak)
		}
	}
}

// configText is every configuration file of an entry (its step1 too),
// each preceded by a line "@file:ENTRY/PATH" for patterns on names.
func configText(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if slices.Contains([]string{GoldenFile, Step1State, DiagnosticsFile}, rel) || strings.HasSuffix(rel, ".pem") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.WriteString("@file:" + filepath.Base(dir) + "/" + filepath.ToSlash(rel) + "\n")
		b.Write(data)
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
