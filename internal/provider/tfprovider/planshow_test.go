package tfprovider_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestCreatePlanShowsWhatTheProviderPlans: the plan of a Terraform
// provider's resources shows each create's attributes as the provider
// planned them: computed ones known after apply, a map whose entry reads
// another's ID with its known entry beside, a value of several lines as
// a heredoc, a secret masked (and in --json no old value for it); the
// changes name their provider, the plan no default one; the outputs that
// apply adds are listed.
func TestCreatePlanShowsWhatTheProviderPlans(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			yaml := `providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, secret: hunter2-secret, value: "line1\nline2\n" } }
  b: { type: TP_item, properties: { name: b, tags: { k: one, pet: "${a.id}" } } }
outputs:
  a_id: "${a.id}"
  b_name: "${b.name}"
`
			// A map with an entry known after apply: the framework plans
			// it so; terraform-plugin-sdk plans the whole map unknown (its
			// flatmap cannot hold such an entry), and a plan shows what
			// the provider planned. Its nested block keeps the known
			// parts. A value a reference gave names it.
			tags := "      tags: {\n          k: one\n          pet: (known after apply: a.id)\n      }\n"
			more := ""
			if tp == tfplugintest.SDK {
				yaml = strings.Replace(yaml, "tags: { k: one, pet: \"${a.id}\" }", "tags: { k: one, pet: \"${a.id}\" }, rule: [ { port: 80 }, { port: 81, cidr: \"${a.value}/${a.id}\" } ]", 1)
				tags = "      tags: (known after apply)\n"
				more = "      rule: [\n          {\n              cidr: 0.0.0.0/0\n              port: 80\n          },\n          {\n              cidr: (known after apply: a.value, a.id)\n              port: 81\n          },\n      ]\n"
			}
			cfg := w.parse(yaml)
			p := w.plan(cfg)
			var text, js bytes.Buffer
			if err := render.PlanText(&text, p, render.TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := render.PlanJSON(&js, render.RedactPlan(p), render.JSONOptions{}); err != nil {
				t.Fatal(err)
			}
			md := render.PlanComment(p, render.Meta{}, render.CommentLimit)
			for _, want := range []string{
				"  + create " + tp.Type + "_item \"a\"",
				"      id: (known after apply)\n      name: a\n",
				"      secret: (sensitive)\n      value: <<-EOT\n          line1\n          line2\n      EOT\n",
				tags, more,
				"\nChanges to Outputs:\n  + a_id: (known after apply)\n  + b_name: b\n",
			} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("the plan text lacks %q:\n%s", want, text.String())
				}
			}
			// The comment shows the same, each line marked and indented
			// under its change.
			shown := strings.ReplaceAll(strings.TrimSuffix(tags, "\n"), "\n      ", "\n+   ")
			shown = "+   " + strings.TrimPrefix(shown, "      ") + "\n"
			for _, want := range []string{shown, "+   value: <<-EOT\n+       line1\n"} {
				if !strings.Contains(md, want) {
					t.Errorf("the comment lacks %q:\n%s", want, md)
				}
			}
			var doc struct {
				Provider *string `json:"provider"`
				Changes  []struct {
					ResourceID string `json:"resourceId"`
					Provider   string `json:"provider"`
					Properties []struct {
						Path string `json:"path"`
						Old  any    `json:"old"`
						New  any    `json:"new"`
					} `json:"properties"`
				} `json:"changes"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Provider != nil {
				t.Errorf("a plan of a Terraform provider's resources names provider %q", *doc.Provider)
			}
			for _, c := range doc.Changes {
				if c.Provider != tp.Type {
					t.Errorf("%s: provider %q, want %q", c.ResourceID, c.Provider, tp.Type)
				}
				for _, pc := range c.Properties {
					if pc.Old != nil {
						t.Errorf("%s: the create's %s has old value %v", c.ResourceID, pc.Path, pc.Old)
					}
					if c.ResourceID == "a" && pc.Path == "secret" && pc.New != "(sensitive)" {
						t.Errorf("the secret's new value %v", pc.New)
					}
				}
			}
			for what, out := range map[string]string{"text": text.String(), "comment": md, "json": js.String()} {
				if strings.Contains(out, "hunter2") {
					t.Errorf("the %s shows the secret", what)
				}
			}
		})
	}
}
