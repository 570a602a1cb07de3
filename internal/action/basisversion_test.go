package action_test

import (
	"encoding/json"
	"os"
	"testing"
)

// TestPlanAfterAnUpgradeReadsKykusTypesAgain: the Action records its
// Kyku version as the provider version of Kyku's own types. A pull
// request's plan after an apply by the same version reads nothing from
// the cloud (nothing it touches changed since); after an upgrade of the
// Action it reads every object of Kyku's types again (their provider
// changed).
func TestPlanAfterAnUpgradeReadsKykusTypesAgain(t *testing.T) {
	f := newFixture(t)
	f.version = "v1.0.0 1111111"
	approvedAt(t, f, shaA)
	r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply -e prod", 7002), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantCode(t, r, 0)
	wantOutputs(t, r, map[string]string{"applied": "true"})

	reads := func(version string) (read, objects int) {
		t.Helper()
		f.version = version
		f.addPR(3, shaB)
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaB), nil)
		wantCode(t, r, 0)
		var pj struct {
			Reads struct{ Read, Objects int }
		}
		data, err := os.ReadFile(r.outputs["plan-file"])
		must(t, err)
		must(t, json.Unmarshal(data, &pj))
		return pj.Reads.Read, pj.Reads.Objects
	}
	for _, step := range []struct {
		name, version string
		read          int
	}{
		{"same version as the apply", "v1.0.0 1111111", 0},
		{"after an upgrade", "v1.1.0 2222222", 2},
	} {
		if read, objects := reads(step.version); read != step.read || objects != 2 {
			t.Errorf("%s: plan read %d of %d objects, want %d of 2", step.name, read, objects, step.read)
		}
	}
}
