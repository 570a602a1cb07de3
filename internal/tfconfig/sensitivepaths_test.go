package tfconfig_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	kykurender "github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/tfconfig"
)

// TestSensitivePaths: a sensitive variable set inside an object is
// masked there in the plan's planned values, as OpenTofu's plan masks it
// (sensitive_values), not the whole attribute; a sensitive value set as
// the whole attribute masks it whole; the secret is nowhere in the JSON.
func TestSensitivePaths(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": head + `
variable "password" {
  type      = string
  sensitive = true
  default   = "correct-horse-battery"
}
resource "TP_item" "part" {
  name = "part"
  tags = { user = "app", password = var.password, "a key" = var.password }
}
resource "TP_item" "whole" {
  name  = "whole"
  value = var.password
}
`})
			p := w.plan(w.mustLoad(tfconfig.Inputs{}))
			var out bytes.Buffer
			if err := kykurender.PlanJSON(&out, p, kykurender.JSONOptions{}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), "correct-horse-battery") {
				t.Fatalf("the plan's JSON shows the secret:\n%s", out.String())
			}
			var doc struct {
				Changes []struct {
					ResourceID     string         `json:"resourceId"`
					Planned        map[string]any `json:"planned"`
					SensitivePaths []string       `json:"sensitivePaths"`
				} `json:"changes"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			type shown struct {
				Tags, Value any
				Paths       []string
			}
			got := map[string]shown{}
			for _, c := range doc.Changes {
				got[c.ResourceID] = shown{Tags: c.Planned["tags"], Value: c.Planned["value"], Paths: c.SensitivePaths}
			}
			ty := tp.Type
			want := map[string]shown{
				ty + "_item.part": {
					Tags:  map[string]any{"user": "app", "password": "(sensitive)", "a key": "(sensitive)"},
					Paths: []string{`.tags.password`, `.tags["a key"]`},
				},
				ty + "_item.whole": {Value: "(sensitive)", Paths: []string{".value"}},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("planned values (-want +got):\n%s", diff)
			}
		})
	}
}
