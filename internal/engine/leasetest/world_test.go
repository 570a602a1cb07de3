package leasetest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// world is one test's cloud (the sim, a directory every process shares)
// and state (a bucket of its own on the S3 server).
type world struct {
	t      testing.TB
	srv    *s3test.Server
	bucket string
	simDir string
	// latency of every sim call (0: none), and the leases' timing.
	latency time.Duration
	leases  lease.Options
}

func newWorld(t testing.TB) *world {
	t.Helper()
	srv := s3test.Require(t)
	return &world{
		t: t, srv: srv, bucket: srv.NewBucket(t), simDir: filepath.Join(t.TempDir(), "sim"),
		leases: lease.Options{Timeout: 20 * time.Second, Poll: 20 * time.Millisecond, Heartbeat: time.Second, StaleAfter: 10 * time.Second},
	}
}

// backend is a Backend of its own on the world's bucket, as another
// process would open it.
func (w *world) backend() *s3b.Backend {
	w.t.Helper()
	b, err := s3b.NewWithClient(w.srv.Client, s3b.Config{Bucket: w.bucket, Region: w.srv.Region, Endpoint: w.srv.Endpoint, UsePathStyle: true},
		"", s3b.Options{LockTimeout: 20 * time.Second, PollInterval: 20 * time.Millisecond})
	if err != nil {
		w.t.Fatal(err)
	}
	return b
}

// engine returns an engine whose applies lease their objects (leased
// false: it takes the whole-state lock).
func (w *world) engine(leased bool, mods ...func(*engine.Options)) *engine.Engine {
	w.t.Helper()
	p, err := sim.New(sim.Options{Dir: w.simDir, LatencyMin: w.latency, LatencyMax: w.latency, Seed: 1})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = p.Close() })
	b := w.backend()
	eo := engine.Options{RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond, DeployPrefix: "test"}
	if leased {
		m, err := lease.For(w.t.Context(), b, "", w.leases)
		if err != nil || m == nil {
			w.t.Fatalf("lease.For = %v, %v", m, err)
		}
		eo.Leases = m
	}
	for _, mod := range mods {
		mod(&eo)
	}
	return engine.New(p, b, eo)
}

// state reads the stored state.
func (w *world) state() *state.File {
	w.t.Helper()
	st, err := w.backend().Read(w.t.Context())
	if err != nil || st == nil {
		w.t.Fatalf("read state: %v, %v", st, err)
	}
	return st
}

// cloud is every sim object as "name id port" (port for a TargetGroup).
func (w *world) cloud() []string {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.simDir, "*", "*.json"))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			w.t.Fatal(err)
		}
		var rec struct {
			ID, Type, Name string
			Properties     map[string]any
		}
		if json.Unmarshal(data, &rec) != nil || rec.Type == "" {
			continue // an index, not an object
		}
		out = append(out, fmt.Sprintf("%s %s %v", rec.Name, rec.ID, rec.Properties["port"]))
	}
	sort.Strings(out)
	return out
}

// stateObjects is the state's resources as cloud lists the cloud's.
func stateObjects(st *state.File) []string {
	var out []string
	for _, n := range st.Names() {
		r := st.Resources[n]
		out = append(out, fmt.Sprintf("%s %s %v", n, r.ProviderID, r.Config["port"]))
	}
	sort.Strings(out)
	return out
}

// groups is a configuration of TargetGroups t0…t<n-1>, each on the port
// ports gives it (default 8000+i).
func groups(t testing.TB, n int, ports map[int]int) *config.Config {
	t.Helper()
	var b strings.Builder
	b.WriteString("provider: sim\nresources:\n")
	for i := range n {
		port, ok := ports[i]
		if !ok {
			port = 8000 + i
		}
		fmt.Fprintf(&b, "  t%d:\n    type: TargetGroup\n    properties: { port: %d }\n", i, port)
	}
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(b.String())}})
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

func apply(t testing.TB, e *engine.Engine, cfg *config.Config, p *plan.Plan) (*engine.Result, error) {
	t.Helper()
	res, err := e.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, p)
	if err == nil {
		err = res.Err()
	}
	return res, err
}

func mustApply(t testing.TB, e *engine.Engine, cfg *config.Config, p *plan.Plan) *engine.Result {
	t.Helper()
	res, err := apply(t, e, cfg, p)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return res
}

// savedPlan plans cfg and returns the plan as a file gives it back.
func savedPlan(t testing.TB, e *engine.Engine, cfg *config.Config) *plan.Plan {
	t.Helper()
	p, err := e.Plan(t.Context(), cfg)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return saved
}
