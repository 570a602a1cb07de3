package tfmodule

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// TestScanCalls: the module blocks of a directory as OpenTofu reads its
// files: .tf and .tf.json, a .tofu file hiding its .tf twin, override
// files last, hidden files and test files not at all.
func TestScanCalls(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"main.tf": `
module "net" {
  source  = "acme/net/aws"
  version = "~> 1.0"
}
module "app" { source = "./app" }
`,
		"more.tf.json":    `{"module": {"db": {"source": "git::https://example.com/db.git?ref=v2"}}}`,
		"legacy.tf":       `module "legacy" { source = "./old" }`,
		"legacy.tofu":     `module "legacy" { source = "./new" }`,
		"override.tf":     `module "net" { version = "2.0.0" }`,
		"app_override.tf": `module "app" { source = "./app2" }`,
		".hidden.tf":      `module "hidden" { source = "./x" }`,
		"main.tftest.hcl": `run "x" {}`,
		"notes.txt":       `module "txt" {}`,
	})
	calls, diags := ScanCalls(dir)
	noErrors(t, diags)
	var got []string
	for _, c := range calls {
		s := c.Name + " " + c.Source
		if c.HasVersion {
			s += " " + c.Version
		}
		got = append(got, s)
	}
	want := []string{"app ./app2", "db git::https://example.com/db.git?ref=v2", "legacy ./new", "net acme/net/aws 2.0.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if c := calls[3]; c.SourceRange.Start.Line != 3 || !strings.HasSuffix(c.SourceRange.Filename, "main.tf") {
		t.Errorf("net's source is at %s", c.SourceRange)
	}
}

// TestScanCallsErrors: every mistake at its place, all at once.
func TestScanCallsErrors(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"main.tf": `
variable "v" {}
module "a" { source = "./a" }
module "a" { source = "./b" }
module "b" { source = var.v }
module "c" { version = "1.0" }
module "1d" { source = "./d" }
`,
		"x_override.tf": `module "nope" { source = "./x" }`,
	})
	calls, diags := ScanCalls(dir)
	var got []string
	for _, d := range diags {
		got = append(got, d.Subject.Filename[len(dir)+1:]+":"+strconv.Itoa(d.Subject.Start.Line)+": "+d.Summary)
	}
	want := []string{
		"main.tf:4: Duplicate module call",
		"main.tf:6: Missing required argument",
		"main.tf:7: Invalid module instance name",
		"x_override.tf:1: Missing module call to override",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	// A source reading a variable is no mistake: the call is returned,
	// marked for tfconfig.EarlyCalls to evaluate, and a walk with
	// ScanCalls alone refuses to follow it.
	var dynamic []string
	for _, c := range calls {
		if c.Dynamic {
			dynamic = append(dynamic, c.Name+" "+c.Source)
		}
	}
	if want := []string{"b "}; !slices.Equal(dynamic, want) {
		t.Errorf("dynamic calls %q, want %q", dynamic, want)
	}
	_, diags = Check(t.Context(), dir, "", nil)
	if !slices.ContainsFunc(diags, func(d *hcl.Diagnostic) bool {
		return d.Summary == "Module source not evaluated" && d.Subject.Start.Line == 5
	}) {
		t.Errorf("Check with ScanCalls follows a source it cannot read: %v", diags)
	}
}
