package tenancy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/golden"
)

const example = `
repositories:
  - match: ["acme/*", "acme-labs/infra"]
    buckets:
      - name: acme-kyku-state
        role: arn:aws:iam::123456789012:role/kyku-acme
      - name: acme-shared
    providers: [aws]
  - match: ["sandbox/*"]
    buckets: [{ name: sandbox-state }]
    providers: [aws, sim]
    allow-endpoint: true
    allow-profile: true
`

func TestParseAndFor(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		owner, repo string
		want        Grant
	}{
		{"Acme", "Infra", Grant{Repo: "Acme/Infra", ID: 7, Governed: true, Matched: true, Providers: []string{"aws"}, Buckets: []Bucket{
			{Name: "acme-kyku-state", Role: "arn:aws:iam::123456789012:role/kyku-acme"}, {Name: "acme-shared"}}}},
		{"acme-labs", "infra", Grant{Repo: "acme-labs/infra", ID: 7, Governed: true, Matched: true, Providers: []string{"aws"}, Buckets: []Bucket{
			{Name: "acme-kyku-state", Role: "arn:aws:iam::123456789012:role/kyku-acme"}, {Name: "acme-shared"}}}},
		{"sandbox", "x", Grant{Repo: "sandbox/x", ID: 7, Governed: true, Matched: true, Providers: []string{"aws", "sim"},
			Buckets: []Bucket{{Name: "sandbox-state"}}, AllowEndpoint: true, AllowProfile: true}},
		{"acme-labs", "other", Grant{Repo: "acme-labs/other", ID: 7, Governed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.owner+"/"+tt.repo, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, p.For(tt.owner, tt.repo, 7)); diff != "" {
				t.Errorf("grant (-want +got):\n%s", diff)
			}
		})
	}
	var none *Policy
	if g := none.For("a", "b", 7); g.Governed || g.AllowsProvider("aws") || g.AllowsProvider("hetzner") || g.AllowsProvider("sim") {
		t.Errorf("no policy: grant %+v allows a provider", g)
	}
}

// TestParseErrors: every mistake in a policy file is reported in the
// file's own terms (FILE:LINE:COL: key path: message), never with a Go
// type name; testdata/policy-errors.golden holds them all.
func TestParseErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/policy-errors/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("fixtures: %v (%d)", err, len(files))
	}
	var out strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		_, err = Parse(name, data)
		if err == nil {
			t.Errorf("%s: parsed without error", name)
			continue
		}
		msg := err.Error()
		for _, goName := range []string{"tenancy.", "[]string", "Rule", "!!", "unmarshal"} {
			if strings.Contains(msg, goName) {
				t.Errorf("%s: the error names %q, a Go or YAML internal:\n%s", name, goName, msg)
			}
		}
		for _, line := range strings.Split(msg, "\n") {
			if !strings.HasPrefix(line, name+":") {
				t.Errorf("%s: error line %q does not start with the file's name", name, line)
			}
		}
		fmt.Fprintf(&out, "== %s\n%s\n", name, msg)
	}
	golden.Check(t, "policy-errors.golden", out.String())
}

func parse(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestConfine: the namespace holds whatever the config says; what the
// grant does not allow is refused with the config's file and line.
func TestConfine(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	acme, sandbox := p.For("acme", "infra", 101), p.For("sandbox", "x", 202)
	var none *Policy
	open := none.For("Acme", "Infra", 101)
	s3 := func(extra string) string {
		return "provider: aws\nbackend:\n  type: s3\n  bucket: acme-kyku-state\n  region: eu-west-1\n" + extra + "resources: {}\n"
	}
	tests := []struct {
		name       string
		grant      Grant
		yaml       string
		wantPrefix string // s3 prefix, or local path
		wantSimDir string
		wantRole   string
		wantErr    []string
	}{
		{name: "prefix taken relative to the namespace", grant: acme, yaml: s3("  prefix: prod/network\n"),
			wantPrefix: "repo.101/prod/network", wantRole: "arn:aws:iam::123456789012:role/kyku-acme"},
		{name: "no prefix: the namespace", grant: acme, yaml: s3(""), wantPrefix: "repo.101", wantRole: "arn:aws:iam::123456789012:role/kyku-acme"},
		{name: "aws refused without a policy", grant: open, yaml: s3("  prefix: x\n"),
			wantErr: []string{"kyku.yaml:1:1: ", `provider "aws" is not allowed in the bot without an operator policy (KYKU_BOT_POLICY): it would act with the bot's own AWS credentials`, "providers: [aws]"}},
		{name: "hetzner refused without a policy", grant: open, yaml: "provider: hetzner\nbackend: { type: s3, bucket: b-state, region: eu-west-1 }\nresources: {}\n",
			wantErr: []string{"kyku.yaml:1:", `provider "hetzner" is not allowed in the bot without an operator policy (KYKU_BOT_POLICY): it would act with the bot's own HCLOUD_TOKEN`, "providers: [hetzner]"}},
		{name: "hetzner refused by the policy", grant: acme, yaml: "provider: hetzner\nbackend: { type: s3, bucket: acme-shared, region: eu-west-1 }\nresources: {}\n",
			wantErr: []string{`provider "hetzner" is not allowed for acme/infra by the bot's policy; the operator allows it with providers: [hetzner]`}},
		{name: "climbing out", grant: acme, yaml: s3("  prefix: ../other/repo\n"), wantErr: []string{"kyku.yaml:2:", `backend prefix: "../other/repo" climbs out`}},
		{name: "climbing out in the middle", grant: acme, yaml: s3("  prefix: a/../../b\n"), wantErr: []string{"climbs out"}},
		{name: "absolute", grant: acme, yaml: s3("  prefix: /acme/other\n"), wantErr: []string{`"/acme/other" is absolute`}},
		{name: "bucket not granted", grant: acme,
			yaml:    "provider: aws\nbackend: { type: s3, bucket: other-state, region: eu-west-1 }\nresources: {}\n",
			wantErr: []string{`bucket "other-state" is not granted to acme/infra`}},
		{name: "endpoint override refused", grant: acme, yaml: s3("  endpoint: http://169.254.169.254/\n"),
			wantErr: []string{"backend endpoint is not allowed for acme/infra by the bot's policy"}},
		{name: "endpoint override refused without a policy", grant: open, yaml: s3("  endpoint: http://10.0.0.1/\n"),
			wantErr: []string{"backend endpoint is not allowed in the bot without an operator policy"}},
		{name: "provider endpoint and profile refused", grant: acme,
			yaml:    "provider: { name: aws, endpoint: http://10.0.0.1, profile: admin }\nbackend: { type: s3, bucket: acme-kyku-state, region: eu-west-1 }\nresources: {}\n",
			wantErr: []string{"provider setting endpoint is not allowed", "provider setting profile is not allowed"}},
		{name: "sim refused without a policy", grant: open, yaml: "provider: sim\nresources: {}\n",
			wantErr: []string{`provider "sim" is not allowed in the bot without an operator policy`}},
		{name: "no provider means sim", grant: open, yaml: "resources: {}\n", wantErr: []string{`provider "sim" is not allowed`}},
		{name: "sim refused by the policy", grant: acme, yaml: "provider: sim\nresources: {}\n", wantErr: []string{`provider "sim" is not allowed for acme/infra`}},
		{name: "sim dir confined", grant: sandbox, yaml: "provider: { name: sim, dir: cloud }\nresources: {}\n",
			wantPrefix: "repo.202", wantSimDir: "repo.202/cloud"},
		{name: "sim dir default", grant: sandbox, yaml: "provider: sim\nresources: {}\n", wantPrefix: "repo.202", wantSimDir: "repo.202/sim"},
		{name: "sim dir escaping", grant: sandbox, yaml: "provider: { name: sim, dir: /etc }\nresources: {}\n", wantErr: []string{`provider setting dir: "/etc" is absolute`}},
		{name: "local path confined", grant: sandbox, yaml: "provider: sim\nbackend: { type: local, path: state }\nresources: {}\n",
			wantPrefix: "repo.202/state", wantSimDir: "repo.202/sim"},
		{name: "local path escaping", grant: sandbox, yaml: "provider: sim\nbackend: { type: local, path: ../../etc }\nresources: {}\n", wantErr: []string{"backend path"}},
		{name: "region naming another host", grant: acme,
			yaml:    "provider: { name: aws, region: \"evil.example.com#\" }\nbackend: { type: s3, bucket: acme-kyku-state, region: \"eu-west-1.evil\" }\nresources: {}\n",
			wantErr: []string{`provider setting region "evil.example.com#" is not an AWS region name`, `backend region "eu-west-1.evil"`}},
		{name: "gcs prefix confined", grant: acme,
			yaml:       "provider: aws\nbackend: { type: gcs, bucket: acme-shared, prefix: prod }\nresources: {}\n",
			wantPrefix: "repo.101/prod"},
		{name: "gcs climbing out", grant: acme,
			yaml:    "provider: aws\nbackend: { type: gcs, bucket: acme-shared, prefix: ../../other }\nresources: {}\n",
			wantErr: []string{"climbs out"}},
		{name: "gcs bucket not granted", grant: acme,
			yaml:    "provider: aws\nbackend: { type: gcs, bucket: someone-elses }\nresources: {}\n",
			wantErr: []string{`bucket "someone-elses" is not granted`}},
		{name: "gcs bucket granted with a role", grant: acme,
			yaml:    "provider: aws\nbackend: { type: gcs, bucket: acme-kyku-state }\nresources: {}\n",
			wantErr: []string{"only an s3 backend can assume"}},
		{name: "spaces prefix confined", grant: acme,
			yaml:       "provider: aws\nbackend: { type: spaces, bucket: acme-shared, region: fra1, prefix: p }\nresources: {}\n",
			wantPrefix: "repo.101/p"},
		{name: "spaces region naming another host", grant: acme,
			yaml:    "provider: aws\nbackend: { type: spaces, bucket: acme-shared, region: \"evil.example.com/x\" }\nresources: {}\n",
			wantErr: []string{"is not a Spaces region name"}},
		{name: "spaces without a lock", grant: acme,
			yaml:    "provider: aws\nbackend: { type: spaces, bucket: acme-shared, region: fra1, lock: false }\nresources: {}\n",
			wantErr: []string{"lock: false is not allowed in the bot"}},
		{name: "http is an endpoint override", grant: acme,
			yaml:    "provider: aws\nbackend: { type: http, address: \"http://10.0.0.1/state\" }\nresources: {}\n",
			wantErr: []string{"backend type http is not allowed for acme/infra", "allow-endpoint"}},
		{name: "http refused without a policy", grant: open,
			yaml:    "provider: aws\nbackend: { type: http, address: \"http://10.0.0.1/state\" }\nresources: {}\n",
			wantErr: []string{"backend type http is not allowed in the bot without an operator policy"}},
		{name: "unmatched repository", grant: p.For("mallory", "x", 303), yaml: s3(""), wantErr: []string{"grants mallory/x nothing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := parse(t, tt.yaml)
			before := cfg.Hash()
			got, err := Confine(cfg, tt.grant)
			if cfg.Hash() != before {
				t.Error("Confine changed its input")
			}
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("confined %+v, want an error", got.Config.Backend)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err = %v, want %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := got.Config.Backend
			where := b.Prefix
			if b.Type == "local" {
				where = b.Path
			}
			if where != tt.wantPrefix || got.Role != tt.wantRole || got.Config.Provider.Settings["dir"] != tt.wantSimDir {
				t.Errorf("confined to %q (role %q, sim dir %q), want %q (role %q, sim dir %q)",
					where, got.Role, got.Config.Provider.Settings["dir"], tt.wantPrefix, tt.wantRole, tt.wantSimDir)
			}
		})
	}
}

// The confined copy keeps the config's encryption: dropping it would make
// the bot write a repository's state in clear.
func TestConfineKeepsEncryption(t *testing.T) {
	cfg := parse(t, "provider: aws\nbackend: { type: s3, bucket: acme-shared, region: eu-west-1 }\nencryption: { key: passphrase }\nresources: {}\n")
	p, err := Parse("policy.yaml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Confine(cfg, p.For("acme", "infra", 404))
	if err != nil {
		t.Fatal(err)
	}
	if got.Config.Encryption == nil || got.Config.Encryption.Key != "passphrase" {
		t.Errorf("confined encryption = %+v, want the config's passphrase encryption", got.Config.Encryption)
	}
}

// TestConfineImportsAndKMS: an import, and an aws-kms key, act with the
// repository's role or not at all. Without a role (or a policy) the bot
// would use its own credentials: an import could adopt another tenant's
// object (and a later apply destroy it), a KMS key be used with rights
// that reach every tenant's. Each refusal names the file and line, and the
// policy key that would allow it.
func TestConfineImportsAndKMS(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(example+`  - match: ["hetz/*"]
    buckets: [{ name: hetz-state }]
    providers: [hetzner]
  - match: ["hetz-trusted/*"]
    buckets: [{ name: hetz-state }]
    providers: [hetzner]
    allow-import: true
`))
	if err != nil {
		t.Fatal(err)
	}
	imp := "import:\n  - { to: db, id: \"i-0another-tenants\" }\n"
	res := "resources:\n  db: { type: Vm, properties: { image: debian-12 } }\n"
	for _, tc := range []struct {
		name    string
		grant   Grant
		yaml    string
		wantErr []string // nil: allowed
	}{
		{"aws import with the bucket's role", p.For("acme", "infra", 404),
			"provider: aws\nbackend: { type: s3, bucket: acme-kyku-state, region: eu-west-1 }\n" + imp + res, nil},
		{"aws import on a bucket without a role", p.For("acme", "infra", 404),
			"provider: aws\nbackend: { type: s3, bucket: acme-shared, region: eu-west-1 }\n" + imp + res,
			[]string{"kyku.yaml:4:5: import of db (id i-0another-tenants) is not allowed for acme/infra by the bot's policy: it would adopt whatever object the bot's own AWS credentials (its bucket has no role) reach",
				"repositories[].buckets[].role", "allow-import: true"}},
		{"hetzner import", p.For("hetz", "app", 404),
			"provider: hetzner\nbackend: { type: s3, bucket: hetz-state, region: eu-west-1 }\n" + imp + res,
			[]string{"kyku.yaml:4:5: import of db", "the bot's own HCLOUD_TOKEN", "allow-import: true"}},
		{"hetzner import with allow-import", p.For("hetz-trusted", "app", 404),
			"provider: hetzner\nbackend: { type: s3, bucket: hetz-state, region: eu-west-1 }\n" + imp + res, nil},
		{"sim import (its cloud is the repository's)", p.For("sandbox", "x", 404), "provider: sim\n" + imp + res, nil},
		{"aws-kms with the bucket's role", p.For("acme", "infra", 404),
			"provider: aws\nbackend: { type: s3, bucket: acme-kyku-state, region: eu-west-1 }\nencryption: { key: aws-kms, keyId: alias/acme }\n" + res, nil},
		{"aws-kms without a role", p.For("acme", "infra", 404),
			"provider: aws\nbackend: { type: s3, bucket: acme-shared, region: eu-west-1 }\nencryption: { key: aws-kms, keyId: alias/acme }\n" + res,
			[]string{"kyku.yaml:3:1: encryption key aws-kms needs the repository's role", "repositories[].buckets[].role"}},
		{"aws-kms as the fallback, without a role", p.For("hetz", "app", 404),
			"provider: hetzner\nbackend: { type: s3, bucket: hetz-state, region: eu-west-1 }\nencryption:\n  key: passphrase\n  fallback: { key: aws-kms, keyId: alias/old }\n" + res,
			[]string{"kyku.yaml:5:3: encryption key aws-kms needs the repository's role"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Confine(parse(t, tc.yaml), tc.grant)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("allowed, want a refusal")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant %q", err, w)
				}
			}
		})
	}
}

// TestNamespaceIsKeyedByTheRepositorysID: a repository renamed keeps its
// namespace; another registered under its old name gets its own; the name
// is kept for display and names the location of what the repository had
// while namespaces were keyed by it. Without an ID nothing is confined.
func TestNamespaceIsKeyedByTheRepositorysID(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	yaml := "provider: aws\nbackend: { type: s3, bucket: acme-kyku-state, region: eu-west-1, prefix: prod }\nresources: {}\n"
	confine := func(g Grant) *Confined {
		t.Helper()
		c, err := Confine(parse(t, yaml), g)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	infra := confine(p.For("Acme", "Infra", 4711))
	renamed := confine(p.For("acme", "infra-renamed", 4711))
	reregistered := confine(p.For("acme", "infra", 9000))
	if got := infra.Config.Backend.Prefix; got != "repo.4711/prod" || infra.Legacy != "acme/infra/prod" {
		t.Errorf("prefix %q, legacy %q; want repo.4711/prod and acme/infra/prod", got, infra.Legacy)
	}
	if renamed.Config.Backend.Prefix != infra.Config.Backend.Prefix {
		t.Errorf("renamed: prefix %q, want the same as before the rename (%q)", renamed.Config.Backend.Prefix, infra.Config.Backend.Prefix)
	}
	if reregistered.Config.Backend.Prefix == infra.Config.Backend.Prefix {
		t.Errorf("a repository registered again under the name shares the old one's prefix %q", infra.Config.Backend.Prefix)
	}
	if _, err := Confine(parse(t, yaml), p.For("acme", "infra", 0)); err == nil || !strings.Contains(err.Error(), "has no numeric ID") {
		t.Errorf("no ID: %v, want a refusal", err)
	}
}

// TestTerraformProvidersNeedAGrant: a repository may declare a Terraform
// provider only when the operator's policy lists its source (in any
// spelling of the same address); without a policy, none.
func TestTerraformProvidersNeedAGrant(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(example+`  - match: ["tf/*"]
    buckets: [{ name: tf-state }]
    providers: [aws]
    terraform-providers: [hashicorp/null, registry.opentofu.org/hashicorp/random]
`))
	if err != nil {
		t.Fatal(err)
	}
	tf, acme := p.For("tf", "x", 303), p.For("acme", "infra", 101)
	var none *Policy
	cfgOf := func(t *testing.T, providers string) *config.Config {
		t.Helper()
		cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte("provider: aws\nbackend: { type: s3, bucket: tf-state, region: eu-west-1 }\nproviders:\n" + providers + "resources: {}\n")}})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	granted := cfgOf(t, "  null: { source: registry.opentofu.org/hashicorp/null }\n  random: { source: hashicorp/random }\n")
	if _, err := Confine(granted, tf); err != nil {
		t.Errorf("granted sources refused: %v", err)
	}
	evil := cfgOf(t, "  null: { source: hashicorp/null }\n  evil: { source: attacker/evil }\n")
	_, err = Confine(evil, tf)
	if err == nil || !strings.Contains(err.Error(), `kyku.yaml:5:`) || !strings.Contains(err.Error(), `Terraform provider "evil" (source attacker/evil) is not allowed for tf/x by the bot's policy`) {
		t.Errorf("an ungranted source: %v", err)
	}
	if _, err := Confine(granted, acme); err == nil {
		t.Error("a repository whose rule lists no Terraform provider may declare one")
	}
	open := none.For("tf", "x", 303)
	if open.AllowsSource("hashicorp/null") {
		t.Error("without a policy a Terraform provider is allowed")
	}
	if _, err := Parse("policy.yaml", []byte("repositories:\n  - match: [\"a/*\"]\n    terraform-providers: [\"not a source\"]\n")); err == nil || !strings.Contains(err.Error(), "terraform-providers") {
		t.Errorf("a bad source in the policy: %v", err)
	}
}
