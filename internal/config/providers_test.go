package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/diag"
)

// TestProvidersSection: a provider's resources and data sources sit beside
// Kyku's own types; their properties are any YAML, every list element and
// field positioned; the provider's config takes variables.
func TestProvidersSection(t *testing.T) {
	cfg, err := ParseEnv([]File{{Name: "kyku.yaml", Data: []byte(`variables:
  token: { type: string, sensitive: true }
providers:
  null: { source: hashicorp/null, version: "3.3.1" }
  aws:  { source: hashicorp/aws, version: "~> 6.0", config: { region: eu-west-1, token: "${var.token}" } }
resources:
  zone:
    type: aws_route53_zone
    properties: { name: example.com }
  www:
    type: aws_route53_record
    properties:
      zone_id: "${zone.zone_id}"
      ttl: 300
      records: [ "${web.publicIp}" ]
      alias:
        - { name: x, evaluate: true }
  web: { type: Vm, properties: { image: ubuntu } }
  wait: { type: null_resource, properties: { triggers: { ip: "${web.publicIp}" } }, ignoreChanges: [triggers] }
data:
  ami: { type: aws_ami, properties: { owners: [self] } }
`)}}, Inputs{Vars: map[string]string{"token": "s3cr3t"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Providers) != 2 || cfg.Providers[0].Name != "aws" || cfg.Providers[1].Source != "hashicorp/null" || cfg.Providers[1].Version != "3.3.1" {
		t.Fatalf("providers: %+v", cfg.Providers)
	}
	aws := cfg.Providers[0]
	if d := cmp.Diff(map[string]any{"region": "eu-west-1", "token": "s3cr3t"}, aws.Config); d != "" {
		t.Errorf("aws config (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"token"}, aws.Sensitive); d != "" {
		t.Errorf("aws config's sensitive keys (-want +got):\n%s", d)
	}
	www := cfg.Resource("www")
	if www.Provider != "aws" || www.Data {
		t.Errorf("www: provider %q data %v", www.Provider, www.Data)
	}
	want := map[string]any{"zone_id": "${zone.zone_id}", "ttl": 300.0, "records": []any{"${web.publicIp}"}, "alias": []any{map[string]any{"name": "x", "evaluate": true}}}
	if d := cmp.Diff(want, www.Properties, textForm); d != "" {
		t.Errorf("www properties (-want +got):\n%s", d)
	}
	for path, at := range map[string]diag.Pos{"ttl": {Line: 14, Col: 7}, "records[0]": {Line: 15, Col: 18}, "alias[0]": {Line: 17, Col: 11}, "alias[0].evaluate": {Line: 17, Col: 22}} {
		if got, _ := www.PropPos.Get(path); got.Line != at.Line || got.Col != at.Col {
			t.Errorf("position of %s: %d:%d, want %d:%d", path, got.Line, got.Col, at.Line, at.Col)
		}
	}
	if w := cfg.Resource("wait"); w.Provider != "null" || !cmp.Equal(w.IgnoreChanges, []string{"triggers"}) {
		t.Errorf("wait: %+v", w)
	}
	if web := cfg.Resource("web"); web.Provider != "" {
		t.Errorf("a Kyku type has provider %q", web.Provider)
	}
	ami := cfg.Resource("ami")
	if ami == nil || !ami.Data || ami.Provider != "aws" {
		t.Fatalf("data source: %+v", ami)
	}
	if g := BuildGraph(cfg); !cmp.Equal(g.Deps("www"), []string{"web", "zone"}) {
		t.Errorf("www depends on %v, want web and zone", g.Deps("www"))
	}
	if cfg.ProviderOf("aws_instance") != "aws" || cfg.ProviderOf("gcp_x") != "" || cfg.ProviderOf("Vm") != "" {
		t.Error("ProviderOf")
	}
}
