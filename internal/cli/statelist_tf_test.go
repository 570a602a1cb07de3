package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformStateListFilters: kyku state list takes addresses as tofu
// state list does (an instance's, a resource's for all of its instances,
// a module's for everything in it) and -id, and lists an address a line
// in tofu's order (the root module's first, the shallower modules'
// before the deeper); an address that selects nothing is an error naming
// it.
func TestTerraformStateListFilters(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku")}
	writeFiles(t, tf, map[string]string{
		"main.tf": `resource "terraform_data" "d" {
  for_each = toset(["x", "y"])
  input    = each.key
}
resource "terraform_data" "solo" {}
module "m" {
  source = "./mod"
  count  = 2
}
`,
		"mod/main.tf": `resource "terraform_data" "i" {}
module "inner" {
  source = "./inner"
}
`,
		"mod/inner/main.tf": `resource "terraform_data" "deep" {}
`,
	})
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	list := func(filters ...string) []string {
		t.Helper()
		code, out, errOut := k.run("", append(append([]string{"state", "list"}, args...), filters...)...)
		if code != 0 {
			t.Fatalf("state list %q: exit %d\n%s%s", filters, code, out, errOut)
		}
		return strings.Split(strings.TrimSpace(out), "\n")
	}
	for _, c := range []struct {
		filters []string
		want    string
	}{
		{nil, `terraform_data.d["x"] terraform_data.d["y"] terraform_data.solo module.m[0].terraform_data.i module.m[1].terraform_data.i module.m[0].module.inner.terraform_data.deep module.m[1].module.inner.terraform_data.deep`},
		{[]string{"terraform_data.d"}, `terraform_data.d["x"] terraform_data.d["y"]`},
		{[]string{`terraform_data.d["y"]`, "terraform_data.solo"}, `terraform_data.d["y"] terraform_data.solo`},
		{[]string{"module.m"}, `module.m[0].terraform_data.i module.m[1].terraform_data.i module.m[0].module.inner.terraform_data.deep module.m[1].module.inner.terraform_data.deep`},
		{[]string{"module.m[1]"}, `module.m[1].terraform_data.i module.m[1].module.inner.terraform_data.deep`},
		{[]string{"module.m[0].module.inner"}, `module.m[0].module.inner.terraform_data.deep`},
	} {
		if got := strings.Join(list(c.filters...), " "); got != c.want {
			t.Errorf("state list %q:\n got %s\nwant %s", c.filters, got, c.want)
		}
	}
	id := ""
	code, out, _ := k.run("", append([]string{"state", "show"}, append(args, "terraform_data.solo")...)...)
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); code == 0 && len(f) == 3 && f[0] == "id" {
			id = strings.Trim(f[2], `"`)
		}
	}
	if got := strings.Join(list("-id="+id), " "); id == "" || got != "terraform_data.solo" {
		t.Errorf("state list -id=%s: %s, want terraform_data.solo", id, got)
	}
	for _, bad := range []struct{ filter, want string }{
		{"module.n", "state list: the state holds no module.n"},
		{"terraform_data.z", "state list: the state holds no terraform_data.z"},
		{"module.m[2]", "state list: the state holds no module.m[2]"},
	} {
		code, out, errOut := k.run("", append(append([]string{"state", "list"}, args...), bad.filter)...)
		if code != 1 || !strings.Contains(errOut, bad.want) {
			t.Errorf("state list %s: exit %d, want 1 and %q\n%s%s", bad.filter, code, bad.want, out, errOut)
		}
	}
}
