package tfroots_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfroots"
)

// load materializes files and loads the root "r" with backendConfig.
func load(t *testing.T, files map[string]string, backendConfig ...string) (*tfroots.Loaded, error) {
	t.Helper()
	tree := map[string][]byte{}
	for k, v := range files {
		tree[k] = []byte(v)
	}
	return tfroots.Load(t.Context(), write(t, tree), "r", tfconfig.Inputs{}, backendConfig)
}

func mustLoad(t *testing.T, files map[string]string, backendConfig ...string) *tfroots.Loaded {
	t.Helper()
	l, err := load(t, files, backendConfig...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

const remote = `variable "bucket" {
  default = "team-states"
}
data "terraform_remote_state" "net" {
  backend = "s3"
  config = {
    bucket = var.bucket
    key    = "net.tfstate"
  }
}
`

// Each way a pull request could move where a root's state is, or which
// state it reads, is named in one line; the same files are not.
func TestGuard(t *testing.T) {
	base := map[string]string{
		"r/main.tf":     s3Backend + remote,
		"r/backend.hcl": "key = \"from-file\"\n",
	}
	for _, tc := range []struct {
		name          string
		head          map[string]string
		backendConfig []string
		want          []string // in the refusal; none: no refusal
	}{
		{name: "unchanged", head: base},
		{name: "another resource", head: map[string]string{"r/main.tf": s3Backend + remote + resource}},
		{name: "the backend block's bucket", head: map[string]string{"r/main.tf": strings.Replace(s3Backend, `"b"`, `"attacker"`, 1) + remote},
			want: []string{"r: the pull request changes where the root's state is (its bucket)"}},
		{name: "another backend type", head: map[string]string{"r/main.tf": "terraform {\n  backend \"http\" {\n    address = \"https://evil.example/state\"\n  }\n}\n" + remote},
			want: []string{`backend "http" instead of "s3"`}},
		{name: "the backend block removed", head: map[string]string{"r/main.tf": remote},
			want: []string{`backend "local" (no backend block) instead of "s3"`}},
		{name: "a backend block in a file of its own", head: map[string]string{"r/main.tf": remote, "r/backend.tf": "terraform {\n  backend \"local\" {}\n}\n"},
			want: []string{"changes where the root's state is"}},
		{name: "the -backend-config file the settings name", backendConfig: []string{"backend.hcl"},
			head: map[string]string{"r/main.tf": s3Backend + remote, "r/backend.hcl": "key = \"elsewhere\"\n"},
			want: []string{"(its key)"}},
		{name: "a -backend-config pair", backendConfig: []string{"backend.hcl", "key=pinned"},
			head: map[string]string{"r/main.tf": s3Backend + remote, "r/backend.hcl": "key = \"elsewhere\"\nbucket = \"attacker\"\n"},
			want: []string{"(its bucket)"}},
		{name: "the remote state's config", head: map[string]string{"r/main.tf": s3Backend + strings.Replace(remote, `"net.tfstate"`, `"other-team.tfstate"`, 1)},
			want: []string{"r: the pull request changes which state data.terraform_remote_state.net reads"}},
		{name: "the remote state's config through a variable", head: map[string]string{"r/main.tf": s3Backend + strings.Replace(remote, `"team-states"`, `"attacker-states"`, 1)},
			want: []string{"changes which state data.terraform_remote_state.net reads"}},
		{name: "a remote state added", head: map[string]string{"r/main.tf": s3Backend + remote + "data \"terraform_remote_state\" \"other\" {\n  backend = \"local\"\n  config = { path = \"../x.tfstate\" }\n}\n"},
			want: []string{"r: the pull request adds data.terraform_remote_state.other, which reads another state"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustLoad(t, base, tc.backendConfig...)
			head := tc.head
			if _, ok := head["r/backend.hcl"]; !ok {
				head = withFile(head, "r/backend.hcl", base["r/backend.hcl"])
			}
			h := mustLoad(t, head, tc.backendConfig...)
			var got []string
			if line := tfroots.BackendChange("r", b.Backend, h.Backend); line != "" {
				got = append(got, line)
			}
			got = append(got, tfroots.RemoteStateChanges("r", b.Config, h.Config)...)
			text := strings.Join(got, "\n")
			if len(tc.want) == 0 && text != "" {
				t.Fatalf("refused: %s", text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("refusal lacks %q:\n%s", w, text)
				}
			}
			if len(got) > 1 {
				t.Errorf("want one line, got %d:\n%s", len(got), text)
			}
		})
	}
}

func withFile(m map[string]string, name, text string) map[string]string {
	out := map[string]string{name: text}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// A -backend-config file outside the repository, or a module source
// leaving it, is refused, naming what.
func TestLoadRefusesPathsOutside(t *testing.T) {
	for _, tc := range []struct {
		name          string
		files         map[string]string
		backendConfig []string
		want          string
	}{
		{name: "backend-config up and out", files: map[string]string{"r/main.tf": s3Backend}, backendConfig: []string{"../../etc/backend.hcl"},
			want: "r: -backend-config ../../etc/backend.hcl is outside the repository"},
		{name: "backend-config absolute", files: map[string]string{"r/main.tf": s3Backend}, backendConfig: []string{"/etc/backend.hcl"},
			want: "r: -backend-config /etc/backend.hcl is outside the repository"},
		{name: "module source traversal", files: map[string]string{"r/main.tf": "module \"m\" {\n  source = \"../../../../etc\"\n}\n"},
			want: `r/main.tf:2:12: module "m": source "../../../../etc" leaves the repository`},
		{name: "module source traversal in a module", files: map[string]string{"r/main.tf": "module \"m\" {\n  source = \"../m\"\n}\n", "m/main.tf": "module \"up\" {\n  source = \"../..\"\n}\n"},
			want: `m/main.tf:2:12: module "up": source "../.." leaves the repository`},
		// Sources read from a local, a variable's default and a module's
		// argument, evaluated before the root is loaded: confined alike.
		{name: "module source traversal through a local", files: map[string]string{"r/main.tf": "locals {\n  up = \"../../..\"\n}\nmodule \"m\" {\n  source = \"${local.up}/etc\"\n}\n"},
			want: `r/main.tf:5:12: module "m": source "../../../etc" leaves the repository`},
		{name: "module source traversal through a tfvars file", files: map[string]string{"r/main.tf": "variable \"dir\" {\n  type = string\n}\nmodule \"m\" {\n  source = var.dir\n}\n", "r/terraform.tfvars": "dir = \"../../../../etc\"\n"},
			want: `r/main.tf:5:12: module "m": source "../../../../etc" leaves the repository`},
		{name: "module source traversal through a module argument", files: map[string]string{"r/main.tf": "module \"m\" {\n  source = \"../m\"\n  to     = \"../../..\"\n}\n", "m/main.tf": "variable \"to\" {}\nmodule \"up\" {\n  source = var.to\n}\n"},
			want: `m/main.tf:3:12: module "up": source "../../.." leaves the repository`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, tc.files, tc.backendConfig...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), t.TempDir()[:len(t.TempDir())-3]) {
				t.Errorf("the error names the temporary tree: %v", err)
			}
		})
	}
}

// A root loaded from two directories (two runs' trees) hashes the same:
// the saved plan of a pull request's run is compared, by hash, with the
// configuration its merge's run loads again.
func TestLoadHashesTheSameFromAnyDirectory(t *testing.T) {
	files := map[string]string{
		"r/main.tf": "module \"web\" {\n  source = \"../m\"\n  name   = \"app\"\n}\nresource \"terraform_data\" \"dns\" {\n  input = module.web.id\n}\n",
		"m/main.tf": "variable \"name\" {}\nresource \"terraform_data\" \"web\" {\n  input = \"${var.name}-v1\"\n}\noutput \"id\" {\n  value = terraform_data.web.id\n}\n",
	}
	a, b := mustLoad(t, files), mustLoad(t, files)
	if a.Dir == b.Dir {
		t.Fatal("loaded from one directory")
	}
	if a.Config.Hash() != b.Config.Hash() || a.Config.SecretsHash() != b.Config.SecretsHash() {
		t.Error("the same files hash differently from two directories")
	}
}
