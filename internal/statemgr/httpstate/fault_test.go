package httpstate_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/faulttest"
	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
)

// faults are the toxics between Kyku and the protocol server. Each is drawn
// independently for every connection (keep-alive is off, so every request
// is a connection of its own): about a third of all requests meet at least
// one fault.
var faults = []string{
	// Latency on half the answers.
	`{"name":"latency","type":"latency","stream":"downstream","toxicity":0.5,"attributes":{"latency":20,"jitter":15}}`,
	// The server did the work, the answer never arrives: lost answers after
	// successful writes, LOCKs and UNLOCKs.
	`{"name":"lost-answer","type":"limit_data","stream":"downstream","toxicity":0.12,"attributes":{"bytes":0}}`,
	// The answer is cut off in the headers or the body.
	`{"name":"truncated","type":"limit_data","stream":"downstream","toxicity":0.08,"attributes":{"bytes":120}}`,
	// Reset before the request reaches the server...
	`{"name":"reset-early","type":"reset_peer","stream":"upstream","toxicity":0.05,"attributes":{"timeout":0}}`,
	// ... and while the answer is on its way.
	`{"name":"reset-late","type":"reset_peer","stream":"downstream","toxicity":0.05,"attributes":{"timeout":10}}`,
	// A stall: the request goes nowhere, nothing comes back, the connection
	// stays open (until the attempt times out).
	`{"name":"stall","type":"timeout","stream":"upstream","toxicity":0.03,"attributes":{"timeout":0}}`,
	// The answer dribbles in small pieces.
	`{"name":"slicer","type":"slicer","stream":"downstream","toxicity":0.2,"attributes":{"average_size":256,"size_variation":128,"delay":200}}`,
}

// faultyProxy starts toxiproxy in this process in front of the protocol
// server, with the faults above, and returns the server's base URL through
// the proxy.
func faultyProxy(t *testing.T, srv *httpstatetest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + faulttest.Proxy(t, "httpstate", u.Host, faults) + u.Path
}

// faultTally counts the requests Kyku sent through the proxy and the
// faults it met, by kind, as the client sees them (a failed round trip or a
// failed read of the answer).
type faultTally struct {
	mu       sync.Mutex
	requests int
	kinds    map[string]int
}

func (f *faultTally) add(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.kinds == nil {
		f.kinds = map[string]int{}
	}
	f.kinds[faultKind(err)]++
}

func (f *faultTally) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var kinds []string
	for k, n := range f.kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	return strings.Join(kinds, ", ")
}

func (f *faultTally) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.kinds {
		n += c
	}
	return n
}

// faultKind names a transport error for the tally.
func faultKind(err error) string {
	msg := err.Error()
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout(),
		strings.Contains(msg, "Timeout"), strings.Contains(msg, "request canceled"):
		return "stall"
	case strings.Contains(msg, "reset"), strings.Contains(msg, "broken pipe"), strings.Contains(msg, "use of closed network connection"):
		return "reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), strings.Contains(msg, "EOF"),
		strings.Contains(msg, "malformed"):
		return "lost-or-truncated"
	}
	return "other: " + msg
}

// tallyTransport counts round trips and the errors of round trips and of
// reading their answers.
type tallyTransport struct {
	next  http.RoundTripper
	tally *faultTally
}

func (t *tallyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.tally.mu.Lock()
	t.tally.requests++
	t.tally.mu.Unlock()
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.tally.add(err)
		return nil, err
	}
	resp.Body = &tallyBody{ReadCloser: resp.Body, tally: t.tally}
	return resp, nil
}

type tallyBody struct {
	io.ReadCloser
	tally *faultTally
	once  sync.Once
}

func (b *tallyBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.once.Do(func() { b.tally.add(err) })
	}
	return n, err
}

// TestAppliesThroughFaultyNetwork runs applies through toxiproxy in front of
// the protocol server: lost answers after successful POSTs, LOCKs and
// UNLOCKs, truncated answers, resets, stalls, latency, answers in slices.
// Every apply must succeed or fail with a message naming the document;
// almost all must succeed; afterwards the state equals the simulated cloud,
// with no resource duplicated or orphaned, no backup written twice, no plan
// or audit record lost, and the lock released.
func TestAppliesThroughFaultyNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: skipped with -short")
	}
	srv := httpstatetest.New(t)
	const name = "fault"
	base := faultyProxy(t, srv)
	tally := &faultTally{}
	client := &http.Client{
		// Every request is a connection of its own, so each meets the
		// toxics afresh; an attempt that stalls is given up after 1 s.
		Transport: &tallyTransport{next: &http.Transport{DisableKeepAlives: true}, tally: tally},
		Timeout:   time.Second,
	}
	// retryMax 6 (waits 10–200 ms here): with the default 2 (Terraform's),
	// a link where a third of the requests fail loses about 5 applies in 12
	// (each with a clear message, nothing lost): see the README.
	faulty, err := httpstate.New(httpstate.Config{
		Address: base + name, LockAddress: base + name,
		RetryMax: 6, RetryWaitMin: 10 * time.Millisecond, RetryWaitMax: 200 * time.Millisecond,
		BackupRetention: 5,
	}, "", httpstate.Options{LockTimeout: 20 * time.Second, PollInterval: 50 * time.Millisecond, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	simDir := t.TempDir()
	cloud, err := sim.New(sim.Options{Dir: simDir})
	if err != nil {
		t.Fatal(err)
	}
	defer cloud.Close()
	eng := engine.New(cloud, faulty, engine.Options{
		Env: "prod", DeployPrefix: "fault", Parallelism: 4,
		RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond,
		Lock: statemgr.LockInfo{Who: "fault-test@localhost"},
	})

	const applies = 12
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	var failures []string
	objects := map[string][]byte{}
	start := time.Now()
	for i := range applies {
		res, err := eng.Apply(ctx, faulttest.Config(t, i), engine.ApplyOptions{AutoApprove: true}, nil)
		if err == nil && res != nil {
			err = res.Err()
		}
		if err != nil {
			failures = append(failures, fmt.Sprintf("apply %d: %v", i, err))
			if !strings.Contains(err.Error(), httpstatetest.BasePath+name) {
				t.Errorf("apply %d failed with a message that does not name the document: %v", i, err)
			}
			continue
		}
		if held := srv.Lock(name); held != nil {
			t.Errorf("after apply %d the lock is still held: %s", i, held)
		}
		// A saved plan and an audit record per apply, through the same
		// faults (each takes the lock for itself).
		for _, key := range []string{fmt.Sprintf("plans/prod/pr-%d.json", i), fmt.Sprintf("runs/prod/%03d.json", i)} {
			data := []byte(fmt.Sprintf(`{"apply":%d,"key":%q}`, i, key))
			if err := faulty.PutObject(ctx, key, data); err != nil {
				failures = append(failures, fmt.Sprintf("put %s: %v", key, err))
				continue
			}
			objects[key] = data
		}
	}
	elapsed := time.Since(start)
	tally.mu.Lock()
	requests := tally.requests
	tally.mu.Unlock()
	t.Logf("%d applies in %s: %d succeeded; %d requests, %d faults met (%s); server saw %d GET, %d POST, %d LOCK, %d UNLOCK",
		applies, elapsed.Round(time.Millisecond), applies-faulttest.CountApplyFailures(failures), requests, tally.total(), tally,
		srv.Requests("GET"), srv.Requests("POST"), srv.Requests("LOCK"), srv.Requests("UNLOCK"))
	for _, f := range failures {
		t.Logf("failure: %s", f)
	}
	if tally.total() < 2*applies {
		t.Errorf("only %d faults met in %d applies: the proxy is not injecting faults", tally.total(), applies)
	}
	if n := faulttest.CountApplyFailures(failures); n > applies/8 {
		t.Errorf("%d of %d applies failed; want almost all to ride out the faults", n, applies)
	}
	if held := srv.Lock(name); held != nil {
		t.Errorf("after the applies the lock is still held: %s", held)
	}

	// Afterwards, on a clean connection: the state (with any journal left by
	// a failed apply) is the cloud, one object per resource.
	clean, err := httpstate.New(httpstate.Config{Address: srv.URL + name, LockAddress: srv.URL + name, BackupRetention: 5},
		"", httpstate.Options{LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	faulttest.CheckStateIsCloud(t, clean, simDir)
	for key, want := range objects {
		got, err := clean.GetObject(context.Background(), key)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("object %s = %q, %v; want %q", key, got, err, want)
		}
	}
	if len(failures) == 0 {
		// (A failed apply leaves the state as it was: the next apply backs
		// up the same state again, rightly.)
		faulttest.CheckNoDuplicateBackups(t, clean)
	}
	// The last configuration, applied on a clean connection, changes
	// nothing that the state does not already know about.
	cleanEng := engine.New(cloud, clean, engine.Options{Env: "prod", DeployPrefix: "fault", Lock: statemgr.LockInfo{Who: "fault-test@localhost"}})
	res, err := cleanEng.Apply(context.Background(), faulttest.Config(t, applies-1), engine.ApplyOptions{AutoApprove: true}, nil)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatalf("final clean apply: %v", err)
	}
	faulttest.CheckStateIsCloud(t, clean, simDir)
	if es, err := clean.Entries(context.Background()); err != nil || len(es) != 0 {
		t.Errorf("after the final apply the journal holds %d entries (%v)", len(es), err)
	}
	if held := srv.Lock(name); held != nil {
		t.Errorf("after the final apply the lock is still held: %s", held)
	}
}
