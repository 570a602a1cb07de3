package tenancy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
)

const terraformPolicy = `
repositories:
  - match: ["acme/infra"]
    buckets:
      - name: acme-state
      - name: acme-legacy
        terraform-keys: infra/
      - name: acme-roled
        role: arn:aws:iam::123456789012:role/kyku-acme
    terraform-providers: [hashicorp/null]
  - match: ["acme/web"]
    buckets: [{ name: acme-state }]
    terraform-providers: [hashicorp/null]
    allow-endpoint: true
`

// TestConfineTerraform: a Terraform root's state stays where its
// backend block says, and the bot opens it only where the operator's
// policy lets the repository keep state: a granted bucket, a key under the repository's namespace (or the bucket's
// terraform-keys), no local state, no argument that picks credentials or
// an address unless allow-endpoint.
func TestConfineTerraform(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(terraformPolicy))
	if err != nil {
		t.Fatal(err)
	}
	infra := p.For("acme", "infra", 7)
	web := p.For("acme", "web", 8)
	s3 := func(args map[string]any) TerraformState {
		return TerraformState{Type: "s3", Args: args, Pos: diag.Pos{File: "envs/prod/backend.tf", Line: 2, Col: 3}}
	}
	tests := []struct {
		name string
		g    Grant
		ts   TerraformState
		env  string
		want string // "" accepted; otherwise a part of the refusal
	}{
		{"s3 key under the namespace", infra, s3(map[string]any{"bucket": "acme-state", "key": "repo.7/prod.tfstate", "region": "eu-west-1", "use_lockfile": true}), "", ""},
		{"s3 key under terraform-keys", infra, s3(map[string]any{"bucket": "acme-legacy", "key": "infra/prod/terraform.tfstate"}), "", ""},
		{"s3 workspace key under the namespace", infra, s3(map[string]any{"bucket": "acme-state", "key": "prod.tfstate", "workspace_key_prefix": "repo.7/ws"}), "staging", ""},
		{"gcs prefix under the namespace", infra, TerraformState{Type: "gcs", Args: map[string]any{"bucket": "acme-state", "prefix": "repo.7/prod"}}, "", ""},
		{"http with allow-endpoint", web, TerraformState{Type: "http", Args: map[string]any{"address": "https://state.example/web"}, SharedFiles: true}, "", ""},

		{"local backend", infra, TerraformState{Type: "local", Args: map[string]any{"path": "prod.tfstate"}}, "", "local state is refused in the bot"},
		{"no backend block", infra, TerraformState{}, "", "local state is refused in the bot"},
		{"bucket not granted", infra, s3(map[string]any{"bucket": "other-team", "key": "repo.7/x.tfstate"}), "", `envs/prod/backend.tf:2:3: bucket "other-team" is not granted to acme/infra`},
		{"another repository's key", infra, s3(map[string]any{"bucket": "acme-state", "key": "repo.8/prod.tfstate"}), "", `key "repo.8/prod.tfstate" in bucket "acme-state" is outside "repo.7/"`},
		{"a key that climbs", infra, s3(map[string]any{"bucket": "acme-state", "key": "repo.7/../repo.8/prod.tfstate"}), "", `is outside "repo.7/"`},
		{"key outside terraform-keys", infra, s3(map[string]any{"bucket": "acme-legacy", "key": "repo.7/prod.tfstate"}), "", `is outside "infra/"`},
		{"workspace key outside the namespace", infra, s3(map[string]any{"bucket": "acme-state", "key": "repo.7/prod.tfstate"}), "staging", `key "env:/staging/repo.7/prod.tfstate"`},
		{"gcs prefix of another repository", infra, TerraformState{Type: "gcs", Args: map[string]any{"bucket": "acme-state", "prefix": "repo.8"}}, "", `"repo.8/default.tfstate"`},
		{"gcs on a bucket granted with a role", infra, TerraformState{Type: "gcs", Args: map[string]any{"bucket": "acme-roled", "prefix": "repo.7/x"}}, "", "granted with an IAM role, which only an s3 backend can assume"},
		{"a role of the repository's choosing on a role bucket", infra, s3(map[string]any{"bucket": "acme-roled", "key": "repo.7/x.tfstate", "role_arn": "arn:aws:iam::1:role/admin"}), "", "argument role_arn is not one the bot lets a repository set"},
		{"assume_role on a role bucket", infra, s3(map[string]any{"bucket": "acme-roled", "key": "repo.7/x.tfstate", "assume_role": map[string]any{"role_arn": "arn:aws:iam::1:role/admin"}}), "", "argument assume_role is not one the bot lets a repository set"},
		{"a profile", infra, s3(map[string]any{"bucket": "acme-state", "key": "repo.7/x.tfstate", "profile": "operator"}), "", "argument profile is not one the bot lets a repository set"},
		{"static keys", infra, s3(map[string]any{"bucket": "acme-state", "key": "repo.7/x.tfstate", "access_key": "AKIA", "secret_key": "x"}), "", "argument access_key is not one the bot lets a repository set"},
		{"another repository's key on a role bucket", infra, s3(map[string]any{"bucket": "acme-roled", "key": "repo.8/x.tfstate"}), "", `key "repo.8/x.tfstate" in bucket "acme-roled" is outside "repo.7/"`},
		{"endpoint without allow-endpoint", infra, s3(map[string]any{"bucket": "acme-state", "key": "repo.7/x.tfstate", "endpoints": map[string]any{"s3": "http://169.254.169.254"}}), "", "argument endpoints is not allowed"},
		{"credentials in the block", web, s3(map[string]any{"bucket": "acme-state", "key": "repo.8/x.tfstate", "role_arn": "arn:aws:iam::1:role/x"}), "", "argument role_arn is not one the bot lets a repository set"},
		{"a DynamoDB table of the repository's choosing", web, s3(map[string]any{"bucket": "acme-state", "key": "repo.8/x.tfstate", "dynamodb_table": "operators-table"}), "", "argument dynamodb_table is not one the bot lets a repository set"},
		{"gcs storage_custom_endpoint, even with allow-endpoint (the bot's bearer token would go there)", web, TerraformState{Type: "gcs", Args: map[string]any{"bucket": "acme-state", "prefix": "repo.7/x", "storage_custom_endpoint": "http://169.254.169.254/storage/v1/b"}}, "", "argument storage_custom_endpoint is not one the bot lets a repository set"},
		{"a gcs access token in the block", infra, TerraformState{Type: "gcs", Args: map[string]any{"bucket": "acme-state", "prefix": "repo.7/x", "access_token": "ya29.x"}}, "", "argument access_token is not one the bot lets a repository set"},
		{"http without allow-endpoint", infra, TerraformState{Type: "http", Args: map[string]any{"address": "https://state.example/infra"}, SharedFiles: true}, "", "argument address is not allowed"},
		{"http address from the bot's environment", web, TerraformState{Type: "http", Args: map[string]any{}, SharedFiles: true}, "", "needs its address in the block"},
		{"http with Kyku's files on the bot's disk", web, TerraformState{Type: "http", Args: map[string]any{"address": "https://state.example/web"}, Pos: diag.Pos{File: "infra/main.tf", Line: 2, Col: 3}}, "",
			"infra/main.tf:2:3: a Terraform root's http backend keeps Kyku's saved plans and backups on the bot's disk, which no other replica or restart sees: the bot opens a root's state in s3 or gcs"},
		{"a type the bot does not open", infra, TerraformState{Type: "azurerm", Args: map[string]any{}}, "", `backend type "azurerm" is not one the bot opens`},
		{"a repository the policy does not match", p.For("evil", "infra", 9), s3(map[string]any{"bucket": "acme-state", "key": "repo.9/x.tfstate"}), "", "grants evil/infra nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ConfineTerraform(&config.Config{}, tt.ts, tt.env, tt.g)
			if err == nil && c.Role != "" {
				t.Errorf("role %q for a bucket granted without one", c.Role)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("error = %q; want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestConfineTerraformRole: an s3 state in a bucket the policy grants
// with a role is opened with that role, as a kyku.yaml backend's is: the
// role comes from the grant, never from the block.
func TestConfineTerraformRole(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(terraformPolicy))
	if err != nil {
		t.Fatal(err)
	}
	ts := TerraformState{Type: "s3", Args: map[string]any{"bucket": "acme-roled", "key": "repo.7/x.tfstate", "region": "eu-west-1", "use_lockfile": true}}
	c, err := ConfineTerraform(&config.Config{}, ts, "", p.For("acme", "infra", 7))
	if err != nil {
		t.Fatal(err)
	}
	if want := "arn:aws:iam::123456789012:role/kyku-acme"; c.Role != want {
		t.Errorf("role = %q, want %q", c.Role, want)
	}
}

// TestConfineTerraformProviders: a root's Terraform providers need the
// policy's grant; the built-in one (terraform_data) needs none.
func TestConfineTerraformProviders(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(terraformPolicy))
	if err != nil {
		t.Fatal(err)
	}
	ts := TerraformState{Type: "s3", Args: map[string]any{"bucket": "acme-state", "key": "repo.7/x.tfstate"}}
	cfg := &config.Config{Providers: []*config.PluginProvider{
		{Name: "terraform", Source: "terraform.io/builtin/terraform"},
		{Name: "null", Source: "hashicorp/null"},
		{Name: "aws", Source: "hashicorp/aws", SourcePos: diag.Pos{File: "main.tf", Line: 4, Col: 5}},
	}}
	_, err = ConfineTerraform(cfg, ts, "", p.For("acme", "infra", 7))
	var got []string
	for _, line := range strings.Split(errString(err), "\n") {
		got = append(got, strings.SplitN(line, ";", 2)[0])
	}
	want := []string{`main.tf:4:5: Terraform provider "aws" (source hashicorp/aws) is not allowed for acme/infra by the bot's policy`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestConfineTerraformRemoteStates: the state a terraform_remote_state
// reads (with the bot's credentials) is judged as the root's own.
func TestConfineTerraformRemoteStates(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(terraformPolicy))
	if err != nil {
		t.Fatal(err)
	}
	own := TerraformState{Type: "s3", Args: map[string]any{"bucket": "acme-state", "key": "repo.7/x.tfstate"}}
	remote := func(props map[string]any) *config.Config {
		return &config.Config{Resources: []*config.Resource{{Name: "net", Type: "terraform_remote_state", Data: true, Properties: props,
			Pos: diag.Pos{File: "main.tf", Line: 9, Col: 1}}}}
	}
	tests := []struct {
		name  string
		props map[string]any
		want  string
	}{
		{"its own namespace", map[string]any{"backend": "s3", "config": map[string]any{"bucket": "acme-state", "key": "repo.7/net.tfstate"}}, ""},
		{"another repository's state", map[string]any{"backend": "s3", "config": map[string]any{"bucket": "acme-state", "key": "repo.8/net.tfstate"}},
			`main.tf:9:1: the state's key "repo.8/net.tfstate" in bucket "acme-state" is outside "repo.7/"`},
		{"a bucket not granted", map[string]any{"backend": "gcs", "config": map[string]any{"bucket": "other-team", "prefix": "repo.7"}}, `bucket "other-team" is not granted`},
		{"a local state", map[string]any{"backend": "local", "config": map[string]any{"path": "/etc/passwd"}}, "reads a local state, which is refused in the bot"},
		{"a key known only later", map[string]any{"backend": "s3", "config": map[string]any{"bucket": "acme-state", "key": "repo.7/${data.x.id}"}}, "must be known from the files"},
		{"another workspace's key", map[string]any{"backend": "s3", "workspace": "prod", "config": map[string]any{"bucket": "acme-state", "key": "repo.7/net.tfstate"}}, `"env:/prod/repo.7/net.tfstate"`},
		{"a bucket granted with a role", map[string]any{"backend": "s3", "config": map[string]any{"bucket": "acme-roled", "key": "repo.7/net.tfstate"}},
			`main.tf:9:1: data.terraform_remote_state.net reads bucket "acme-roled", which the bot's policy grants with an IAM role`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ConfineTerraform(remote(tt.props), own, "", p.For("acme", "infra", 7))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !strings.Contains(errString(err), tt.want) {
				t.Errorf("error = %v; want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestConfineTerraformKeepsTheSimUnderTheNamespace: the base provider
// the opener builds for a root (the sim) keeps its cloud under the
// repository's namespace, never at the top of the bot's sim root.
func TestConfineTerraformKeepsTheSimUnderTheNamespace(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(terraformPolicy))
	if err != nil {
		t.Fatal(err)
	}
	ts := TerraformState{Type: "s3", Args: map[string]any{"bucket": "acme-state", "key": "repo.7/x.tfstate"}}
	c, err := ConfineTerraform(&config.Config{}, ts, "", p.For("acme", "infra", 7))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Config.Provider.Settings["dir"]; got != "repo.7/sim" {
		t.Errorf("sim dir = %q, want repo.7/sim", got)
	}
}
