package bot_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/jobs/jobstest"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// botStore is a store for the bot on the real S3 server, in a bucket of
// the test's own, under prefix kyku-bot.
func botStore(t *testing.T) (jobs.Objects, func() jobs.Objects) {
	t.Helper()
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	open := func() jobs.Objects {
		b, err := s3b.New(t.Context(), s3b.Config{Bucket: bucket, Prefix: "kyku-bot", Region: s.Region, Endpoint: s.Endpoint, UsePathStyle: true}, "", s3b.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return open(), open
}

func jobKeys(t *testing.T, store jobs.Objects) []string {
	t.Helper()
	keys, err := store.ListObjects(t.Context(), jobs.RecordPrefix)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestAcceptedJobIsRecordedBeforeTheAnswer: with a store, the 202 comes
// after the job is in it — its signed body and signature, who accepted
// it — and the record is gone once the job and what it spawned ended.
func TestAcceptedJobIsRecordedBeforeTheAnswer(t *testing.T) {
	store, _ := botStore(t)
	release := make(chan struct{})
	rules := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		<-release
		return review.Plan(ctx, d, req)
	}}
	h := newHarness(t, harnessOpts{rules: rules, store: store, replica: "replica-a"})
	h.pr(2, headA)
	body := prOpened(t, 2, headA)
	if code, msg := h.post("pull_request", "guid-7", body, ""); code != http.StatusAccepted {
		t.Fatalf("delivery: %d %s", code, msg)
	}
	keys := jobKeys(t, store)
	if len(keys) != 1 || keys[0] != jobs.Key("guid-7") {
		t.Fatalf("job records after the 202: %v, want the delivery's", keys)
	}
	data, _, err := store.ReadObject(t.Context(), keys[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"acceptedBy":"replica-a"`) || !strings.Contains(string(data), `"event":"pull_request"`) ||
		!strings.Contains(string(data), strings.TrimPrefix(sign(body), "sha256=")) {
		t.Errorf("the record lacks who accepted it, its event or its signature: %.300s", data)
	}
	eventually(t, "the job was never leased", func() bool { return h.metrics()["kyku_bot_jobs_leased"] == 1 })
	resp, err := http.Get(h.http.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	health := readAll(t, resp)
	if !strings.Contains(health, "leased 1\n") || !strings.Contains(health, "store yes") {
		t.Errorf("/healthz = %q, want the leased job", health)
	}
	close(release)
	h.settle()
	eventually(t, "the record of a finished job stayed", func() bool { return len(jobKeys(t, store)) == 0 })
	if m := h.metrics(); m["kyku_bot_jobs_leased"] != 0 || m[`kyku_bot_jobs_total{kind="plan",outcome="planned"}`] != 1 {
		t.Errorf("after the job: leased %v, planned %v", m["kyku_bot_jobs_leased"], m[`kyku_bot_jobs_total{kind="plan",outcome="planned"}`])
	}
}

// TestJobOfADeadReplicaIsTakenOver: replica A accepts a plan and starts it,
// then loses its store (as a process that died, or one cut off from the
// network): it cannot renew the lease, and stops the job once the lease
// has run out, without touching the pull request. Replica B takes the job
// over after at most one lease and plans it again from the start, on the
// check run A opened: one check run, one plan, one comment.
func TestJobOfADeadReplicaIsTakenOver(t *testing.T) {
	_, open := botStore(t)
	const lease = 600 * time.Millisecond
	started := make(chan struct{})
	var aStopped atomic.Bool
	ruleA := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		close(started)
		<-ctx.Done() // A hangs in the plan until its job is stopped
		aStopped.Store(true)
		return nil, ctx.Err()
	}}
	var plansB atomic.Int32
	ruleB := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		plansB.Add(1)
		return review.Plan(ctx, d, req)
	}}
	storeA := &jobstest.Severable{Objects: open()}
	a := newHarness(t, harnessOpts{rules: ruleA, store: storeA, replica: "replica-a", lease: lease})
	a.pr(2, headA)
	a.deliver("pull_request", prOpened(t, 2, headA))
	<-started
	storeA.Cut()
	cut := time.Now()
	b := a.replica(harnessOpts{rules: ruleB, store: open(), replica: "replica-b", lease: lease})

	eventually(t, "replica B never took the job over", func() bool {
		return b.metrics()[`kyku_bot_jobs_resumed_total{result="taken_over"}`] == 1
	})
	if took := time.Since(cut); took > 3*lease {
		t.Errorf("the job was taken over %v after its worker died, want within about one lease (%v)", took, lease)
	}
	b.settle()
	eventually(t, "B's plan never ended", func() bool { return plansB.Load() == 1 && len(jobKeys(t, open())) == 0 })
	eventually(t, "A never stopped its job after losing the lease", aStopped.Load)
	runs := a.gh.CheckRuns(repoName)
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "success" {
		t.Errorf("check runs %+v, want the one A opened, completed by B", runs)
	}
	if c := a.botComments(2); len(c) != 1 {
		t.Errorf("%d plan comments, want 1", len(c))
	}
	if !strings.Contains(a.logs(), "job lease lost") {
		t.Errorf("A did not log that it lost the lease")
	}
	if !strings.Contains(b.logs(), "job taken over") || !strings.Contains(b.logs(), `"accepted_by":"replica-a"`) {
		t.Errorf("B's log does not say what it took over:\n%s", b.logs())
	}
}

// TestResumedApplyIsJudgedAgain: an apply ran, then its worker died before
// it could mark the job done. The replica that takes the job over runs the
// /kyku apply again from scratch: review judges it again under the state
// lock and refuses it (the state moved since the plan was reviewed), so
// nothing is applied twice — one audit record, the cloud as it was. A job
// record planted in the store without the webhook secret's signature is
// not run at all.
func TestResumedApplyIsJudgedAgain(t *testing.T) {
	store, open := botStore(t)
	h := newHarness(t, harnessOpts{store: store, replica: "replica-a", lease: time.Second})
	h.pr(2, headA)
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.gh.SetPermission(repoName, "writer", "write")
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	apply := commentOn(t, 2, "writer", "User", "/kyku apply", 901)
	h.deliver("issue_comment", apply)
	h.settle()
	if n := len(h.audits()); n != 1 {
		t.Fatalf("%d audit records after the apply, want 1", n)
	}
	cloud := h.cloudObjects()
	comments := len(h.botComments(2))

	// What a replica that died after the apply leaves: the record, its
	// lease expired.
	past := func() time.Time { return time.Now().Add(-time.Hour) }
	dead := jobs.New(open(), jobs.Options{Secret: []byte(secret), Holder: "replica-dead", Lease: time.Minute, Now: past})
	if _, err := dead.Accept(t.Context(), jobs.Record{
		ID: "guid-dead", Event: "issue_comment", Body: apply, MAC: strings.TrimPrefix(sign(apply), "sha256="), AcceptedBy: "replica-dead",
	}); err != nil {
		t.Fatal(err)
	}
	forged := commentOn(t, 2, "writer", "User", "/kyku apply", 902)
	mac := hmac.New(sha256.New, []byte("not-the-webhook-secret"))
	mac.Write(forged)
	if _, err := dead.Accept(t.Context(), jobs.Record{ID: "guid-forged", Event: "issue_comment", Body: forged, MAC: hex.EncodeToString(mac.Sum(nil))}); err != nil {
		t.Fatal(err)
	}

	eventually(t, "the dead replica's job was never taken over", func() bool {
		return h.metrics()[`kyku_bot_jobs_resumed_total{result="taken_over"}`] == 1 && h.metrics()[`kyku_bot_jobs_resumed_total{result="refused"}`] == 1
	})
	h.settle()
	eventually(t, "the job records stayed", func() bool { return len(jobKeys(t, store)) == 0 })
	if n := len(h.audits()); n != 1 {
		t.Errorf("%d audit records after the takeover, want still 1: applied twice", n)
	}
	if got := h.cloudObjects(); len(got) != len(cloud) {
		t.Errorf("cloud %v after the takeover, was %v", got, cloud)
	}
	if m := h.metrics(); m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`] != 1 {
		t.Errorf("the resumed apply was not refused: %v", m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`])
	}
	if n := len(h.botComments(2)); n != comments+1 {
		t.Errorf("%d comments after the takeover, want %d (one refusal; the forged record ran nothing)", n, comments+1)
	}
	if !strings.Contains(h.logs(), "its body does not carry the webhook secret's signature") {
		t.Errorf("the forged record was not refused in the log")
	}
}

// TestChangedJobRecordIsNotRun: whoever can write the bot's store cannot
// make it run a delivery again by changing a record's fields around the
// body GitHub signed. A delivery recorded long ago is put back under a new
// ID (as a replay would), and a record in the earlier format, whose
// signature covered only its body, is left behind: the replica that finds
// them refuses both, plans nothing and removes them.
func TestChangedJobRecordIsNotRun(t *testing.T) {
	store, open := botStore(t)
	ctx := t.Context()
	past := func() time.Time { return time.Now().Add(-time.Hour) }
	dead := jobs.New(open(), jobs.Options{Secret: []byte(secret), Holder: "replica-dead", Lease: time.Minute, Now: past})
	body := prOpened(t, 2, headA)
	mac := strings.TrimPrefix(sign(body), "sha256=")
	if _, err := dead.Accept(ctx, jobs.Record{ID: "guid-old", Event: "pull_request", Body: body, MAC: mac, AcceptedBy: "replica-dead"}); err != nil {
		t.Fatal(err)
	}
	data, v, err := store.ReadObject(ctx, jobs.Key("guid-old"))
	if err != nil {
		t.Fatal(err)
	}
	replay := strings.Replace(string(data), `"id":"guid-old"`, `"id":"guid-replay"`, 1)
	if _, err := store.CreateObject(ctx, jobs.Key("guid-replay"), []byte(replay)); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteObject(ctx, jobs.Key("guid-old"), v); err != nil {
		t.Fatal(err)
	}
	earlier, err := json.Marshal(map[string]any{"id": "guid-earlier", "event": "pull_request", "body": body, "mac": mac, "acceptedBy": "replica-old"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateObject(ctx, jobs.Key("guid-earlier"), earlier); err != nil {
		t.Fatal(err)
	}

	h := newHarness(t, harnessOpts{store: store, replica: "replica-a", lease: time.Second})
	h.pr(2, headA)
	eventually(t, "the records were not refused", func() bool {
		return h.metrics()[`kyku_bot_jobs_resumed_total{result="refused"}`] == 2
	})
	h.settle()
	eventually(t, "the refused records stayed", func() bool { return len(jobKeys(t, store)) == 0 })
	if runs := h.gh.CheckRuns(repoName); len(runs) != 0 {
		t.Errorf("check runs %+v: a refused record was planned", runs)
	}
	if c := h.botComments(2); len(c) != 0 {
		t.Errorf("%d plan comments: a refused record was planned", len(c))
	}
	logs := h.logs()
	for _, want := range []string{"its signature does not verify with the webhook secret", "written by an earlier version of Kyku"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log does not say %q:\n%s", want, logs)
		}
	}
}

// TestShutdownLeavesUnstartedJobsToAnotherReplica: a replica draining past
// its deadline gives back the leases of jobs it never started; another
// replica takes them over at once, without waiting for the lease.
func TestShutdownLeavesUnstartedJobsToAnotherReplica(t *testing.T) {
	_, open := botStore(t)
	block := make(chan struct{})
	defer close(block)
	rules := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return nil, errors.New("stopped")
	}}
	a := newHarness(t, harnessOpts{rules: rules, store: open(), replica: "replica-a", lease: time.Hour, workers: 1})
	a.pr(2, headA)
	a.pr(3, headB)
	a.deliver("pull_request", prOpened(t, 2, headA))
	a.deliver("pull_request", prOpened(t, 3, headB))
	eventually(t, "the first plan never started", func() bool { return a.metrics()["kyku_bot_jobs_running"] == 1 })
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_ = a.bot.Shutdown(ctx)
	if !strings.Contains(a.logs(), "job left for another replica") {
		t.Errorf("no lease given back at shutdown:\n%s", a.logs())
	}
	var plans atomic.Int32
	b := a.replica(harnessOpts{store: open(), replica: "replica-b", lease: time.Hour, rules: bot.Rules{
		Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
			plans.Add(1)
			return review.Plan(ctx, d, req)
		}}})
	eventually(t, "the jobs left behind were not taken at once (the lease is an hour)", func() bool { return plans.Load() == 2 })
	b.settle()
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
