package s3_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/statemgr/faulttest"
	s3b "github.com/kyku/action/internal/statemgr/s3"
)

// faultyProxy starts toxiproxy in front of the test server with
// faulttest.Toxics. It returns the proxy's endpoint.
func faultyProxy(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(server.endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + faulttest.Proxy(t, "s3", u.Host, faulttest.Toxics)
}

// countingClient is an S3 client through the proxy that opens a new
// connection for every request and counts them.
func countingClient(endpoint string, dials *atomic.Int64) *awss3.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, addr)
		},
	}
	return awss3.New(awss3.Options{
		Region: server.region, BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials:                credentials.NewStaticCredentialsProvider(server.access, server.secret, ""),
		HTTPClient:                 &http.Client{Transport: tr},
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
	})
}

// TestAppliesThroughFaultyNetwork runs applies through toxiproxy in front of
// the real S3 server: lost answers after successful writes, truncated
// answers, resets, stalls, latency. Every apply must succeed or fail with a
// message naming what failed; almost all must succeed; afterwards the state
// equals the simulated cloud, with no resource duplicated or orphaned, no
// backup written twice, no plan or audit record lost.
func TestAppliesThroughFaultyNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: skipped with -short")
	}
	bucket := newBucket(t)
	proxyURL := faultyProxy(t)
	var dials atomic.Int64
	var retried sync.Map // kind → *atomic.Int64
	onRetry := func(op string, err error) {
		v, _ := retried.LoadOrStore(faultKind(err), new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	cfgS3 := s3b.Config{Bucket: bucket, Prefix: "fault", Region: server.region, Endpoint: proxyURL, UsePathStyle: true, BackupRetention: 5}
	opts := s3b.Options{
		LockTimeout: 40 * time.Second, StaleAfter: 8 * time.Second, Heartbeat: 2 * time.Second, PollInterval: 100 * time.Millisecond,
		RetryBudget: 20 * time.Second, AttemptTimeout: 1500 * time.Millisecond, RetryBase: 20 * time.Millisecond, OnRetry: onRetry,
	}
	faulty, err := s3b.NewWithClient(countingClient(proxyURL, &dials), cfgS3, "prod", opts)
	if err != nil {
		t.Fatal(err)
	}
	const applies = 16
	r := faulttest.Applies(t, faulty, applies, "s3://"+bucket+"/fault/", nil)
	var kinds []string
	total := int64(0)
	retried.Range(func(k, v any) bool {
		n := v.(*atomic.Int64).Load()
		total += n
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		return true
	})
	sort.Strings(kinds)
	t.Logf("%d applies in %s: %d succeeded; %d connections, %d faults retried (%s)",
		applies, r.Elapsed.Round(time.Millisecond), applies-r.Failed(), dials.Load(), total, strings.Join(kinds, ", "))
	if total < applies {
		t.Errorf("only %d faults met in %d applies: the proxy is not injecting faults", total, applies)
	}
	if n := r.Failed(); n > applies/8 {
		t.Errorf("%d of %d applies failed; want almost all to ride out the faults", n, applies)
	}

	// Afterwards, on a clean connection: the state (with any journal left by
	// a failed apply) is the cloud, one object per resource.
	clean := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "fault", BackupRetention: 5}, "prod", s3b.Options{StaleAfter: 8 * time.Second})
	r.CheckStore(t, clean)
	// The last configuration, applied on a clean connection, changes
	// nothing that the state does not already know about.
	r.FinalApply(t, clean)
	if keys := rawKeys(t, bucket); hasPrefix(keys, "fault/state.prod.json.journal/") || hasPrefix(keys, "fault/state.prod.json.lock") {
		t.Errorf("after the final apply the journal or the lock is left: %v", keys)
	}
}

func hasPrefix(keys []string, p string) bool {
	for _, k := range keys {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// faultKind names a transient error for the test's tally.
func faultKind(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded), strings.Contains(msg, "deadline exceeded"), strings.Contains(msg, "timeout"):
		return "stall"
	case strings.Contains(msg, "reset"):
		return "reset"
	case strings.Contains(msg, "EOF"), strings.Contains(msg, "got ") && strings.Contains(msg, " bytes"):
		return "lost-or-truncated"
	}
	return "other"
}
