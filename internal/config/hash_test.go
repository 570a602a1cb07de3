package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hashByReflection is the definition Hash implements without reflection.
func hashByReflection(c *Config) string {
	secrets := c.SecretValues()
	user := make([]*Resource, 0, len(c.Resources))
	for _, r := range c.Resources {
		if r.AutoFrom == "" {
			h := *r
			h.Properties = hide(r.Properties, r.SensitiveProp)
			user = append(user, &h)
		}
	}
	outputs := c.Outputs
	if outputs != nil {
		outputs = make([]*Output, len(c.Outputs))
		for i, o := range c.Outputs {
			h := *o
			if o.Sensitive {
				h.Value = masked
			}
			outputs[i] = &h
		}
	}
	providers := make([]*PluginProvider, len(c.Providers))
	for i, pp := range c.Providers {
		h := *pp
		h.Config = hide(pp.Config, func(k string) bool { return slices.Contains(pp.Sensitive, k) })
		providers[i] = &h
	}
	if len(providers) == 0 {
		providers = nil
	}
	prov := c.Provider
	prov.Settings = maps.Clone(c.Provider.Settings)
	for k, v := range prov.Settings {
		if holdsSecret(v, secrets) {
			prov.Settings[k] = masked
		}
	}
	b, err := json.Marshal(struct {
		Provider  ProviderConfig    `json:"provider"`
		Resources []*Resource       `json:"resources"`
		Outputs   []*Output         `json:"outputs"`
		Moved     []*Moved          `json:"moved,omitempty"`
		Imports   []*Import         `json:"imports,omitempty"`
		Providers []*PluginProvider `json:"providers,omitempty"`
	}{prov, user, outputs, c.Moved, c.Imports, providers})
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestHashMatchesJSONMarshal(t *testing.T) {
	cfgs := []*Config{
		mustLoad(t, "testdata/quickstart.yaml"),
		mustParse(t, "resources:\n  a:\n    type: SshKey\n    properties: { publicKey: \"k<&>\" }\n    protect: true\n"),
		mustParse(t, "provider: { name: aws, region: eu-central-1, profile: x }\nresources: {}\n"),
		mustParse(t, "providers:\n  null: { source: hashicorp/null, version: \"3.3.1\", config: { a: [1, \"x\"] } }\n  fw: { source: h/ns/fw }\n"+
			"resources:\n  n: { type: null_resource, properties: { triggers: { a: \"${v.id}\" } } }\n  v: { type: SshKey, properties: { publicKey: k } }\n"+
			"data:\n  d: { type: fw_item, properties: { name: x } }\n"),
		{Provider: ProviderConfig{Name: "sim"}},
		{Provider: ProviderConfig{Name: "sim"}, Outputs: []*Output{{Name: "o", Value: []any{1.0, "${a.id}"}}},
			Resources: []*Resource{{Name: "r", Type: "Vm", IgnoreChanges: []string{"size"}, DependsOn: []string{"a", "b"}},
				{Name: "s", Type: "Subnet", AutoFrom: "v", Properties: map[string]any{}}}},
		{Provider: ProviderConfig{Name: "sim"}, Outputs: []*Output{{Name: "o", Value: "x", Sensitive: true, Description: "<the \"secret\">"}},
			Resources: []*Resource{{Name: `web["a"]`, Type: "Vm", Sensitive: []string{"tags", "userData"}, CreateBeforeDestroy: true}},
			Moved:     []*Moved{{From: "app", To: "web[0]"}}, Imports: []*Import{{To: `edge["b"]`, ID: "123"}}},
	}
	// Large enough to be hashed in many chunks.
	var big strings.Builder
	big.WriteString("resources:\n")
	for i := range 2000 {
		fmt.Fprintf(&big, "  key-%d:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 AAAA key-%d\" }\n", i, i)
	}
	cfgs = append(cfgs, mustParse(t, big.String()))
	if err := InjectAutoSubnets(cfgs[0], []string{"z1", "z2"}); err != nil {
		t.Fatal(err)
	}
	for i, c := range cfgs {
		if got, want := c.Hash(), hashByReflection(c); got != want {
			t.Errorf("config %d: Hash %s, json.Marshal gives %s", i, got, want)
		}
	}
}

// No secret is in the hash, which is published (plan.json, the changes
// digest of a PR comment): configurations that differ only in a secret
// hash the same (VariablesHash, kept private, tells them apart), and any
// other difference changes the hash.
func TestHashHoldsNoSecret(t *testing.T) {
	const yaml = `provider: { name: sim, token: "tok-${var.pw}" }
variables:
  pw: { type: string, sensitive: true }
providers:
  fw: { source: h/ns/fw, config: { password: "${var.pw}", region: r1 } }
resources:
  web: { type: Vm, properties: { image: debian-12, tags: { pass: "${var.pw}" } } }
  db: { type: Database, properties: { engine: postgres, size: SIZE } }
outputs:
  pass: { value: "${var.pw}", sensitive: true }
`
	parse := func(pw, size string) *Config {
		t.Helper()
		c, err := ParseEnv([]File{{Name: "kyku.yaml", Data: []byte(strings.Replace(yaml, "SIZE", size, 1))}}, Inputs{Vars: map[string]string{"pw": pw}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := parse("hunter2-one", "small"), parse("hunter2-two", "small")
	if a.Hash() != b.Hash() {
		t.Errorf("the hash depends on a secret's value: a guess of it could be tested against plan.json")
	}
	if a.VariablesHash() == b.VariablesHash() {
		t.Errorf("VariablesHash does not tell the secrets apart")
	}
	if a.Hash() == parse("hunter2-one", "large").Hash() {
		t.Errorf("the hash does not change with a property that is no secret")
	}
	if got, want := a.Hash(), hashByReflection(a); got != want {
		t.Errorf("Hash %s, json.Marshal gives %s", got, want)
	}
}

// The hand-written encoding knows every JSON field of the hashed types:
// a new field must be added to hash.go (and here).
func TestHashCoversEveryField(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeOf(Resource{}):       {"name", "type", "properties", "protect", "createBeforeDestroy", "skipDestroy", "ignoreChanges", "dependsOn", "autoFrom", "provider", "data", "checkNested", "dynamicTypes", "sensitive", "sensitiveWithin", "replaceTriggeredBy", "conditions"},
		reflect.TypeOf(PluginProvider{}): {"name", "source", "version", "config", "sensitive"},
		reflect.TypeOf(Output{}):         {"name", "value", "sensitive", "description", "conditions"},
		reflect.TypeOf(Moved{}):          {"from", "to"},
		reflect.TypeOf(Import{}):         {"to", "id"},
		reflect.TypeOf(ProviderConfig{}): {"name", "settings"},
	}
	for typ, want := range known {
		var got []string
		for i := 0; i < typ.NumField(); i++ {
			tag := typ.Field(i).Tag.Get("json")
			if tag == "-" || !typ.Field(i).IsExported() {
				continue
			}
			name := tag
			for j := 0; j < len(tag); j++ {
				if tag[j] == ',' {
					name = tag[:j]
					break
				}
			}
			got = append(got, name)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s's JSON fields changed: update hash.go (-known +now):\n%s", typ.Name(), diff)
		}
	}
}

// TestVariablesHash: the variables' hash follows their values, not where
// the values came from or the order they were given in.
func TestVariablesHash(t *testing.T) {
	src := []byte("variables:\n  size: { type: string, default: small }\n  n: { type: number, default: 1 }\nresources:\n  web:\n    type: Vm\n    properties: { image: debian-12, size: \"${var.size}\" }\n")
	load := func(vars map[string]string) string {
		t.Helper()
		c, err := ParseEnv([]File{{Name: "kyku.yaml", Data: src}}, Inputs{Vars: vars})
		if err != nil {
			t.Fatal(err)
		}
		return c.VariablesHash()
	}
	base := load(nil)
	if base == "" || load(map[string]string{"size": "small"}) != base || load(map[string]string{"n": "1", "size": "small"}) != base {
		t.Errorf("the same values hash differently")
	}
	if load(map[string]string{"size": "large"}) == base || load(map[string]string{"n": "2"}) == base {
		t.Errorf("other values hash the same")
	}
	none, err := Parse([]File{{Name: "kyku.yaml", Data: []byte("resources: {}\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if h := none.VariablesHash(); h != "" {
		t.Errorf("no variables hash to %q, want empty", h)
	}
}

// BenchmarkHash5k is what a plan of 5,000 resources spends on its two
// hashes (the published one and the one with the secrets in).
func BenchmarkHash5k(b *testing.B) {
	cfg, err := Parse([]File{{Name: "big.yaml", Data: bigConfig(5000)}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = cfg.Hashes()
	}
}

// TestHashesAreHashAndSecretsHash: Hashes gives Hash and SecretsHash,
// taking one pass for both only when no secret was masked, whichever
// part of the configuration holds the secret.
func TestHashesAreHashAndSecretsHash(t *testing.T) {
	const vars = "variables:\n  pw: { type: string, sensitive: true }\n"
	tests := []struct {
		name, yaml string
		secret     bool
	}{
		{"no secret", vars + "resources:\n  web: { type: Vm, properties: { image: debian-12 } }\n", false},
		{"a provider setting", vars + "provider: { name: sim, token: tok-hunter2-one }\nresources: {}\n", true},
		{"a Terraform provider's configuration", vars + "providers:\n  fw: { source: h/ns/fw, config: { password: \"${var.pw}\" } }\nresources: {}\n", true},
		{"a property", vars + "resources:\n  web: { type: Vm, properties: { image: debian-12, tags: { pass: \"${var.pw}\" } } }\n", true},
		{"an output", vars + "resources: {}\noutputs:\n  pass: { value: hunter2, sensitive: true }\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseEnv([]File{{Name: "kyku.yaml", Data: []byte(tt.yaml)}}, Inputs{Vars: map[string]string{"pw": "hunter2-one"}})
			if err != nil {
				t.Fatal(err)
			}
			hash, secretsHash := c.Hashes()
			if hash != c.Hash() || secretsHash != c.SecretsHash() {
				t.Errorf("Hashes %s, %s; want Hash %s, SecretsHash %s", hash, secretsHash, c.Hash(), c.SecretsHash())
			}
			if _, masked := c.hash(true); masked != tt.secret || (hash != secretsHash) != tt.secret {
				t.Errorf("masked %v, the two hashes differ: %v; want %v", masked, hash != secretsHash, tt.secret)
			}
		})
	}
}
