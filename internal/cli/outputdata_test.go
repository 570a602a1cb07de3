package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// providerOutputs reads a provider's resource and two data sources (one
// read during the first apply, after what it waits for), whole
// attributes and paths into them.
const providerOutputs = `providers:
  TP: { source: kyku/TP, config: { dir: "CLOUD" } }
resources:
  a: { type: TP_item, properties: { name: a, value: v1, tags: { env: prod } } }
data:
  look: { type: TP_item, properties: { name: "${a.name}" } }
  all: { type: TP_list, properties: { prefix: "" }, dependsOn: [a] }
outputs:
  seen: "${look.value}"
  names: "${all.names}"
  values: "${all.values}"
  first: "${all.names[0]}"
  tags: "${a.tags}"
  env: "${a.tags.env}"
  id: "${a}"
`

// TestOutputReadsDataSourcesWithSchemaTypes: kyku output lists the
// outputs that read a data source as the apply recorded them (plain,
// --json, by name), and --json gives an output reading a provider's
// attribute the type its schema says, as OpenTofu does: a map attribute
// ["map","string"], a list ["list","string"], a path into one its
// element's type.
func TestOutputReadsDataSourcesWithSchemaTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	for _, tp := range []tfplugintest.Provider{tfplugintest.Framework, tfplugintest.SDK} {
		t.Run(tp.Type, func(t *testing.T) {
			k := newKyku(t, "")
			cloud := filepath.Join(k.dir, "items")
			if err := os.MkdirAll(cloud, 0o755); err != nil {
				t.Fatal(err)
			}
			yaml := strings.ReplaceAll(strings.ReplaceAll(providerOutputs, "CLOUD", cloud), "TP", tp.Type)
			if err := os.WriteFile(filepath.Join(k.dir, "kyku.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tp)
			k.ok("init")
			k.ok("apply", "--auto-approve")

			plain := k.ok("output")
			for _, want := range []string{"  seen = v1\n", `  names = ["a"]` + "\n", `  values = {"a":"v1"}` + "\n", "  first = a\n", "  env = prod\n"} {
				if !strings.Contains(plain, want) {
					t.Errorf("kyku output lacks %q:\n%s", want, plain)
				}
			}
			if got := k.ok("output", "seen"); got != "v1\n" {
				t.Errorf("kyku output seen = %q, want v1", got)
			}
			if got := k.ok("output", "--json", "names"); got != `["a"]`+"\n" {
				t.Errorf("kyku output --json names = %q", got)
			}

			var got map[string]map[string]any
			out := k.ok("output", "--json")
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("output --json: %v\n%s", err, out)
			}
			id := got["id"]["value"]
			if s, _ := id.(string); !strings.HasPrefix(s, "a-") {
				t.Errorf("id = %v", id)
			}
			mapOf := []any{"map", "string"}
			want := map[string]map[string]any{
				"seen":   {"sensitive": false, "type": "string", "value": "v1"},
				"names":  {"sensitive": false, "type": []any{"list", "string"}, "value": []any{"a"}},
				"values": {"sensitive": false, "type": mapOf, "value": map[string]any{"a": "v1"}},
				"first":  {"sensitive": false, "type": "string", "value": "a"},
				"tags":   {"sensitive": false, "type": mapOf, "value": map[string]any{"env": "prod"}},
				"env":    {"sensitive": false, "type": "string", "value": "prod"},
				"id":     {"sensitive": false, "type": "string", "value": id},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output --json (-want +got):\n%s", diff)
			}
		})
	}
}
