package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCountWording: validate, plan and refresh say "1 resource", "1
// output" and "matches" for one, the plural for any other number.
func TestCountWording(t *testing.T) {
	for _, tc := range []struct {
		name, config, validate, plan, refresh string
	}{
		{
			name: "one",
			config: `resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
outputs:
  id: "${net}"
`,
			validate: "The configuration is valid: 1 resource (count and forEach instances included), 1 output.\n",
			plan:     "The configuration has 1 resource (count and forEach instances included), counted as kyku validate counts them.",
			refresh:  "No drift: 1 resource matches the state.",
		},
		{
			name: "two",
			config: `resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 } }
outputs:
  id: "${net}"
  cidr: "10.0.0.0/16"
`,
			validate: "The configuration is valid: 3 resources (count and forEach instances and 2 auto-subnets included), 2 outputs.\n",
			plan:     "The configuration has 3 resources (count and forEach instances and 2 auto-subnets included), counted as kyku validate counts them.",
			refresh:  "No drift: 3 resources match the state.",
		},
		{
			name: "none",
			config: `outputs:
  x: "1"
`,
			validate: "The configuration is valid: 0 resources (count and forEach instances included), 1 output.\n",
			plan:     "The configuration has 0 resources (count and forEach instances included), counted as kyku validate counts them.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKyku(t, tc.config)
			if got := k.ok("validate"); got != tc.validate {
				t.Errorf("validate:\n%s\nwant:\n%s", got, tc.validate)
			}
			if got := k.ok("plan"); !strings.Contains(got, tc.plan) {
				t.Errorf("plan:\n%s\nwant a line:\n%s", got, tc.plan)
			}
			if tc.refresh == "" {
				return
			}
			k.ok("apply", "--auto-approve")
			if got := k.ok("refresh", "--report-only"); !strings.Contains(got, tc.refresh) {
				t.Errorf("refresh:\n%s\nwant a line:\n%s", got, tc.refresh)
			}
		})
	}
}

// TestCountWordingTerraform: a directory of .tf files is counted in its
// own words: "count and for_each", not kyku.yaml's forEach.
func TestCountWordingTerraform(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  for_each = toset(["x", "y"])
}
`})
	want := "2 resources (count and for_each instances included)"
	for _, cmd := range []string{"validate", "plan"} {
		if code, out, errOut := k.run("", cmd, "-c", tf); code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, want %q\n%s%s", cmd, code, want, out, errOut)
		}
	}
}
