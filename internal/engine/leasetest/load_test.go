package leasetest_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// Environment of the child process TestLoadChild runs as.
const (
	envChildPlan   = "LEASETEST_CHILD_PLAN"
	envChildBucket = "LEASETEST_CHILD_BUCKET"
	envChildSim    = "LEASETEST_CHILD_SIM"
	envSeed        = "LEASETEST_SEED"
)

// loadObjects is how many TargetGroups the load test's state holds.
const loadObjects = 24

// worker is one apply of the load test: the ports it sets, the groups it
// creates (n<i>) and deletes, and its saved plan.
type worker struct {
	ports   map[int]int
	create  bool
	deletes []int
	plan    *plan.Plan
	err     error
}

func (k *worker) config(t testing.TB, i int) *config.Config {
	t.Helper()
	var b strings.Builder
	b.WriteString("provider: sim\nresources:\n")
	for j := range loadObjects {
		if slices.Contains(k.deletes, j) {
			continue
		}
		port, ok := k.ports[j]
		if !ok {
			port = 8000 + j
		}
		fmt.Fprintf(&b, "  t%d:\n    type: TargetGroup\n    properties: { port: %d }\n", j, port)
	}
	if k.create {
		fmt.Fprintf(&b, "  n%d:\n    type: TargetGroup\n    properties: { port: %d }\n", i, 20000+i)
	}
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(b.String())}})
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

// TestTwentyAppliesAtOnceWithOneKilled: 20 saved plans, made on one state
// and changing random sets of its objects (overlapping and disjoint, some
// creating or deleting one), are applied at once on the S3 server; one
// runs in a process of its own, killed (SIGKILL) between two of its
// changes. Each apply either made all of its changes or is refused
// (stale: another apply changed one of its objects first) having made
// none; the killed one's finished changes, as its journal records them,
// are folded in by the applies that come after it; no object is changed
// by two applies; and the final state is exactly the cloud. The seed is
// printed; LEASETEST_SEED replays one.
func TestTwentyAppliesAtOnceWithOneKilled(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(envSeed); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (replay with %s=%d)", seed, envSeed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	w := newWorld(t)
	w.leases.StaleAfter = 6 * time.Second // a heartbeat every 200ms: 30 may be late under load before one is taken over
	w.leases.Heartbeat = 200 * time.Millisecond
	initial := &worker{}
	mustApply(t, w.engine(true), initial.config(t, -1), nil)

	const n = 20
	killed := rng.IntN(n)
	workers := make([]*worker, n)
	deleted := map[int]bool{}
	for i := range workers {
		k := &worker{ports: map[int]int{}}
		size := 1 + rng.IntN(3)
		if i == killed {
			size = 4 // changes enough to be killed between two
		}
		for _, j := range rng.Perm(loadObjects)[:size] {
			k.ports[j] = 10000 + 100*i + j
		}
		if i != killed && rng.IntN(4) == 0 {
			k.create = true
		}
		if i != killed && rng.IntN(5) == 0 {
			// Each deletes another object: two deletes of one look alike.
			for _, j := range rng.Perm(loadObjects) {
				if _, ok := k.ports[j]; !ok && !deleted[j] {
					k.deletes, deleted[j] = []int{j}, true
					break
				}
			}
		}
		k.plan = savedPlan(t, w.engine(true), k.config(t, i))
		workers[i] = k
	}

	// The killed apply: a process of its own, slow, with one change at a time.
	planPath := filepath.Join(t.TempDir(), "plan.json")
	data, err := plan.Encode(workers[killed].plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestLoadChild$", "-test.v")
	child.Env = append(os.Environ(), envChildPlan+"="+planPath, envChildBucket+"="+w.bucket, envChildSim+"="+w.simDir,
		"KYKU_TEST_S3_ENDPOINT="+w.srv.Endpoint, "KYKU_TEST_S3_ACCESS_KEY="+w.srv.Access,
		"KYKU_TEST_S3_SECRET_KEY="+w.srv.Secret, "KYKU_TEST_S3_REGION="+w.srv.Region)
	var childOut strings.Builder
	child.Stdout, child.Stderr = &childOut, &childOut
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	childDone := make(chan error, 1)
	go func() { childDone <- child.Wait() }()
	journaled := func() int { return len(w.srv.Keys(t, w.bucket, "journals/")) }
	deadline := time.Now().Add(30 * time.Second)
	for journaled() == 0 {
		select {
		case err := <-childDone:
			t.Fatalf("the child apply ended before it was killed (%v):\n%s", err, childOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child apply journaled nothing in 30s:\n%s", childOut.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-childDone
	journal := journalEntries(t, w)
	t.Logf("apply %d killed after journaling %d of its %d changes", killed, len(journal), len(workers[killed].ports))

	// The others, at once.
	w.latency = 20 * time.Millisecond
	var wg sync.WaitGroup
	start := time.Now()
	for i, k := range workers {
		if i == killed {
			continue
		}
		e := w.engine(true)
		wg.Go(func() { _, k.err = apply(t, e, nil, k.plan) })
	}
	wg.Wait()
	t.Logf("19 applies took %s", time.Since(start).Round(time.Millisecond))
	time.Sleep(w.leases.StaleAfter) // the killed apply's leases go stale
	if err := w.engine(true).RecoverLeased(t.Context()); err != nil {
		t.Fatalf("recover: %v", err)
	}

	st := w.state()
	if diff := cmp.Diff(w.cloud(), stateObjects(st)); diff != "" {
		t.Errorf("final state differs from the cloud (-cloud +state):\n%s", diff)
	}
	if keys := w.srv.Keys(t, w.bucket, "journals/"); len(keys) > 0 {
		t.Errorf("journals left behind: %v", keys)
	}
	if keys := w.srv.Keys(t, w.bucket, "leases/"); len(keys) > 0 {
		t.Errorf("leases left behind: %v", keys)
	}
	// Who changed each object: at most one apply.
	owner := map[string]int{}
	for i, k := range workers {
		changes := k.changes(i)
		applied := 0
		for name, want := range changes {
			r := st.Resources[name]
			got := "absent"
			if r != nil {
				got = fmt.Sprint(r.Config["port"])
			}
			if got == want {
				applied++
				if o, ok := owner[name]; ok {
					t.Errorf("%s changed by applies %d and %d", name, o, i)
				}
				owner[name] = i
			}
		}
		switch {
		case i == killed:
			if applied != len(journal) {
				t.Errorf("killed apply %d: %d of its changes in state, its journal recorded %d", i, applied, len(journal))
			}
		case k.err == nil && applied != len(changes):
			t.Errorf("apply %d succeeded with %d of its %d changes in state", i, applied, len(changes))
		case k.err != nil && applied != 0:
			t.Errorf("apply %d failed (%v) with %d of its changes in state", i, k.err, applied)
		case k.err != nil && !engine.IsStale(k.err) && !isHeld(k.err):
			t.Errorf("apply %d failed otherwise than stale or held: %v", i, k.err)
		}
	}
	// Every object no apply changed is as it was.
	for j := range loadObjects {
		name := fmt.Sprintf("t%d", j)
		if _, ok := owner[name]; !ok {
			if r := st.Resources[name]; r == nil || r.Config["port"] != float64(8000+j) {
				t.Errorf("%s changed by no apply, but state has %v", name, r)
			}
		}
	}
}

// changes are the worker's changes as "name → port" ("absent": deleted).
func (k *worker) changes(i int) map[string]string {
	out := map[string]string{}
	for j, port := range k.ports {
		out[fmt.Sprintf("t%d", j)] = strconv.Itoa(port)
	}
	for _, j := range k.deletes {
		out[fmt.Sprintf("t%d", j)] = "absent"
	}
	if k.create {
		out[fmt.Sprintf("n%d", i)] = strconv.Itoa(20000 + i)
	}
	return out
}

func isHeld(err error) bool {
	var he *lease.HeldError
	return errors.As(err, &he)
}

// journalEntries reads the killed apply's journal as it was left.
func journalEntries(t *testing.T, w *world) []lease.Record {
	t.Helper()
	m := lease.New(w.backend(), "", w.leases)
	runs := map[string]bool{}
	for _, k := range w.srv.Keys(t, w.bucket, "journals/state/") {
		run, _, _ := strings.Cut(strings.TrimPrefix(k, "journals/state/"), "/")
		runs[run] = true
	}
	var out []lease.Record
	for run := range runs {
		recs, err := m.Journal(run, nil).Records(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recs...)
	}
	return out
}

// TestLoadChild is the killed apply of TestTwentyAppliesAtOnceWithOneKilled
// when run as its child; otherwise it skips.
func TestLoadChild(t *testing.T) {
	path := os.Getenv(envChildPlan)
	if path == "" {
		t.Skip("run as the child of TestTwentyAppliesAtOnceWithOneKilled")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, srv: s3test.Require(t), bucket: os.Getenv(envChildBucket), simDir: os.Getenv(envChildSim), latency: 300 * time.Millisecond,
		leases: lease.Options{Timeout: 20 * time.Second, Poll: 20 * time.Millisecond, Heartbeat: 200 * time.Millisecond, StaleAfter: 6 * time.Second}}
	e := w.engine(true, func(o *engine.Options) { o.Parallelism = 1 })
	mustApply(t, e, nil, p)
	t.Fatal("the child apply finished: it was to be killed")
}
