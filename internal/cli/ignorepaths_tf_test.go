package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformIgnoreChangesOfAPart: ignore_changes = [tags["owner"]]
// ignores that entry alone, as OpenTofu does: a change to it plans
// nothing, a change beside it is planned with the entry as the object
// has it, and drift in it is not drift (the whole of tags was ignored).
func TestTerraformIgnoreChangesOfAPart(t *testing.T) {
	main := func(owner, cost string) string {
		return `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
resource "TP_item" "web" {
  name = "web"
  tags = {
    owner = "` + owner + `"
    cost  = "` + cost + `"
  }
  lifecycle {
    ignore_changes = [tags["owner"]]
  }
}
`
	}
	k, run := newTerraformKyku(t, tfplugintest.Framework, map[string]string{"main.tf": main("team-a", "100")})
	if code, out, errOut := run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	write := func(text string) {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "CLOUD", k.items()), "TP", tfplugintest.Framework.Type)
		writeFiles(t, filepath.Join(k.dir, "tf"), map[string]string{"main.tf": text})
	}
	write(main("team-b", "100"))
	if code, out, errOut := run("plan", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan changing the ignored entry alone: exit %d, want 0 (no changes)\n%s%s", code, out, errOut)
	}
	write(main("team-b", "200"))
	code, out, errOut := run("plan", "--detailed-exitcode")
	if code != 2 || !strings.Contains(out, "tags.cost: 100 → 200") || strings.Contains(out, "tags.owner") {
		t.Errorf("plan changing cost beside it: exit %d, want cost updated and owner left as it is\n%s%s", code, out, errOut)
	}

	// Drift in the ignored entry is not drift; beside it, it is.
	items, _ := filepath.Glob(filepath.Join(k.items(), "web-*.json"))
	if len(items) != 1 {
		t.Fatalf("items %v", items)
	}
	data, err := os.ReadFile(items[0])
	if err != nil {
		t.Fatal(err)
	}
	var it map[string]any
	if err := json.Unmarshal(data, &it); err != nil {
		t.Fatal(err)
	}
	it["tags"].(map[string]any)["owner"] = "ops"
	data, _ = json.Marshal(it)
	if err := os.WriteFile(items[0], data, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("refresh", "--report-only", "--detailed-exitcode"); code != 0 {
		t.Errorf("refresh after the ignored entry drifted: exit %d, want 0 (no drift)\n%s%s", code, out, errOut)
	}
}
