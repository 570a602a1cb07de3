package action_test

import (
	"strings"
	"testing"
)

// TestRegistryTokenMasked: a registry token given as TF_TOKEN_<host> in
// the step's environment (from a secret) is masked in the log before
// anything runs, and no plan comment or summary shows it.
func TestRegistryTokenMasked(t *testing.T) {
	f := newFixture(t)
	const token = "registry-s3cr3t-token"
	f.base["TF_TOKEN_registry_example_com"] = token
	base := f.tfRepo("v1", nil)
	f.setTree(defaultRef, base)
	head := f.tfRepo("v1", map[string]string{"infra/net/main.tf": base["infra/net/main.tf"] +
		"resource \"terraform_data\" \"more\" {\n  input = \"x\"\n}\n"})
	f.setTree(shaA, head)
	f.addPRFiles(2, shaA, "infra/net/main.tf")
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	if m, start := strings.Index(r.stdout, "::add-mask::"+token), strings.Index(r.stdout, "kyku: pull_request"); m < 0 || m > start {
		t.Errorf("TF_TOKEN_registry_example_com is not masked before anything runs:\n%s", r.stdout)
	}
	if body := f.planComment(t, 2, "infra/net"); strings.Contains(body, token) || strings.Contains(r.summary, token) {
		t.Errorf("the token shows in the plan comment or the summary")
	}
}
