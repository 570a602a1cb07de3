package intake_test

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/bot/intake"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
)

var secret = []byte("webhook-s3cr3t")

func sign(body []byte) string { return "sha256=" + hex.EncodeToString(jobs.MAC(secret, body)) }

// runner is the job runner: it records what it accepted, or answers err.
type runner struct {
	mu       sync.Mutex
	err      error
	accepted []jobs.Record
}

func (r *runner) Accept(_ context.Context, rec jobs.Record, job queue.Job) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	if job.Run == nil {
		return errors.New("no job")
	}
	r.accepted = append(r.accepted, rec)
	return nil
}

func (r *runner) Depth() int { return 0 }

// route routes push and ignores ping; a body "bad" is an invalid payload.
func route(event string, body []byte) (queue.Job, string, error) {
	switch {
	case string(body) == "bad":
		return queue.Job{}, "", errors.New("decode push payload: unexpected end of JSON input")
	case event == "ping":
		return queue.Job{}, "ping", nil
	}
	return queue.Job{Kind: event, Key: "k", Run: func(context.Context) (string, error) { return "", nil }}, "", nil
}

// reads is a body that records whether it was read.
type reads struct {
	io.Reader
	read bool
}

func (r *reads) Read(p []byte) (int, error) {
	r.read = true
	return r.Reader.Read(p)
}

// delivery is one POST /webhook.
type delivery struct {
	event, id, sig string // sig "" signs the body; "-" sends none
	body           string
	length         int64 // declared Content-Length, when not 0
}

func (d delivery) request() (*http.Request, *reads) {
	body := &reads{Reader: strings.NewReader(d.body)}
	req := httptest.NewRequest("POST", "/webhook", body)
	req.Header.Set("X-GitHub-Event", d.event)
	if d.id != "" {
		req.Header.Set("X-GitHub-Delivery", d.id)
	}
	switch d.sig {
	case "":
		req.Header.Set("X-Hub-Signature-256", sign([]byte(d.body)))
	case "-":
	default:
		req.Header.Set("X-Hub-Signature-256", d.sig)
	}
	if d.length != 0 {
		req.ContentLength = d.length
	}
	return req, body
}

// counts collects the results counted per event.
type counts struct {
	mu  sync.Mutex
	got []string
}

func (c *counts) add(event, result string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, event+" "+result)
}

// The intake alone: every test runs in a synctest bubble, which fails it
// if a goroutine is left behind once the intake is shut down.
func TestIntake(t *testing.T) {
	push := `{"ref":"refs/heads/main"}`
	for _, tc := range []struct {
		name       string
		before     []delivery // delivered first, answers not checked
		runnerErr  error
		d          delivery
		wantCode   int
		wantMsg    string
		wantCount  string
		unread     bool // the body must not have been read
		wantQueued int
	}{
		{name: "signed delivery queued", d: delivery{event: "push", id: "d-1", body: push},
			wantCode: 202, wantMsg: "queued", wantCount: "push queued", wantQueued: 1},
		{name: "no signature: refused before the body is read", d: delivery{event: "push", id: "d-1", body: push, sig: "-"},
			wantCode: 401, wantMsg: "invalid signature", wantCount: "push bad_signature", unread: true},
		{name: "malformed signature", d: delivery{event: "push", id: "d-1", body: push, sig: "sha256=xyz"},
			wantCode: 401, wantMsg: "invalid signature", wantCount: "push bad_signature", unread: true},
		{name: "signature of another body", d: delivery{event: "push", id: "d-1", body: push, sig: sign([]byte("{}"))},
			wantCode: 401, wantMsg: "invalid signature", wantCount: "push bad_signature"},
		{name: "declared body too large: refused before it is read", d: delivery{event: "push", id: "d-1", body: push, length: intake.MaxBody + 1},
			wantCode: 413, wantMsg: "body too large", wantCount: "push too_large", unread: true},
		{name: "unknown event header: labelled other", d: delivery{event: "x-evil", id: "d-1", body: push, sig: "-"},
			wantCode: 401, wantMsg: "invalid signature", wantCount: "other bad_signature", unread: true},
		{name: "no delivery ID", d: delivery{event: "push", body: push},
			wantCode: 400, wantMsg: "missing X-GitHub-Event or X-GitHub-Delivery", wantCount: "push bad_request"},
		{name: "invalid payload", d: delivery{event: "push", id: "d-1", body: "bad"},
			wantCode: 400, wantMsg: "invalid payload", wantCount: "push bad_payload"},
		{name: "ignored", d: delivery{event: "ping", id: "d-1", body: push},
			wantCode: 200, wantMsg: "ignored: ping", wantCount: "ping ignored"},
		{name: "duplicate delivery ID", before: []delivery{{event: "push", id: "d-1", body: push}},
			d:        delivery{event: "push", id: "d-1", body: `{"other":1}`},
			wantCode: 200, wantMsg: "duplicate delivery", wantCount: "push duplicate", wantQueued: 1},
		{name: "signed body replayed under another ID", before: []delivery{{event: "push", id: "d-1", body: push}},
			d:        delivery{event: "push", id: "d-2", body: push},
			wantCode: 200, wantMsg: "replayed body: a delivery with this signed body already ran", wantCount: "push replay", wantQueued: 1},
		{name: "job recorded already (another replica took it)", runnerErr: jobs.ErrExists, d: delivery{event: "push", id: "d-1", body: push},
			wantCode: 200, wantMsg: "duplicate delivery", wantCount: "push duplicate"},
		{name: "queue full", runnerErr: queue.ErrFull, d: delivery{event: "push", id: "d-1", body: push},
			wantCode: 503, wantMsg: "queue full, redeliver later", wantCount: "push queue_full"},
		{name: "queue closed", runnerErr: queue.ErrClosed, d: delivery{event: "push", id: "d-1", body: push},
			wantCode: 503, wantMsg: "shutting down", wantCount: "push draining"},
		{name: "store cannot record the job", runnerErr: errors.New("503 SlowDown"), d: delivery{event: "push", id: "d-1", body: push},
			wantCode: 503, wantMsg: "cannot record the job, redeliver later", wantCount: "push store_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, c := &runner{}, &counts{}
				in := intake.New(intake.Options{Secret: secret, Route: route, Jobs: r, Replica: "r1", Count: c.add})
				done := make(chan error, 1)
				go func() { done <- in.Run(t.Context()) }()
				for _, d := range tc.before {
					req, _ := d.request()
					in.ServeHTTP(httptest.NewRecorder(), req)
				}
				r.err = tc.runnerErr
				c.got = nil
				req, body := tc.d.request()
				rec := httptest.NewRecorder()
				in.ServeHTTP(rec, req)
				if got := strings.TrimSpace(rec.Body.String()); rec.Code != tc.wantCode || got != tc.wantMsg {
					t.Errorf("answer %d %q, want %d %q", rec.Code, got, tc.wantCode, tc.wantMsg)
				}
				if diff := cmp.Diff([]string{tc.wantCount}, c.got); diff != "" {
					t.Errorf("counted (-want +got):\n%s", diff)
				}
				if tc.unread && body.read {
					t.Error("the body was read")
				}
				if len(r.accepted) != tc.wantQueued {
					t.Errorf("%d jobs accepted, want %d", len(r.accepted), tc.wantQueued)
				}
				if err := in.Shutdown(t.Context()); err != nil {
					t.Fatal(err)
				}
				if err := <-done; err != nil {
					t.Errorf("Run = %v, want nil after Shutdown", err)
				}
			})
		})
	}
}

// TestAcceptedDeliveryIsRecordedSigned: what the runner records of a
// delivery: its ID, event, signed body and GitHub's signature, who took it
// and when.
func TestAcceptedDeliveryIsRecordedSigned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &runner{}
		in := intake.New(intake.Options{Secret: secret, Route: route, Jobs: r, Replica: "r1"})
		body := []byte(`{"ref":"refs/heads/main"}`)
		req, _ := delivery{event: "push", id: "d-1", body: string(body)}.request()
		in.ServeHTTP(httptest.NewRecorder(), req)
		want := []jobs.Record{{ID: "d-1", Event: "push", Body: body, MAC: strings.TrimPrefix(sign(body), "sha256="), Accepted: time.Now().UTC(), AcceptedBy: "r1"}}
		if diff := cmp.Diff(want, r.accepted); diff != "" {
			t.Errorf("recorded (-want +got):\n%s", diff)
		}
		if !r.accepted[0].Signed(secret) {
			t.Error("the record does not carry its body's MAC")
		}
	})
}

// TestRefusedDeliveryIsTakenWhenRedelivered: a delivery refused because
// the queue was full or the store could not record it is forgotten, so
// GitHub's redelivery of it is taken.
func TestRefusedDeliveryIsTakenWhenRedelivered(t *testing.T) {
	for _, refused := range []error{queue.ErrFull, errors.New("503 SlowDown")} {
		t.Run(refused.Error(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &runner{err: refused}
				in := intake.New(intake.Options{Secret: secret, Route: route, Jobs: r})
				d := delivery{event: "push", id: "d-1", body: `{"ref":"refs/heads/main"}`}
				req, _ := d.request()
				in.ServeHTTP(httptest.NewRecorder(), req)
				r.err = nil
				req, _ = d.request()
				rec := httptest.NewRecorder()
				in.ServeHTTP(rec, req)
				if rec.Code != 202 || len(r.accepted) != 1 {
					t.Errorf("redelivery: %d, %d accepted; want 202 and the job", rec.Code, len(r.accepted))
				}
			})
		})
	}
}

// TestIntakeStops: after Shutdown, or once Run's context ended, signed
// deliveries are answered 503 (GitHub redelivers them to a replica that
// takes them), and nothing is queued.
func TestIntakeStops(t *testing.T) {
	for _, how := range []string{"shutdown", "run's context"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &runner{}
				in := intake.New(intake.Options{Secret: secret, Route: route, Jobs: r})
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() { done <- in.Run(ctx) }()
				synctest.Wait()
				if in.Draining() {
					t.Fatal("draining before it stopped")
				}
				if how == "shutdown" {
					if err := in.Shutdown(t.Context()); err != nil {
						t.Fatal(err)
					}
				} else {
					cancel()
				}
				err := <-done
				cancel()
				if how == "shutdown" && err != nil || how != "shutdown" && !errors.Is(err, context.Canceled) {
					t.Errorf("Run = %v", err)
				}
				req, _ := delivery{event: "push", id: "d-1", body: "{}"}.request()
				rec := httptest.NewRecorder()
				in.ServeHTTP(rec, req)
				if rec.Code != 503 || !in.Draining() || len(r.accepted) != 0 {
					t.Errorf("after it stopped: %d, draining %v, %d accepted; want 503, draining, none", rec.Code, in.Draining(), len(r.accepted))
				}
			})
		})
	}
}

// FuzzLabel: whatever the (unsigned) event header says, the metrics label
// is one of the events the bot knows or "other", so headers cannot grow
// the metrics.
func FuzzLabel(f *testing.F) {
	for _, seed := range []string{"push", "pull_request", "x-evil-" + strings.Repeat("z", 100), "", "other"} {
		f.Add(seed)
	}
	known := map[string]bool{}
	for _, e := range []string{"pull_request", "issue_comment", "repository_dispatch", "ping", "push", "pull_request_review",
		"installation", "installation_repositories", "check_run", "check_suite", "workflow_run"} {
		known[e] = true
	}
	f.Fuzz(func(t *testing.T, event string) {
		if l := intake.Label(event); l != "other" && (!known[l] || l != event) {
			t.Fatalf("label %q of %q outside the closed set", l, event)
		}
	})
}
