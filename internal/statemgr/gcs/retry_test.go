package gcs_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
)

// A fault a front does to one request.
type fault int

const (
	pass  fault = iota
	drop        // the connection closes before the request reaches the emulator
	lose        // the emulator does the work, the answer never arrives
	stall       // nothing happens until the client gives up
)

// front stands between the client and the emulator and does to each
// request what decide says (decide is told how many requests like it came
// before).
type front struct {
	mu     sync.Mutex
	seen   map[string]int
	decide func(r *http.Request, n int) fault
}

func kind(r *http.Request) string {
	if strings.Contains(r.URL.Path, "/upload/") {
		return "upload"
	}
	return r.Method
}

// frontedBackend returns a backend on a fresh bucket whose every request
// goes through a front that applies decide.
func frontedBackend(t *testing.T, decide func(r *http.Request, n int) fault, opts gcs.Options) (*gcs.Backend, *gcstest.Server, string) {
	t.Helper()
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	f := &front{seen: map[string]int{}, decide: decide}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: srv.Host})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		k := kind(r)
		n := f.seen[k]
		f.seen[k]++
		f.mu.Unlock()
		switch f.decide(r, n) {
		case drop:
			closeConn(t, w)
		case lose:
			rp.ServeHTTP(httptest.NewRecorder(), r)
			closeConn(t, w)
		case stall:
			<-r.Context().Done()
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	via := strings.TrimPrefix(hs.URL, "http://")
	d := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, via)
	}}
	c := &gcs.Client{Endpoint: "http://" + srv.Host, HTTP: &http.Client{Transport: tr}}
	if opts.AttemptTimeout == 0 {
		opts.AttemptTimeout = 2 * time.Second
	}
	opts.RetryBase = time.Millisecond
	b, err := gcs.NewWithClient(c, gcs.Config{Bucket: bucket, Prefix: "p"}, "prod", opts)
	if err != nil {
		t.Fatal(err)
	}
	return b, srv, bucket
}

func closeConn(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// first applies f to the first request of kind k (upload, GET, DELETE).
func first(k string, f fault) func(*http.Request, int) fault {
	return func(r *http.Request, n int) fault {
		if kind(r) == k && n == 0 {
			return f
		}
		return pass
	}
}

// Defect: every upload was one request (ChunkSize 0), which the library
// never retries, so one reset failed any write.
func TestWriteRetriedAfterReset(t *testing.T) {
	b, _, _ := frontedBackend(t, first("upload", drop), gcs.Options{})
	if err := b.PutObject(t.Context(), "plans/prod/pr-1.json", []byte(`{"n":1}`)); err != nil {
		t.Fatalf("put after one reset: %v", err)
	}
	got, err := b.GetObject(t.Context(), "plans/prod/pr-1.json")
	if err != nil || string(got) != `{"n":1}` {
		t.Fatalf("stored %q, %v", got, err)
	}
}

// Defect: a lock create (ifGenerationMatch=0) whose answer was lost was
// never retried; now the retry meets 412 and Kyku recognises its own lock.
func TestLockCreateWithLostAnswerIsOurs(t *testing.T) {
	b, srv, bucket := frontedBackend(t, first("upload", lose), gcs.Options{LockTimeout: 5 * time.Second})
	ctx := t.Context()
	l, err := b.Lock(ctx, statemgr.LockInfo{Who: "me"})
	if err != nil {
		t.Fatalf("lock after a lost answer: %v", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("unlock: %v", err)
	}
	if left := srv.Objects(t, bucket, "p/"); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// Defect: a journal entry (ifGenerationMatch=0) whose answer was lost
// failed the apply; the retry's 412 is our own entry.
func TestJournalAppendWithLostAnswerIsOurs(t *testing.T) {
	b, _, _ := frontedBackend(t, first("upload", lose), gcs.Options{})
	ctx := t.Context()
	e := state.Entry{Seq: 1, Lineage: "l", Op: state.OpDelete, Name: "db"}
	if err := b.Append(ctx, e); err != nil {
		t.Fatalf("append after a lost answer: %v", err)
	}
	got, err := b.Entries(ctx)
	if err != nil || len(got) != 1 || got[0].Name != "db" {
		t.Fatalf("journal %v, %v; want the one entry", got, err)
	}
}

// Defect: unconditional deletes (clearing the journal, pruning backups)
// were not retried by the library's policy; a lost answer failed the apply.
func TestClearJournalRetriedAfterLostDeleteAnswer(t *testing.T) {
	b, _, _ := frontedBackend(t, first("DELETE", lose), gcs.Options{})
	ctx := t.Context()
	for seq := range int64(3) {
		if err := b.Append(ctx, state.Entry{Seq: seq, Lineage: "l", Op: state.OpDelete, Name: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.ClearJournal(ctx); err != nil {
		t.Fatalf("clear journal after a lost answer: %v", err)
	}
	if got, err := b.Entries(ctx); err != nil || len(got) != 0 {
		t.Fatalf("journal %v, %v; want empty", got, err)
	}
}

// A lock delete whose answer was lost: the retry finds the generation gone
// (404), which is our own delete.
func TestUnlockWithLostDeleteAnswer(t *testing.T) {
	b, srv, bucket := frontedBackend(t, first("DELETE", lose), gcs.Options{})
	ctx := t.Context()
	l, err := b.Lock(ctx, statemgr.LockInfo{Who: "me"})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("unlock after a lost answer: %v", err)
	}
	if left := srv.Objects(t, bucket, "p/"); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// Defect: no attempt had a timeout of its own, so one stalled connection
// ate the whole operation's budget (2 minutes by default).
func TestStalledAttemptIsAbandoned(t *testing.T) {
	b, _, _ := frontedBackend(t, first("GET", stall), gcs.Options{RetryBudget: time.Minute, AttemptTimeout: 300 * time.Millisecond})
	start := time.Now()
	if _, err := b.Read(t.Context()); err != nil {
		t.Fatalf("read after a stall: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("read took %s: the stalled attempt was not abandoned after its 300ms", d)
	}
}

// When faults outlast the budget, the error says so and names the object.
func TestRetryBudgetErrorNamesObject(t *testing.T) {
	b, _, bucket := frontedBackend(t, func(*http.Request, int) fault { return drop },
		gcs.Options{RetryBudget: 300 * time.Millisecond, AttemptTimeout: 100 * time.Millisecond})
	err := b.PutObject(t.Context(), "runs/prod/001.json", []byte("{}"))
	var rb *gcs.RetryBudgetError
	if !errors.As(err, &rb) || !strings.Contains(err.Error(), "gs://"+bucket+"/p/runs/prod/001.json") || rb.Attempts < 2 {
		t.Fatalf("err = %v; want a RetryBudgetError naming the object after several attempts", err)
	}
}
