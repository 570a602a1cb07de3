package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformExclude: --exclude (and --exclude-file) plans and applies
// everything but the excluded resource, instance or module and what
// depends on it, as OpenTofu's -exclude does (what depends on any
// instance of an excluded one's resource among them); an output reading
// what the plan leaves out is neither shown nor changed, with --target
// too; --target and --exclude together, and a blank line in an address
// file, are refused.
func TestTerraformExclude(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{
		"main.tf": `resource "terraform_data" "a" {
  count = 2
  input = count.index
}
resource "terraform_data" "b" {
  input = terraform_data.a[0].id
}
resource "terraform_data" "d" {}
module "m" {
  source = "./m"
  x      = terraform_data.d.id
}
output "b" {
  value = terraform_data.b.id
}
output "m" {
  value = module.m.out
}
variable "tag" {
  default = "one"
}
output "tagged" {
  value = "${var.tag}-${terraform_data.d.id}"
}
`,
		"m/main.tf": `variable "x" {}
resource "terraform_data" "in" {
  input = var.x
}
output "out" {
  value = terraform_data.in.id
}
`,
		"exclude.txt": "# what waits\nterraform_data.a[1]\n",
		"blank.txt":   "terraform_data.a\n\nmodule.m\n",
	})
	plan := func(args ...string) string {
		t.Helper()
		code, out, errOut := k.run("", append([]string{"plan", "-c", tf}, args...)...)
		if code != 0 {
			t.Fatalf("plan %v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out
	}
	has := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("plan lacks %q:\n%s", w, out)
			}
		}
	}
	hasNot := func(out string, not ...string) {
		t.Helper()
		for _, w := range not {
			if strings.Contains(out, w) {
				t.Errorf("plan shows %q:\n%s", w, out)
			}
		}
	}

	out := plan("--exclude", "module.m")
	has(out, "terraform_data.a[0]", "terraform_data.a[1]", "terraform_data.b", "terraform_data.d", "Excluded: module.m and what depends on it", "+ b:")
	hasNot(out, "module.m.terraform_data.in", "+ m:")

	// a[1] excluded: b reads a[0] only, but OpenTofu's graph knows it
	// depends on terraform_data.a.
	out = plan("--exclude-file", filepath.Join(tf, "exclude.txt"))
	has(out, "terraform_data.a[0]", "terraform_data.d", "module.m.terraform_data.in", "+ m:")
	hasNot(out, "create terraform_data terraform_data.a[1]", "create terraform_data terraform_data.b", "+ b:")

	out = plan("--target", "terraform_data.d")
	hasNot(out, "+ b:", "+ m:")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "terraform_data.d", "--exclude", "terraform_data.a"}, "the target and exclude planning options are mutually-exclusive"},
		{[]string{"--exclude-file", filepath.Join(tf, "blank.txt")}, "blank.txt:2: an empty line"},
		{[]string{"--exclude", "terraform_data.zz"}, `--exclude terraform_data.zz: not in the configuration or the state`},
	} {
		code, out, errOut := k.run("", append([]string{"plan", "-c", tf}, c.args...)...)
		if code == 0 || !strings.Contains(out+errOut, c.want) {
			t.Errorf("plan %v: exit %d, want it refused with %q\n%s%s", c.args, code, c.want, out, errOut)
		}
	}

	// Applied with module.m excluded, then all: output m is set by the
	// second apply only, b by the first.
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", tf, "--exclude", "module.m"); code != 0 {
		t.Fatalf("apply --exclude: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ := k.run("", "state", "list", "-c", tf)
	if code != 0 || strings.Contains(out, "module.m") || !strings.Contains(out, "terraform_data.b") {
		t.Errorf("state after apply --exclude module.m: exit %d\n%s", code, out)
	}
	code, out, _ = k.run("", "output", "-c", tf)
	if code != 0 || !strings.Contains(out, "b = ") || strings.Contains(out, "m = ") {
		t.Errorf("outputs after apply --exclude module.m: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(tf, "terraform.tfstate")); err != nil {
		t.Fatalf("no local state: %v", err)
	}

	// An output reading what an apply leaves out keeps its value, though
	// the variable it reads too changed.
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", tf); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", tf, "--exclude", "terraform_data.d", "--var", "tag=two"); code != 0 {
		t.Fatalf("apply --exclude terraform_data.d: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = k.run("", "output", "--raw", "tagged", "-c", tf)
	if code != 0 || !strings.HasPrefix(out, "one-") {
		t.Errorf("output tagged after apply --exclude: exit %d, want it kept (one-…): %s", code, out)
	}
}
