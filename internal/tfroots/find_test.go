package tfroots_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfroots"
)

const (
	s3Backend = "terraform {\n  backend \"s3\" {\n    bucket = \"b\"\n    key    = \"k\"\n  }\n}\n"
	resource  = "resource \"terraform_data\" \"x\" {}\n"
)

// repo is a repository's tree: two roots with backends (net, app), app
// calling the local module modules/web, which calls modules/base; a
// root without a backend nobody calls (tools); a module only
// (modules/base, modules/web); a root outside infra/ (legacy).
func repo() map[string][]byte {
	return map[string][]byte{
		"README.md":                        []byte("hi\n"),
		"infra/net/main.tf":                []byte(s3Backend + resource),
		"infra/net/terraform.tfvars":       []byte("a = 1\n"),
		"infra/app/main.tf":                []byte(s3Backend + "module \"web\" {\n  source = \"../../modules/web\"\n}\n"),
		"infra/app/app.auto.tfvars.json":   []byte("{}"),
		"infra/tools/main.tf.json":         []byte(`{"resource": {"terraform_data": {"x": {}}}}`),
		"modules/web/main.tf":              []byte("module \"base\" {\n  source = \"./../base\"\n}\n" + resource),
		"modules/web/README.md":            []byte("web\n"),
		"modules/base/main.tofu":           []byte(resource),
		"modules/escape/main.tf":           []byte("module \"up\" {\n  source = \"../../../outside\"\n}\n"),
		"legacy/main.tf":                   []byte(s3Backend),
		".terraform/modules/x/main.tf":     []byte(resource),
		"infra/app/.terraform/mod/main.tf": []byte(s3Backend),
	}
}

func write(t *testing.T, files map[string][]byte) string {
	t.Helper()
	top := filepath.Join(t.TempDir(), "tree")
	if err := tfroots.Materialize(top, files); err != nil {
		t.Fatal(err)
	}
	return top
}

func TestFind(t *testing.T) {
	top := write(t, repo())
	for _, tc := range []struct {
		name    string
		changed []string
		dir     string
		want    tfroots.Found
	}{
		{name: "a changed .tf file", changed: []string{"infra/net/main.tf"}, want: tfroots.Found{Roots: []string{"infra/net"}}},
		{name: "a changed tfvars file", changed: []string{"infra/net/terraform.tfvars"}, want: tfroots.Found{Roots: []string{"infra/net"}}},
		{name: "a changed .tf.json auto tfvars", changed: []string{"infra/app/app.auto.tfvars.json"}, want: tfroots.Found{Roots: []string{"infra/app"}}},
		{name: "two roots", changed: []string{"infra/net/main.tf", "infra/app/main.tf", "README.md"}, want: tfroots.Found{Roots: []string{"infra/app", "infra/net"}}},
		{name: "a root without a backend that nobody calls", changed: []string{"infra/tools/main.tf.json"}, want: tfroots.Found{Roots: []string{"infra/tools"}}},
		{name: "a changed module plans its caller", changed: []string{"modules/web/main.tf"}, want: tfroots.Found{Roots: []string{"infra/app"}}},
		{name: "a changed module's module plans its callers' caller", changed: []string{"modules/base/main.tofu"}, want: tfroots.Found{Roots: []string{"infra/app"}}},
		{name: "a module's other files are not *.tf*", changed: []string{"modules/web/README.md"}},
		{name: "nothing of Terraform's", changed: []string{"README.md"}},
		{name: "a deleted root", changed: []string{"gone/main.tf"}},
		{name: "installed modules are not roots", changed: []string{".terraform/modules/x/main.tf", "infra/app/.terraform/mod/main.tf"}},
		{name: "a module source leaving the repository adds no caller", changed: []string{"modules/escape/main.tf"}, want: tfroots.Found{Roots: []string{"modules/escape"}}},
		{name: "outside the working directory", dir: "infra", changed: []string{"legacy/main.tf", "infra/net/main.tf"},
			want: tfroots.Found{Roots: []string{"infra/net"}, Outside: []string{"legacy"}}},
		{name: "a directory named like the working directory", dir: "infra/ne", changed: []string{"infra/net/main.tf"},
			want: tfroots.Found{Outside: []string{"infra/net"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tfroots.Find(top, tc.changed, tfroots.Options{Dir: tc.dir})
			if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("Find (-want +got):\n%s", d)
			}
		})
	}
}

// A module with a backend block of its own is a root too, and its
// callers are touched with it.
func TestFindCalledRootWithBackend(t *testing.T) {
	top := write(t, map[string][]byte{
		"a/main.tf": []byte(s3Backend + "module \"b\" {\n  source = \"../b\"\n}\n"),
		"b/main.tf": []byte(s3Backend + resource),
	})
	got := tfroots.Find(top, []string{"b/main.tf"}, tfroots.Options{})
	if d := cmp.Diff([]string{"a", "b"}, got.Roots); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
}

// A root whose module source reads a variable (a module's argument,
// tfvars) may run any module: a change to any configuration plans it.
// The module its own values run is its callee, not a root.
func TestFindDynamicSource(t *testing.T) {
	top := write(t, map[string][]byte{
		"live/main.tf":          []byte(s3Backend + "variable \"flavor\" {}\nmodule \"svc\" {\n  source = \"../modules/${var.flavor}\"\n}\n"),
		"live/terraform.tfvars": []byte("flavor = \"blue\"\n"),
		"modules/blue/main.tf":  []byte(resource),
		"other/main.tf":         []byte(s3Backend + resource),
	})
	for _, tc := range []struct {
		changed []string
		want    []string
	}{
		{[]string{"modules/blue/main.tf"}, []string{"live"}},
		{[]string{"other/main.tf"}, []string{"live", "other"}},
		{[]string{"README.md"}, nil},
	} {
		got := tfroots.Find(top, tc.changed, tfroots.Options{})
		if d := cmp.Diff(tc.want, got.Roots, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("Find %v: roots (-want +got):\n%s", tc.changed, d)
		}
	}
}

// A symbolic link among a root's files is named, never read for its
// backend: a link could bring in another root's backend block.
func TestFindNamesLinks(t *testing.T) {
	top := write(t, map[string][]byte{"a/main.tf": []byte(resource), "other/backend.tf": []byte(s3Backend)})
	if err := os.Symlink(filepath.Join(top, "other", "backend.tf"), filepath.Join(top, "a", "backend.tf")); err != nil {
		t.Fatal(err)
	}
	got := tfroots.Find(top, []string{"a/backend.tf"}, tfroots.Options{})
	want := tfroots.Found{Roots: []string{"a"}, Links: []string{"a/backend.tf"}}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("Find (-want +got):\n%s", d)
	}
}

func TestMaterializeRefusesPathsOutside(t *testing.T) {
	for _, name := range []string{"../x.tf", "/etc/x.tf", "a/../../x.tf", `a\..\x.tf`, ".git/config"} {
		t.Run(name, func(t *testing.T) {
			if err := tfroots.Materialize(t.TempDir(), map[string][]byte{name: nil}); err == nil {
				t.Errorf("Materialize wrote %q", name)
			}
		})
	}
}

// NeedsInstall looks through the local modules a root runs for a call
// kyku init would install.
func TestNeedsInstall(t *testing.T) {
	top := write(t, map[string][]byte{
		"local/main.tf":  []byte("module \"m\" {\n  source = \"../m\"\n}\n"),
		"nested/main.tf": []byte("module \"r\" {\n  source = \"../r\"\n}\n"),
		"m/main.tf":      []byte(resource),
		"r/main.tf":      []byte("module \"vpc\" {\n  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"5.0.0\"\n}\n"),
		// sources reading a local and a variable, evaluated as loading
		// evaluates them
		"early/main.tf":      []byte("locals {\n  reg = \"terraform-aws-modules/vpc/aws\"\n}\nmodule \"vpc\" {\n  source  = local.reg\n  version = \"5.0.0\"\n}\n"),
		"earlylocal/main.tf": []byte("variable \"d\" {\n  default = \"../m\"\n}\nmodule \"m\" {\n  source = var.d\n}\n"),
		"earlyvia/main.tf":   []byte("module \"v\" {\n  source = \"../via\"\n  to     = \"../r\"\n}\n"),
		"via/main.tf":        []byte("variable \"to\" {\n  type = string\n}\nmodule \"next\" {\n  source = var.to\n}\n"),
	})
	for dir, want := range map[string]bool{"local": false, "nested": true, "r": true, "m": false, "early": true, "earlylocal": false, "earlyvia": true} {
		if got := tfroots.NeedsInstall(filepath.Join(top, dir), tfconfig.Inputs{}); got != want {
			t.Errorf("NeedsInstall(%s) = %v, want %v", dir, got, want)
		}
	}
}
