package tenancy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfinstall"
)

// TestProviderGrants: a rule says what each of its Terraform providers
// gets in its sandbox; any spelling of a source finds its grant, and a
// provider without one gets nothing.
func TestProviderGrants(t *testing.T) {
	p, err := Parse("policy.yaml", []byte(`
repositories:
  - match: ["acme/*"]
    terraform-providers: [hashicorp/aws, registry.opentofu.org/hashicorp/http]
    provider-grants:
      - source: registry.opentofu.org/hashicorp/aws
        env: { AWS_ACCESS_KEY_ID: ACME_AWS_KEY, AWS_SECRET_ACCESS_KEY: ACME_AWS_SECRET }
        files: [/run/secrets/acme-aws]
        metadata: true
`))
	if err != nil {
		t.Fatal(err)
	}
	g := p.For("acme", "infra", 7)
	aws, _ := tfinstall.ParseSource("hashicorp/aws")
	want := ProviderGrant{Source: "registry.opentofu.org/hashicorp/aws", Env: map[string]string{"AWS_ACCESS_KEY_ID": "ACME_AWS_KEY", "AWS_SECRET_ACCESS_KEY": "ACME_AWS_SECRET"},
		Files: []string{"/run/secrets/acme-aws"}, Metadata: true}
	if diff := cmp.Diff(want, g.ProviderGrants.For(aws)); diff != "" {
		t.Errorf("hashicorp/aws's grant (-want +got):\n%s", diff)
	}
	if got := g.ProviderGrants.For(aws).EnvNames(); !cmp.Equal(got, []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}) {
		t.Errorf("EnvNames = %v", got)
	}
	http, _ := tfinstall.ParseSource("hashicorp/http")
	if diff := cmp.Diff(ProviderGrant{Source: "registry.opentofu.org/hashicorp/http"}, g.ProviderGrants.For(http)); diff != "" {
		t.Errorf("a provider without a grant gets something (-want +got):\n%s", diff)
	}
}

func TestProviderGrantErrors(t *testing.T) {
	rule := "repositories:\n  - match: [acme/*]\n    terraform-providers: [hashicorp/aws]\n    provider-grants:\n"
	for name, tc := range map[string]struct{ grants, want string }{
		"not listed":      {"      - { source: hashicorp/http }\n", "policy.yaml:5:19: repositories[0].provider-grants[0].source: hashicorp/http is not among the rule's terraform-providers"},
		"twice":           {"      - { source: hashicorp/aws }\n      - { source: registry.opentofu.org/hashicorp/aws }\n", "policy.yaml:6:19: repositories[0].provider-grants[1].source: registry.opentofu.org/hashicorp/aws is granted twice"},
		"bad source":      {"      - { source: \"a/b/c/d\" }\n", "policy.yaml:5:19: repositories[0].provider-grants[0].source: provider source \"a/b/c/d\""},
		"bad name":        {"      - { source: hashicorp/aws, env: { \"A-B\": X } }\n", `repositories[0].provider-grants[0].env.A-B: "A-B" is not a variable name`},
		"bad bot name":    {"      - { source: hashicorp/aws, env: { A: \"X Y\" } }\n", `repositories[0].provider-grants[0].env.A: "X Y" is not a variable name`},
		"reserved":        {"      - { source: hashicorp/aws, env: { https_proxy: X } }\n", "repositories[0].provider-grants[0].env.https_proxy: https_proxy is set by the sandbox itself"},
		"relative file":   {"      - { source: hashicorp/aws, files: [secrets/aws] }\n", `repositories[0].provider-grants[0].files[0]: "secrets/aws" is not a clean absolute path`},
		"climbing file":   {"      - { source: hashicorp/aws, files: [/run/../etc/shadow] }\n", `repositories[0].provider-grants[0].files[0]: "/run/../etc/shadow" is not a clean absolute path`},
		"unknown setting": {"      - { source: hashicorp/aws, network: host }\n", "policy.yaml:5:34: repositories[0].provider-grants[0].network: unknown key"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("policy.yaml", []byte(rule+tc.grants))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
