package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformTargetLeavesUndecidedOut: a for_each reading what the plan
// creates is OpenTofu's "cannot be determined until apply", whose advice
// is to --target what it reads first: that plan (and its saved plan's
// apply) now leaves the for_each's resource out, as OpenTofu's targeting
// never evaluates it, saying so; it refused the same error whatever was
// targeted. A --target naming the undecided resource is still refused;
// once what it reads is applied, the for_each plans.
func TestTerraformTargetLeavesUndecidedOut(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "src" {
  input = ["a", "b"]
}
resource "terraform_data" "per" {
  for_each = toset(terraform_data.src.output)
  input    = each.key
}
`})
	if code, out, errOut := k.run("", "plan", "-c", tf); code == 0 || !strings.Contains(out+errOut, "Invalid for_each argument") {
		t.Fatalf("untargeted plan: exit %d, want OpenTofu's for_each error\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", "plan", "-c", tf, "--target", "terraform_data.per"); code == 0 || !strings.Contains(out+errOut, "Invalid for_each argument") {
		t.Fatalf("plan --target of the undecided resource: exit %d, want it refused\n%s%s", code, out, errOut)
	}
	saved := filepath.Join(k.dir, "src.plan")
	code, out, errOut := k.run("", "plan", "-c", tf, "--target", "terraform_data.src", "-out", saved)
	if code != 0 || !strings.Contains(out, "create terraform_data terraform_data.src") || strings.Contains(out, "terraform_data.per") {
		t.Fatalf("plan --target terraform_data.src: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out+errOut, "--target leaves out terraform_data.per, whose count or for_each is not known until apply") {
		t.Errorf("the plan does not say what it leaves out:\n%s%s", out, errOut)
	}
	if code, out, errOut := k.run("", "apply", "-c", tf, saved); code != 0 {
		t.Fatalf("apply of the targeted plan: exit %d\n%s%s", code, out, errOut)
	}
	out = k.ok("plan", "-c", tf)
	for _, want := range []string{`create terraform_data terraform_data.per["a"]`, `create terraform_data terraform_data.per["b"]`} {
		if !strings.Contains(out, want) {
			t.Errorf("plan after the targeted apply lacks %s:\n%s", want, out)
		}
	}
}
