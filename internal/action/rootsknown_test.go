package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestTerraformRootCountFromStateAndData: a root whose for_each reads a
// data source and whose count reads an attribute in state is planned
// and applied by the Action as OpenTofu plans it (the values read once
// the root's state is open, before planning: they were OpenTofu's "cannot
// be determined until apply" here); a data source that changed between
// the plan and the merge changes what the merge would apply, and the
// merge is refused rather than applying what nobody reviewed.
func TestTerraformRootCountFromStateAndData(t *testing.T) {
	f := newFixture(t)
	f.tfProviders(t)
	// A pull request's providers run sandboxed, which hides the test
	// cloud (a directory; a real cloud's API is reached over the network).
	f.base["INPUT_PROVIDER-SANDBOX"] = "off"
	base := f.tfRepo("v1", nil)
	f.setTree(defaultRef, base)
	f.setTree(pushBefore, base)
	f.srv.SetPermission(repoName, "octocat", "write")
	net := f.rootBackend(t, "infra/net", "net.tfstate")
	merge := func(t *testing.T, number int, sha string, head map[string]string) result {
		t.Helper()
		f.srv.AddReview(repoName, number, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: sha})
		f.srv.UpdatePullRequest(repoName, number, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
		f.srv.SetCommitPulls(repoName, mergeSHA, number)
		f.setTree(mergeSHA, head)
		return f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
	}

	// #2 makes the item the next pull request reads.
	zones := f.tfRepo("v1", map[string]string{"infra/net/main.tf": base["infra/net/main.tf"] +
		"resource \"fwtest_item\" \"zones\" {\n  name  = \"zones\"\n  value = \"a,b\"\n}\n"})
	f.setTree(shaA, zones)
	f.addPRFiles(2, shaA, "infra/net/main.tf")
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
	r := merge(t, 2, shaA, zones)
	wantCode(t, r, 0)
	wantOutputs(t, r, map[string]string{"applied": "true"})
	f.setTree(defaultRef, zones)
	f.setTree(pushBefore, zones)

	// #3: for_each from a data source read at plan, count from state.
	reads := f.tfRepo("v1", map[string]string{"infra/net/main.tf": zones["infra/net/main.tf"] +
		"data \"fwtest_item\" \"zones\" {\n  name = \"zones\"\n}\n" +
		"resource \"terraform_data\" \"subnet\" {\n  for_each = toset(split(\",\", data.fwtest_item.zones.value))\n  input    = \"subnet-${each.key}\"\n}\n" +
		"resource \"terraform_data\" \"route\" {\n  count = length(split(\",\", fwtest_item.zones.value))\n  input = count.index\n}\n"})
	f.setTree(shaB, reads)
	f.addPRFiles(3, shaB, "infra/net/main.tf")
	r = f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaB), nil)
	wantCode(t, r, 0)
	body := f.planComment(t, 3, "infra/net")
	for _, w := range []string{`terraform_data.subnet["a"]`, `terraform_data.subnet["b"]`, "terraform_data.route[0]", "terraform_data.route[1]", "4 to create"} {
		if !strings.Contains(body, w) {
			t.Errorf("the plan comment lacks %s:\n%s", w, body)
		}
	}
	if strings.Contains(body, "cannot be determined until apply") {
		t.Fatalf("the plan refused what state and the data source tell:\n%s", body)
	}

	t.Run("a data source changed since the plan: the merge is refused", func(t *testing.T) {
		f.editItem(t, "zones", "a,b", "a,b,c")
		r := merge(t, 3, shaB, reads)
		wantOutputs(t, r, map[string]string{"applied": "false"})
		if !strings.Contains(r.summary, "expands otherwise than when it was planned") {
			t.Errorf("the refusal does not say why:\n%s", r.summary)
		}
		st, err := net.Read(t.Context())
		must(t, err)
		if got := strings.Join(st.Names(), " "); strings.Contains(got, "subnet") || strings.Contains(got, "route") {
			t.Errorf("the merge applied what was not reviewed: %s", got)
		}
		f.editItem(t, "zones", "a,b,c", "a,b")
	})

	t.Run("as reviewed: the merge applies the plan", func(t *testing.T) {
		wantCode(t, f.run("pull_request", prEvent(t, "pull_request.synchronize.json", 3, shaB), nil), 0)
		r := merge(t, 3, shaB, reads)
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "true"})
		st, err := net.Read(t.Context())
		must(t, err)
		want := `fwtest_item.a fwtest_item.zones terraform_data.route[0] terraform_data.route[1] terraform_data.subnet["a"] terraform_data.subnet["b"] terraform_data.vpc`
		if got := strings.Join(st.Names(), " "); got != want {
			t.Errorf("state after the merge:\n got %s\nwant %s", got, want)
		}
	})

	t.Run("the drift schedule reads them too", func(t *testing.T) {
		f.setTree(defaultRef, reads)
		f.writeCheckout(t, reads)
		schedule := scheduleEvent(t)
		r := f.run("schedule", schedule, nil)
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"drift": "false"})
	})

	t.Run("a remote state behind a count reading state is refused unread", func(t *testing.T) {
		secret := filepath.Join(f.dir, "other-team.tfstate")
		must(t, os.WriteFile(secret, []byte(`{"version":4,"terraform_version":"1.12.6","serial":1,"lineage":"x","outputs":{"pw":{"value":"s3cr3t-of-another-team","type":"string"}},"resources":[]}`), 0o644))
		sneaky := f.tfRepo("v1", map[string]string{"infra/net/main.tf": reads["infra/net/main.tf"] +
			"data \"terraform_remote_state\" \"other\" {\n  count   = fwtest_item.zones.id != \"\" ? 1 : 0\n" +
			"  backend = \"local\"\n  config  = { path = \"" + secret + "\" }\n}\n" +
			"output \"leak\" {\n  value = data.terraform_remote_state.other[0].outputs\n}\n"})
		f.setTree(shaC, sneaky)
		f.addPRFiles(4, shaC, "infra/net/main.tf")
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 4, shaC), nil)
		body := f.planComment(t, 4, "infra/net")
		if !strings.Contains(body, "the pull request adds data.terraform_remote_state.other[0], which reads another state") {
			t.Errorf("the plan comment does not refuse the remote state:\n%s", body)
		}
		if strings.Contains(body+r.stdout+r.summary, "s3cr3t-of-another-team") {
			t.Errorf("the run shows the other state's output")
		}
	})
}
