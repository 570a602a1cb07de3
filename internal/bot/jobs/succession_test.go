package jobs_test

import (
	"slices"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
)

// TestSuccessionIsJudgedFromTheStore: the holder of a job's lease may take
// over what the job left under an earlier lease (a state lock naming the
// job and that lease's mark), and nothing else: not what its own lease
// left (its own work, running), not a mark the job was never held under,
// and nothing once its lease has lapsed or passed to another. The record
// lists the marks; the lease token itself never leaves the store.
func TestSuccessionIsJudgedFromTheStore(t *testing.T) {
	ctx := t.Context()
	objs := s3Store(t)
	clk := &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	a := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: "replica-a", Lease: time.Minute, Now: clk.now})
	b := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: "replica-b", Lease: time.Minute, Now: clk.now})
	ja, err := a.Accept(ctx, jobs.Record{ID: "delivery-1", Event: "pull_request", Body: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	markA := ja.LeaseMark()
	if got := ja.Record().Leases; !slices.Equal(got, []string{markA}) {
		t.Errorf("accepted record lists leases %v, want [%s]", got, markA)
	}
	succeeds := func(j *jobs.Job, mark string) bool {
		t.Helper()
		ok, err := j.Succeeds(ctx, mark)
		if err != nil {
			t.Fatalf("Succeeds(%s): %v", mark, err)
		}
		return ok
	}
	if succeeds(ja, markA) {
		t.Error("the holder succeeds to its own running lease")
	}

	clk.advance(61 * time.Second) // replica-a died
	got, _, err := b.TakeOrphans(ctx, 1, none)
	if err != nil || len(got) != 1 {
		t.Fatalf("TakeOrphans = %v, %v", got, err)
	}
	jb := got[0]
	markB := jb.LeaseMark()
	if markB == markA || len(markB) != 16 {
		t.Fatalf("lease marks %q then %q: want two distinct 16-digit marks", markA, markB)
	}
	if got := jb.Record().Leases; !slices.Equal(got, []string{markA, markB}) {
		t.Errorf("taken over record lists leases %v, want [%s %s]", got, markA, markB)
	}
	for _, tc := range []struct {
		name string
		job  *jobs.Job
		mark string
		want bool
	}{
		{"the new holder, for the dead holder's lease", jb, markA, true},
		{"the new holder, for its own lease", jb, markB, false},
		{"the new holder, for a lease the job never had", jb, "0123456789abcdef", false},
		{"the new holder, for no lease", jb, "", false},
		{"the dead holder, for the new holder's lease", ja, markB, false},
	} {
		if got := succeeds(tc.job, tc.mark); got != tc.want {
			t.Errorf("%s: Succeeds = %v, want %v", tc.name, got, tc.want)
		}
	}
	clk.advance(61 * time.Second) // replica-b stopped renewing too
	if succeeds(jb, markA) {
		t.Error("a holder whose lease lapsed still succeeds")
	}
}
