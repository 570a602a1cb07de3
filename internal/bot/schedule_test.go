package bot_test

import (
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/jobs/jobstest"
	"github.com/kyku/action/internal/bot/schedule"
)

// The drift schedule across replicas (one leader, each round offered
// once, a dead leader's schedule taken over within a lease) is package
// schedule's TestOneScheduleAcrossReplicas, on simulated time. What the
// bot adds is below: an offered check is taken by whichever replica has
// an idle worker and checks every environment of the repository.

// TestOfferedDriftCheckChecksEveryEnvironment: a drift check a leader
// offered in the store (signed, one repository of a round) is taken by a
// replica, once — of two on the store, whichever looks first — and checks
// each of the repository's environments; its record is gone once the
// checks ended.
func TestOfferedDriftCheckChecksEveryEnvironment(t *testing.T) {
	mem := jobstest.NewMemory()
	body, err := json.Marshal(schedule.Repo{
		Round: "20250602T080000Z", Installation: installation, ID: repoID,
		Owner: "Codertocat", Name: "Hello-World", DefaultBranch: defaultBranch, Created: repoCreated,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordDrift{}
	// A short lease: the replicas look for jobs nobody holds every 100ms.
	h := newHarness(t, harnessOpts{store: mem, replica: "r1", lease: 300 * time.Millisecond, rules: bot.Rules{Drift: rec.rule}})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(twoEnvSettings))
	other := h.replica(harnessOpts{store: mem, replica: "r2", lease: 300 * time.Millisecond, rules: bot.Rules{Drift: rec.rule}})
	leader := jobs.New(mem, jobs.Options{Secret: []byte(secret), Holder: "leader"})
	if ok, err := leader.Offer(t.Context(), jobs.Record{
		ID: "drift/20250602T080000Z/186853002", Event: schedule.EventOffered, Body: body,
		MAC: hex.EncodeToString(jobs.MAC([]byte(secret), body)),
	}); err != nil || !ok {
		t.Fatalf("offer: %v %v", ok, err)
	}
	eventually(t, "the offered check was never taken", func() bool {
		return h.metrics()[`kyku_bot_jobs_resumed_total{result="offered"}`]+other.metrics()[`kyku_bot_jobs_resumed_total{result="offered"}`] == 1
	})
	h.settle()
	other.settle()
	want := []string{repoName + " infra/prod write-state", repoName + " infra/staging write-state"}
	if diff := cmp.Diff(want, rec.got()); diff != "" {
		t.Errorf("checked (-want +got):\n%s", diff)
	}
	eventually(t, "the offered check's record stayed", func() bool { return len(jobKeys(t, mem)) == 0 })
}
