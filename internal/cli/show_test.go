package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowAsTofuShows: kyku show PLANFILE prints the saved plan as plan
// printed it (--json as plan --json), and kyku show the objects in state,
// as tofu show does.
func TestShowAsTofuShows(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "x"
}
`})
	saved := filepath.Join(k.dir, "tfplan")
	code, planned, errOut := k.run("", "plan", "-c", tf, "-out="+saved)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s%s", code, planned, errOut)
	}
	code, out, errOut := k.run("", "show", "-c", tf, saved)
	if code != 0 || !strings.Contains(planned, out) || !strings.Contains(out, "+ create terraform_data terraform_data.a") {
		t.Errorf("show PLANFILE: exit %d, want the plan as plan printed it\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", "show", "-c", tf, "--json", saved)
	var p struct{ Changes []struct{ ResourceID string } }
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || len(p.Changes) != 1 || p.Changes[0].ResourceID != "terraform_data.a" {
		t.Errorf("show --json PLANFILE: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if code, out, errOut := k.run("", "show", "-c", tf); code != 0 || !strings.Contains(out, "The state is empty") {
		t.Errorf("show before apply: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", "apply", "-c", tf, saved); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", "show", "-c", tf)
	if code != 0 || !strings.Contains(out, "# terraform_data.a:\nresource \"terraform_data\" \"a\" {") || !strings.Contains(out, `input  = "x"`) {
		t.Errorf("show: exit %d, want the state's objects\n%s%s", code, out, errOut)
	}
}
