package tfconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	kykurender "github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/tfconfig"
)

// networkState is a state as OpenTofu 1.12 records it: root outputs, one
// of them sensitive.
const networkState = `{
  "version": 4, "terraform_version": "1.12.6", "serial": 7,
  "lineage": "6b0f1c9e-7a1e-4c55-9d0e-2f6c3c1d8a10",
  "outputs": {
    "vpc_id": {"value": "vpc-0a1b2c", "type": "string"},
    "zones": {"value": {"a": "10.0.1.0/24", "b": "10.0.2.0/24"}, "type": ["map", "string"]},
    "db_password": {"value": "from-another-root", "type": "string", "sensitive": true}
  },
  "resources": [], "check_results": null
}`

const remoteStateConfig = `
data "terraform_remote_state" "network" {
  backend = "local"
  config = {
    path = "${path.module}/PATH"
  }
  defaults = {
    region = "eu-central"
    vpc_id = "overridden"
  }
}

resource "terraform_data" "server" {
  input = {
    vpc    = data.terraform_remote_state.network.outputs.vpc_id
    zones  = data.terraform_remote_state.network.outputs.zones
    region = data.terraform_remote_state.network.outputs.region
  }
}

output "vpc" {
  value     = data.terraform_remote_state.network.outputs.vpc_id
  sensitive = true
}
`

// TestRemoteStateThroughTheEngine: a plan reads the recorded state at
// plan (the config is known): the state's outputs over defaults, sensitive values masked in the plan;
// the state read is left as it was (no lock, no write).
func TestRemoteStateThroughTheEngine(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"main.tf": strings.ReplaceAll(remoteStateConfig, "PATH", "network.tfstate"), "network.tfstate": networkState})
	before := dirListing(t, w.dir)
	cfg := w.mustLoad(tfconfig.Inputs{})
	p := w.plan(cfg)
	if diff := cmp.Diff([]string{"terraform_data.server create"}, actions(p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	c := change(p, "terraform_data.server")
	var input *plan.PropChange
	for i := range c.Properties {
		if c.Properties[i].Path == "input" {
			input = &c.Properties[i]
		}
	}
	if input == nil {
		t.Fatalf("no input planned: %+v", c.Properties)
	}
	if !input.Sensitive {
		t.Errorf("input reads a state holding a sensitive output but is not masked: %+v", input)
	}
	want := map[string]any{"vpc": "vpc-0a1b2c", "zones": map[string]any{"a": "10.0.1.0/24", "b": "10.0.2.0/24"}, "region": "eu-central"}
	if diff := cmp.Diff(want, input.New); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, dirListing(t, w.dir)); diff != "" {
		t.Errorf("reading the state changed the directory (-before +after):\n%s", diff)
	}
}

// dirListing is every file under dir with its content.
func dirListing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRemoteStateSecretsMasked: the other state's sensitive output, read
// into a resource's input, appears in clear text in none of plan text,
// plan --json and the PR comment.
func TestRemoteStateSecretsMasked(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"network.tfstate": networkState, "main.tf": `
data "terraform_remote_state" "network" {
  backend = "local"
  config  = { path = "network.tfstate" }
}
resource "terraform_data" "db" {
  input = data.terraform_remote_state.network.outputs.db_password
}
`})
	p := w.plan(w.mustLoad(tfconfig.Inputs{}))
	var text, js strings.Builder
	if err := kykurender.PlanText(&text, p, kykurender.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kykurender.PlanJSON(&js, p, kykurender.JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"plan text": text.String(), "plan --json": js.String(), "PR comment": kykurender.PlanComment(p, kykurender.Meta{}, 60000)} {
		if strings.Contains(out, "from-another-root") {
			t.Errorf("%s shows the remote state's sensitive output:\n%s", name, out)
		}
	}
}

// TestRemoteStateRefused: a pull request changes the configuration, so
// terraform_remote_state's arguments are untrusted: a local path out of
// the repository (relative, absolute, through a link) and credentials in
// its config are refused at the data source, naming it; nothing is read.
func TestRemoteStateRefused(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.tfstate")
	if err := os.WriteFile(secret, []byte(networkState), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, config, link, want string
	}{
		{"relative path out of the repository", `{ path = "../../OUTSIDE/secret.tfstate" }`, "", `path "../../OUTSIDE/secret.tfstate" is outside the configuration's repository`},
		{"absolute path", `{ path = "SECRET" }`, "", `path "SECRET" is outside the configuration's repository`},
		{"a link out of the repository", `{ path = "link/secret.tfstate" }`, "link", `path "link/secret.tfstate" is outside the configuration's repository`},
		{"workspace_dir out of the repository", `{ workspace_dir = "OUTSIDE" }`, "", `workspace_dir "OUTSIDE" is outside the configuration's repository`},
		{"s3 access key", `{ bucket = "b", key = "k", access_key = "AKIA", secret_key = "s" }`, "", "access_key: credentials are not read from a backend's configuration"},
		{"s3 role", `{ bucket = "b", key = "k", role_arn = "arn:aws:iam::1:role/x" }`, "", "role_arn: assuming a role is not supported"},
		{"s3 profile", `{ bucket = "b", key = "k", profile = "prod" }`, "", "profile: kyku uses the AWS SDK's default credential chain"},
		{"gcs credentials", `{ bucket = "b", credentials = "key.json" }`, "", "credentials: credentials are not read from a backend's configuration"},
		{"gcs endpoint without its own token", `{ bucket = "b", storage_custom_endpoint = "https://psc.example/storage/v1/b" }`, "", "storage_custom_endpoint: a terraform_remote_state config names an endpoint only with its own access_token"},
		{"http password", `{ address = "http://127.0.0.1:1/s", password = "p" }`, "", "password: a password in the configuration is in the repository's history"},
		{"an argument kyku does not read", `{ bucket = "b", key = "k", token = "t" }`, "", "token: not an argument kyku reads for this backend"},
	}
	backendOf := func(config string) string {
		switch {
		case strings.Contains(config, "address"):
			return "http"
		case strings.Contains(config, "credentials"), strings.Contains(config, "storage_custom_endpoint"):
			return "gcs"
		case strings.Contains(config, "bucket"):
			return "s3"
		}
		return "local"
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tfplugintestSDK)
			if err := os.WriteFile(filepath.Join(w.dir, ".git"), nil, 0o600); err != nil { // the repository is w.dir
				t.Fatal(err)
			}
			rel, err := filepath.Rel(w.dir, outside)
			if err != nil {
				t.Fatal(err)
			}
			config := strings.NewReplacer("../../OUTSIDE", rel, "OUTSIDE", outside, "SECRET", secret).Replace(tc.config)
			want := strings.NewReplacer("../../OUTSIDE", rel, "OUTSIDE", outside, "SECRET", secret).Replace(tc.want)
			w.write(map[string]string{"main.tf": `
data "terraform_remote_state" "x" {
  backend = "` + backendOf(tc.config) + `"
  config  = ` + config + `
}
output "o" {
  value     = data.terraform_remote_state.x.outputs
  sensitive = true
}
`, ".git": ""})
			if tc.link != "" {
				if err := os.Symlink(outside, filepath.Join(w.dir, tc.link)); err != nil {
					t.Fatal(err)
				}
			}
			cfg := w.mustLoad(tfconfig.Inputs{})
			_, err = w.engine(cfg).Plan(t.Context(), cfg)
			if err == nil {
				t.Fatal("plan read the state; want a refusal")
			}
			msg := err.Error()
			if !strings.Contains(msg, want) || !strings.Contains(msg, "main.tf:2") || !strings.Contains(msg, "terraform_remote_state") {
				t.Errorf("error = %v\nwant it at main.tf:2 naming the data source and saying %q", err, want)
			}
			if strings.Contains(msg, "from-another-root") {
				t.Errorf("the refused state's secret is in the error: %v", err)
			}
		})
	}
}

// TestRemoteStateDeferred: a config known only after apply defers the
// read to apply, as any data source's: the plan reads it then, its
// outputs unknown (and masked).
func TestRemoteStateDeferred(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"network.tfstate": networkState, "main.tf": `
resource "terraform_data" "name" {
  input = "network.tfstate"
}
data "terraform_remote_state" "network" {
  backend = "local"
  config  = { path = terraform_data.name.output }
}
output "vpc" {
  value     = data.terraform_remote_state.network.outputs.vpc_id
  sensitive = true
}
`})
	cfg := w.mustLoad(tfconfig.Inputs{})
	p := w.plan(cfg)
	if diff := cmp.Diff([]string{"terraform_data.name create", "data.terraform_remote_state.network read"}, actions(p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	res := w.apply(cfg)
	if diff := cmp.Diff(map[string]any{"vpc": "vpc-0a1b2c"}, res.Outputs); diff != "" {
		t.Errorf("outputs after apply (-want +got):\n%s", diff)
	}
}
