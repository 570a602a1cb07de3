package gcs_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr/faulttest"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
)

// faultTally counts what the client met on the wire: connections, and
// requests that failed or whose answer body broke off.
type faultTally struct {
	dials, failed atomic.Int64
}

type tallyTransport struct {
	base  http.RoundTripper
	tally *faultTally
}

func (tr tallyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := tr.base.RoundTrip(req)
	if err != nil {
		tr.tally.failed.Add(1)
		return nil, err
	}
	resp.Body = &tallyBody{ReadCloser: resp.Body, tally: tr.tally}
	return resp, nil
}

type tallyBody struct {
	io.ReadCloser
	tally  *faultTally
	failed bool
}

func (b *tallyBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && !b.failed {
		b.failed = true
		b.tally.failed.Add(1)
	}
	return n, err
}

// faultyClient is a storage client for the emulator at host whose every
// connection goes to the proxy at via instead (the requests still name the
// emulator's host, which it needs to route reads); it opens a new
// connection for every request and counts what went wrong.
func faultyClient(t *testing.T, host, via string, tally *faultTally) *gcs.Client {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			tally.dials.Add(1)
			return d.DialContext(ctx, network, via)
		},
	}
	return &gcs.Client{Endpoint: "http://" + host, HTTP: &http.Client{Transport: tallyTransport{base: tr, tally: tally}}}
}

// TestAppliesThroughFaultyNetwork runs applies through toxiproxy in front of
// the GCS emulator: lost answers after successful writes, truncated
// answers, resets, stalls, latency, answers in slices. Every apply must
// succeed or fail with a message naming what failed; almost all must
// succeed; afterwards the state equals the simulated cloud, with no
// resource duplicated or orphaned, no backup written twice, no plan or
// audit record lost, and no lock or journal left behind.
func TestAppliesThroughFaultyNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: skipped with -short")
	}
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	var tally faultTally
	var retried atomic.Int64
	client := faultyClient(t, srv.Host, faulttest.Proxy(t, "gcs", srv.Host, faulttest.Toxics), &tally)
	cfgGCS := gcs.Config{Bucket: bucket, Prefix: "fault", BackupRetention: 5}
	opts := gcs.Options{
		LockTimeout: 40 * time.Second, StaleAfter: 8 * time.Second, Heartbeat: 2 * time.Second, PollInterval: 100 * time.Millisecond,
		RetryBudget: 20 * time.Second, AttemptTimeout: time.Second, RetryBase: 20 * time.Millisecond,
		OnRetry: func(string, error) { retried.Add(1) },
	}
	faulty, err := gcs.NewWithClient(client, cfgGCS, "prod", opts)
	if err != nil {
		t.Fatal(err)
	}
	const applies = 16
	r := faulttest.Applies(t, faulty, applies, "gs://"+bucket+"/fault/", nil)
	failed := r.Failed()
	t.Logf("%d applies in %s: %d succeeded; %d connections, %d met a fault on the wire, %d attempts retried",
		applies, r.Elapsed.Round(time.Millisecond), applies-failed, tally.dials.Load(), tally.failed.Load(), retried.Load())
	if n := tally.failed.Load(); n < applies {
		t.Errorf("only %d requests met a fault in %d applies: the proxy is not injecting faults", n, applies)
	}
	if failed > applies/8 {
		t.Errorf("%d of %d applies failed; want almost all to ride out the faults", failed, applies)
	}
	if len(r.Failures) > failed {
		t.Errorf("%d plan or audit writes failed; want every one to ride out the faults", len(r.Failures)-failed)
	}

	// Afterwards, on a clean connection: the state (with any journal left by
	// a failed apply) is the cloud, one object per resource.
	clean := newBackend(t, srv, cfgGCS, "prod", gcs.Options{StaleAfter: 8 * time.Second})
	r.CheckStore(t, clean)
	if keys := srv.Objects(t, bucket, "fault/state.prod.json.lock"); len(keys) != 0 {
		t.Errorf("after the faulty applies the lock is left: %v", keys)
	}
	// The last configuration, applied on a clean connection, changes
	// nothing that the state does not already know about.
	r.FinalApply(t, clean)
	for key := range srv.Objects(t, bucket, "fault/") {
		if strings.HasPrefix(key, "fault/state.prod.json.journal/") || strings.HasPrefix(key, "fault/state.prod.json.lock") {
			t.Errorf("after the final apply %s is left", key)
		}
	}
}
