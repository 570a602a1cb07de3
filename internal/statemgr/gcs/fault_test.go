package gcs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
	"google.golang.org/api/option"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
)

// faults are the toxics between Kyku and the emulator. Each is drawn
// independently for every connection (keep-alive is off, so every request
// is a connection of its own): about a third of all requests meet at least
// one fault.
var faults = []string{
	// Latency on half the answers.
	`{"name":"latency","type":"latency","stream":"downstream","toxicity":0.5,"attributes":{"latency":25,"jitter":20}}`,
	// The emulator did the work, the answer never arrives: lost answers
	// after successful writes (a create with ifGenerationMatch=0 that
	// landed meets 412 on its retry).
	`{"name":"lost-answer","type":"limit_data","stream":"downstream","toxicity":0.12,"attributes":{"bytes":0}}`,
	// The answer is cut off in the headers or the body.
	`{"name":"truncated","type":"limit_data","stream":"downstream","toxicity":0.08,"attributes":{"bytes":200}}`,
	// Reset before the request reaches the emulator...
	`{"name":"reset-early","type":"reset_peer","stream":"upstream","toxicity":0.05,"attributes":{"timeout":0}}`,
	// ... and while the answer is on its way.
	`{"name":"reset-late","type":"reset_peer","stream":"downstream","toxicity":0.05,"attributes":{"timeout":15}}`,
	// A stall: the request goes nowhere, nothing comes back, the connection
	// stays open (until the attempt times out).
	`{"name":"stall","type":"timeout","stream":"upstream","toxicity":0.04,"attributes":{"timeout":0}}`,
	// The answer dribbles in small pieces.
	`{"name":"slicer","type":"slicer","stream":"downstream","toxicity":0.2,"attributes":{"average_size":64,"size_variation":32,"delay":500}}`,
}

// faultyProxy starts toxiproxy in this process in front of upstream
// (host:port), with the faults above, and returns the proxy's host:port.
func faultyProxy(t *testing.T, upstream string) string {
	t.Helper()
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	proxy := toxiproxy.NewProxy(api, "gcs", "127.0.0.1:0", upstream)
	if err := proxy.Start(); err != nil {
		t.Fatalf("start toxiproxy: %v", err)
	}
	t.Cleanup(proxy.Stop)
	for _, f := range faults {
		if _, err := proxy.Toxics.AddToxicJson(strings.NewReader(f)); err != nil {
			t.Fatalf("add toxic %s: %v", f, err)
		}
	}
	return proxy.Listen
}

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
func faultyClient(t *testing.T, host, via string, tally *faultTally) *storage.Client {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			tally.dials.Add(1)
			return d.DialContext(ctx, network, via)
		},
	}
	c, err := storage.NewClient(context.Background(),
		option.WithEndpoint("http://"+host+"/storage/v1/"),
		option.WithHTTPClient(&http.Client{Transport: tallyTransport{base: tr, tally: tally}}),
		option.WithoutAuthentication())
	if err != nil {
		t.Fatalf("storage client through the proxy: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// faultConfig is apply i's configuration: a network, a database whose size
// flips every other apply, and 2–5 keys whose contents change every third
// apply (an immutable property: replaced). So applies create, update,
// replace and delete.
func faultConfig(t *testing.T, i int) *config.Config {
	t.Helper()
	var b strings.Builder
	b.WriteString("provider: sim\nresources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n")
	size := []string{"small", "medium"}[i%2]
	fmt.Fprintf(&b, "  db:\n    type: Database\n    properties: { network: \"${net}\", engine: postgres, size: %s }\n", size)
	for k := range 2 + i%4 {
		fmt.Fprintf(&b, "  key-%d:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 AAAA key-%d-v%d\" }\n", k, k, i/3)
	}
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(b.String())}})
	if err != nil {
		t.Fatalf("config %d: %v", i, err)
	}
	return cfg
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
	client := faultyClient(t, srv.Host, faultyProxy(t, srv.Host), &tally)
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

	const applies = 16
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	var failures []string
	objects := map[string][]byte{}
	start := time.Now()
	for i := range applies {
		res, err := eng.Apply(ctx, faultConfig(t, i), engine.ApplyOptions{AutoApprove: true}, nil)
		if err == nil && res != nil {
			err = res.Err()
		}
		if err != nil {
			failures = append(failures, fmt.Sprintf("apply %d: %v", i, err))
			if !strings.Contains(err.Error(), "gs://"+bucket+"/fault/") {
				t.Errorf("apply %d failed with a message that does not name the object: %v", i, err)
			}
			continue
		}
		// A saved plan and an audit record per apply (unconditional
		// writes), through the same faults.
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
	failed := countApplyFailures(failures)
	t.Logf("%d applies in %s: %d succeeded; %d connections, %d met a fault on the wire, %d attempts retried",
		applies, elapsed.Round(time.Millisecond), applies-failed, tally.dials.Load(), tally.failed.Load(), retried.Load())
	for _, f := range failures {
		t.Logf("failure: %s", f)
	}
	if n := tally.failed.Load(); n < applies {
		t.Errorf("only %d requests met a fault in %d applies: the proxy is not injecting faults", n, applies)
	}
	if failed > applies/8 {
		t.Errorf("%d of %d applies failed; want almost all to ride out the faults", failed, applies)
	}
	if len(failures) > failed {
		t.Errorf("%d plan or audit writes failed; want every one to ride out the faults", len(failures)-failed)
	}

	// Afterwards, on a clean connection: the state (with any journal left by
	// a failed apply) is the cloud, one object per resource.
	clean := newBackend(t, srv, cfgGCS, "prod", gcs.Options{StaleAfter: 8 * time.Second})
	checkStateIsCloud(t, clean, simDir)
	for key, want := range objects {
		got, err := clean.GetObject(context.Background(), key)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("object %s = %q, %v; want %q", key, got, err, want)
		}
	}
	if failed == 0 {
		// (A failed apply leaves the state as it was: the next apply backs
		// up the same state again, rightly.)
		checkNoDuplicateBackups(t, clean)
	}
	if keys := srv.Objects(t, bucket, "fault/state.prod.json.lock"); len(keys) != 0 {
		t.Errorf("after the faulty applies the lock is left: %v", keys)
	}
	// The last configuration, applied on a clean connection, changes
	// nothing that the state does not already know about.
	cleanEng := engine.New(cloud, clean, engine.Options{Env: "prod", DeployPrefix: "fault", Lock: statemgr.LockInfo{Who: "fault-test@localhost"}})
	res, err := cleanEng.Apply(context.Background(), faultConfig(t, applies-1), engine.ApplyOptions{AutoApprove: true}, nil)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatalf("final clean apply: %v", err)
	}
	checkStateIsCloud(t, clean, simDir)
	for key := range srv.Objects(t, bucket, "fault/") {
		if strings.HasPrefix(key, "fault/state.prod.json.journal/") || strings.HasPrefix(key, "fault/state.prod.json.lock") {
			t.Errorf("after the final apply %s is left", key)
		}
	}
}

func countApplyFailures(failures []string) int {
	n := 0
	for _, f := range failures {
		if strings.HasPrefix(f, "apply ") {
			n++
		}
	}
	return n
}

// checkStateIsCloud compares the stored state, with its journal folded in,
// to the sim's objects: the same set of type/cloud name/ID, each once.
func checkStateIsCloud(t *testing.T, b *gcs.Backend, simDir string) {
	t.Helper()
	ctx := context.Background()
	st, err := b.Read(ctx)
	if err != nil || st == nil {
		t.Fatalf("read state: %v, %v", st, err)
	}
	entries, err := b.Entries(ctx)
	if err != nil {
		t.Fatalf("read journal: %v", err)
	}
	state.Fold(st, entries)
	var inState []string
	for _, r := range st.Resources {
		inState = append(inState, r.Type+"/"+r.CloudName+"#"+r.ProviderID)
	}
	sort.Strings(inState)
	inCloud := simObjects(t, simDir)
	if strings.Join(inState, "\n") != strings.Join(inCloud, "\n") {
		t.Errorf("state and cloud differ:\nstate: %v\ncloud: %v", inState, inCloud)
	}
	seen := map[string]bool{}
	for _, o := range inCloud {
		name := o[:strings.Index(o, "#")]
		if seen[name] {
			t.Errorf("cloud holds %s twice", name)
		}
		seen[name] = true
	}
}

// checkNoDuplicateBackups reports two backups with the same content: a
// retried backup written twice.
func checkNoDuplicateBackups(t *testing.T, b *gcs.Backend) {
	t.Helper()
	list, err := b.ListBackups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sums := map[[32]byte]string{}
	for _, bi := range list {
		f, err := b.ReadBackup(context.Background(), bi.Key)
		if err != nil {
			t.Fatalf("read backup %s: %v", bi.Key, err)
		}
		data, _ := state.Encode(f)
		sum := sha256.Sum256(data)
		if other, dup := sums[sum]; dup {
			t.Errorf("backups %s and %s hold the same state (serial %d): a retried backup was written twice", other, bi.Key, bi.Serial)
		}
		sums[sum] = bi.Key
	}
}

// simObjects lists the sim's objects as "Type/cloudName#id".
func simObjects(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var o struct{ ID, Type, CloudName string }
		if err := json.Unmarshal(data, &o); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, o.Type+"/"+o.CloudName+"#"+o.ID)
	}
	sort.Strings(out)
	return out
}
