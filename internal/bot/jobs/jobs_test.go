package jobs_test

import (
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// s3Store is a store on the real S3 server, in a bucket of the test's own.
func s3Store(t *testing.T) jobs.Objects {
	t.Helper()
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	b, err := s3b.New(t.Context(), s3b.Config{Bucket: bucket, Prefix: "kyku-bot", Region: s.Region, Endpoint: s.Endpoint, UsePathStyle: true}, "", s3b.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func none(string) bool { return false }

// testSecret is the webhook secret the records are signed with.
var testSecret = []byte("webhook-s3cr3t")

// TestAJobOutlivesItsWorker: on the real S3 server, a job accepted by one
// replica is not taken by another while its lease is renewed; once the
// worker stops renewing (it died), the other takes it over with the
// record as it was — the signed body and the steps done — and the
// takeover is counted. The dead worker can no longer write. Finish leaves
// nothing behind.
func TestAJobOutlivesItsWorker(t *testing.T) {
	ctx := t.Context()
	objs := s3Store(t)
	clk := &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	a := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: "replica-a", Lease: time.Minute, Now: clk.now})
	b := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: "replica-b", Lease: time.Minute, Now: clk.now})

	rec := jobs.Record{ID: "delivery-1", Event: "issue_comment", Body: []byte(`{"action":"created"}`), MAC: "00ff", Accepted: clk.now(), AcceptedBy: "replica-a"}
	ja, err := a.Accept(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Accept(ctx, rec); !errors.Is(err, jobs.ErrExists) {
		t.Fatalf("the same delivery accepted twice: %v", err)
	}
	if err := ja.SetStep(ctx, "apply env:acme/infra:prod", func(s *jobs.Step) { s.CheckRun = 77 }); err != nil {
		t.Fatal(err)
	}
	clk.advance(50 * time.Second)
	if err := ja.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	clk.advance(50 * time.Second) // 100s after accepting, 50s after the renewal
	if got, _, err := b.TakeOrphans(ctx, 10, none); err != nil || len(got) != 0 {
		t.Fatalf("a renewed job was taken over: %v, %v", got, err)
	}

	clk.advance(11 * time.Second) // the worker died: no renewal for over a minute
	got, bad, err := b.TakeOrphans(ctx, 10, none)
	if err != nil || len(bad) != 0 || len(got) != 1 {
		t.Fatalf("TakeOrphans = %v, %v, %v; want the one job", got, bad, err)
	}
	jb := got[0]
	r := jb.Record()
	if string(r.Body) != string(rec.Body) || r.MAC != "00ff" || r.Event != "issue_comment" || r.Takeovers != 1 ||
		r.Steps["apply env:acme/infra:prod"].CheckRun != 77 {
		t.Errorf("taken over record = %+v", r)
	}
	if err := ja.SetStep(ctx, "x", func(s *jobs.Step) { s.Done = true }); !errors.Is(err, jobs.ErrLost) {
		t.Errorf("the dead worker wrote its record after the takeover: %v", err)
	}
	if err := ja.Renew(ctx); !errors.Is(err, jobs.ErrLost) {
		t.Errorf("the dead worker renewed after the takeover: %v", err)
	}
	if got, _, _ := a.TakeOrphans(ctx, 10, none); len(got) != 0 {
		t.Errorf("a job held by b was taken again by a")
	}
	if err := jb.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if left, err := objs.ListObjects(ctx, ""); err != nil || len(left) != 0 {
		t.Errorf("after Finish the store holds %v (%v)", left, err)
	}
}

// TestOfferedWorkIsTakenOnce: offered work (no lease yet) is taken by
// exactly one of several replicas scanning at once, up to each one's
// limit, and offering the same ID again records nothing.
func TestOfferedWorkIsTakenOnce(t *testing.T) {
	ctx := t.Context()
	objs := s3Store(t)
	clk := &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	offerer := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: "leader", Now: clk.now})
	var ids []string
	for _, repo := range []string{"1", "2", "3", "4", "5", "6"} {
		id := "drift/20250601T120000Z/" + repo
		ids = append(ids, id)
		if ok, err := offerer.Offer(ctx, jobs.Record{ID: id, Event: "kyku/drift", Body: []byte(repo), Accepted: clk.now()}); err != nil || !ok {
			t.Fatalf("offer %s: %v %v", id, ok, err)
		}
	}
	if ok, err := offerer.Offer(ctx, jobs.Record{ID: ids[0], Event: "kyku/drift"}); err != nil || ok {
		t.Errorf("offered twice: %v %v", ok, err)
	}
	var mu sync.Mutex
	var takenIDs []string
	var wg sync.WaitGroup
	for _, holder := range []string{"r1", "r2", "r3"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: holder, Now: clk.now})
			for range 3 {
				got, _, err := s.TakeOrphans(ctx, 1, none)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				for _, j := range got {
					takenIDs = append(takenIDs, j.Record().ID)
					if j.Record().Takeovers != 0 {
						t.Errorf("offered work counted as a takeover")
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(takenIDs)
	slices.Sort(ids)
	if !slices.Equal(takenIDs, ids) {
		t.Errorf("taken %v, want each of %v once", takenIDs, ids)
	}
}

// TestAnAbandonedJobIsTakenAtOnce: a replica that shuts down before a job
// ran gives its lease back, and the next scan takes it without waiting for
// the lease to expire. A record that is not a job is reported, not run.
func TestAnAbandonedJobIsTakenAtOnce(t *testing.T) {
	ctx := t.Context()
	objs := s3Store(t)
	clk := &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	a := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: "a", Now: clk.now})
	b := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: "b", Now: clk.now})
	j, err := a.Accept(ctx, jobs.Record{ID: "d-1", Event: "pull_request", Body: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Abandon(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := objs.CreateObject(ctx, jobs.Key("forged"), []byte(`{"id":"other"}`)); err != nil {
		t.Fatal(err)
	}
	got, bad, err := b.TakeOrphans(ctx, 10, none)
	if err != nil || len(got) != 1 || got[0].Record().ID != "d-1" {
		t.Fatalf("TakeOrphans = %v, %v", got, err)
	}
	if len(bad) != 1 || !errors.Is(bad[0].Err, jobs.ErrUnsigned) {
		t.Fatalf("bad = %v, want the forged record, unsigned", bad)
	}
	if err := bad[0].Job.Finish(ctx); err != nil {
		t.Fatal(err)
	}
}
