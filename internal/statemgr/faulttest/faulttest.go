// Package faulttest holds what the backends' fault tests share: toxiproxy
// started in the test process with a set of toxics in front of a storage
// server, and the checks that state equals the simulated cloud afterwards.
// Only tests import it.
package faulttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// Toxics are the faults between Kyku and a storage server. Each is drawn
// independently for every connection (keep-alive is off, so every request
// is a connection of its own): about a third of all requests meet at least
// one fault.
var Toxics = []string{
	// Latency on half the answers.
	`{"name":"latency","type":"latency","stream":"downstream","toxicity":0.5,"attributes":{"latency":25,"jitter":20}}`,
	// The server did the work, the answer never arrives: lost responses after
	// successful writes.
	`{"name":"lost-answer","type":"limit_data","stream":"downstream","toxicity":0.12,"attributes":{"bytes":0}}`,
	// The answer is cut off in the headers or the body.
	`{"name":"truncated","type":"limit_data","stream":"downstream","toxicity":0.08,"attributes":{"bytes":200}}`,
	// Reset before the request reaches the server...
	`{"name":"reset-early","type":"reset_peer","stream":"upstream","toxicity":0.05,"attributes":{"timeout":0}}`,
	// ... and while the answer is on its way.
	`{"name":"reset-late","type":"reset_peer","stream":"downstream","toxicity":0.05,"attributes":{"timeout":15}}`,
	// A stall: the request goes nowhere, nothing comes back, the connection
	// stays open (until the attempt times out).
	`{"name":"stall","type":"timeout","stream":"upstream","toxicity":0.04,"attributes":{"timeout":0}}`,
	// The answer dribbles in small pieces.
	`{"name":"slicer","type":"slicer","stream":"downstream","toxicity":0.2,"attributes":{"average_size":64,"size_variation":32,"delay":500}}`,
}

// Proxy starts toxiproxy in this process in front of upstream (host:port)
// with toxics (JSON, as toxiproxy's API takes them), stopped when t ends.
// It returns the proxy's host:port.
func Proxy(t *testing.T, name, upstream string, toxics []string) string {
	t.Helper()
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	proxy := toxiproxy.NewProxy(api, name, "127.0.0.1:0", upstream)
	if err := proxy.Start(); err != nil {
		t.Fatalf("start toxiproxy: %v", err)
	}
	t.Cleanup(proxy.Stop)
	for _, f := range toxics {
		if _, err := proxy.Toxics.AddToxicJson(strings.NewReader(f)); err != nil {
			t.Fatalf("add toxic %s: %v", f, err)
		}
	}
	return proxy.Listen
}

// Config is apply i's configuration: a network, a database whose size
// flips every other apply, and 2–5 keys whose contents change every third
// apply (an immutable property: replaced). So applies create, update,
// replace and delete.
func Config(t *testing.T, i int) *config.Config {
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

// CountApplyFailures counts the failures that are applies ("apply …"), not
// the plan or audit writes made beside them.
func CountApplyFailures(failures []string) int {
	n := 0
	for _, f := range failures {
		if strings.HasPrefix(f, "apply ") {
			n++
		}
	}
	return n
}

// CheckStateIsCloud compares the stored state, with its journal folded in,
// to the sim's objects: the same set of type/cloud name/ID, each once.
func CheckStateIsCloud(t *testing.T, b statemgr.Backend, simDir string) {
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
	inCloud := SimObjects(t, simDir)
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

// CheckNoDuplicateBackups reports two backups with the same content: a
// retried backup written twice.
func CheckNoDuplicateBackups(t *testing.T, b statemgr.Backend) {
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

// SimObjects lists the sim's objects as "Type/cloudName#id".
func SimObjects(t *testing.T, dir string) []string {
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

// Run is what Applies did: the simulated cloud, the failures ("apply i: …"
// and "put key: …") and the objects PutObject stored.
type Run struct {
	SimDir   string
	Cloud    *sim.Provider
	Failures []string
	Objects  map[string][]byte
	Elapsed  time.Duration
	applies  int
}

// Applies runs Config(t, 0) … Config(t, n-1) through faulty on a fresh
// simulated cloud (parallelism 4), each successful apply followed by after
// (when not nil) and by a saved plan and an audit record written with
// PutObject through the same faults. A failed apply's message must name
// where (the state's address).
func Applies(t *testing.T, faulty statemgr.Backend, n int, where string, after func(i int)) *Run {
	t.Helper()
	r := &Run{SimDir: t.TempDir(), Objects: map[string][]byte{}, applies: n}
	cloud, err := sim.New(sim.Options{Dir: r.SimDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cloud.Close() })
	r.Cloud = cloud
	eng := engine.New(cloud, faulty, engine.Options{
		Env: "prod", DeployPrefix: "fault", Parallelism: 4,
		RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond,
		Lock: statemgr.LockInfo{Who: "fault-test@localhost"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	start := time.Now()
	for i := range n {
		res, err := eng.Apply(ctx, Config(t, i), engine.ApplyOptions{AutoApprove: true}, nil)
		if err == nil && res != nil {
			err = res.Err()
		}
		if err != nil {
			r.Failures = append(r.Failures, fmt.Sprintf("apply %d: %v", i, err))
			if !strings.Contains(err.Error(), where) {
				t.Errorf("apply %d failed with a message that does not name %s: %v", i, where, err)
			}
			continue
		}
		if after != nil {
			after(i)
		}
		for _, key := range []string{fmt.Sprintf("plans/prod/pr-%d.json", i), fmt.Sprintf("runs/prod/%03d.json", i)} {
			data := []byte(fmt.Sprintf(`{"apply":%d,"key":%q}`, i, key))
			if err := faulty.PutObject(ctx, key, data); err != nil {
				r.Failures = append(r.Failures, fmt.Sprintf("put %s: %v", key, err))
				continue
			}
			r.Objects[key] = data
		}
	}
	r.Elapsed = time.Since(start)
	for _, f := range r.Failures {
		t.Logf("failure: %s", f)
	}
	return r
}

// Failed is how many applies failed.
func (r *Run) Failed() int { return CountApplyFailures(r.Failures) }

// CheckStore reads the store through clean (the same place, on a clean
// connection): the state with any journal left by a failed apply is the
// cloud, one object per resource; every stored object is intact; and, when
// every apply succeeded, no backup was written twice (a failed apply
// leaves the state as it was: the next apply backs up the same state
// again, rightly).
func (r *Run) CheckStore(t *testing.T, clean statemgr.Backend) {
	t.Helper()
	CheckStateIsCloud(t, clean, r.SimDir)
	for key, want := range r.Objects {
		got, err := clean.GetObject(context.Background(), key)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("object %s = %q, %v; want %q", key, got, err, want)
		}
	}
	if r.Failed() == 0 {
		CheckNoDuplicateBackups(t, clean)
	}
}

// FinalApply applies the last configuration again through clean: it must
// succeed, and the state is still the cloud.
func (r *Run) FinalApply(t *testing.T, clean statemgr.Backend) {
	t.Helper()
	eng := engine.New(r.Cloud, clean, engine.Options{Env: "prod", DeployPrefix: "fault", Lock: statemgr.LockInfo{Who: "fault-test@localhost"}})
	res, err := eng.Apply(context.Background(), Config(t, r.applies-1), engine.ApplyOptions{AutoApprove: true}, nil)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatalf("final clean apply: %v", err)
	}
	CheckStateIsCloud(t, clean, r.SimDir)
}
