package tfprovider_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// pids records the provider processes a test starts.
type pids struct {
	mu   sync.Mutex
	list []int
}

func (p *pids) add(pid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, pid)
}

func (p *pids) all() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.list...)
}

// alive reports whether process pid still runs (signal 0 checks it).
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// waitGone waits up to 10s for process pid to end.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("provider process %d still runs", pid)
		}
	}
}

// TestProviderProcessRenewed: an apply of 40 resources (chains and
// independent ones, ten calls at once) whose provider process is
// replaced every 3 calls: everything is created once, the state records
// each, the plan after it is empty, and every process started has ended
// once the run is over.
func TestProviderProcessRenewed(t *testing.T) {
	t.Parallel()
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			started := &pids{}
			w.tune = func(c *tfprovider.Config) {
				c.RenewAfter = 3
				c.OnStart = started.add
			}
			var b strings.Builder
			b.WriteString("providers:\n  TP: { source: kyku/TP, config: { dir: CLOUD } }\nresources:\n")
			for i := range 40 {
				if i%4 == 0 {
					fmt.Fprintf(&b, "  r%d: { type: TP_item, properties: { name: r%d } }\n", i, i)
				} else {
					fmt.Fprintf(&b, "  r%d: { type: TP_item, properties: { name: r%d, value: \"${r%d.id}\" } }\n", i, i, i-1)
				}
			}
			cfg := w.parse(b.String())
			w.apply(cfg)
			st := w.state()
			for i := range 40 {
				r := st.Resources[fmt.Sprintf("r%d", i)]
				if r == nil {
					t.Fatalf("r%d is not in state", i)
				}
				if i%4 != 0 && r.Outputs["value"] != st.Resources[fmt.Sprintf("r%d", i-1)].ProviderID {
					t.Errorf("r%d's value %v, want r%d's id", i, r.Outputs["value"], i-1)
				}
			}
			if items, _ := filepath.Glob(filepath.Join(w.cloud, "*.json")); len(items) != 40 {
				t.Errorf("%d items in the cloud, want 40 (each created once)", len(items))
			}
			if p := w.planAll(cfg); p.HasChanges() { // reading every object: its 40 reads and plans
				t.Errorf("plan after apply: %+v", p.Changes)
			}
			w.close()
			got := started.all()
			// Two runs of at least 40 validations and 40 plans, and 40
			// applies, 240 calls: a process serves at most 3 calls and
			// the 9 others in flight when it was replaced.
			if len(got) < 240/12 {
				t.Errorf("%d provider processes started, want at least one for every 12 calls", len(got))
			}
			for _, pid := range got {
				if alive(pid) {
					t.Errorf("provider process %d still runs after the run", pid)
				}
			}
		})
	}
}

// newDirect is a provider configuration driven without the engine.
func newDirect(t *testing.T, tp tfplugintest.Provider, cloud string, tune func(*tfprovider.Config)) *tfprovider.Provider {
	t.Helper()
	c := tfprovider.Config{
		Name: tp.Type, Source: tp.Source(), Executable: tfplugintest.Build(t, tp),
		Settings: map[string]any{"dir": cloud}, ClientVersion: "1.12.6", StopGrace: 5 * time.Second,
	}
	tune(&c)
	p := tfprovider.New(c)
	t.Cleanup(func() { p.Close() })
	return p
}

// renewingEveryCall is a provider configuration whose process is
// replaced after every call, its cloud directory and the processes it
// starts.
func renewingEveryCall(t *testing.T, tp tfplugintest.Provider) (*tfprovider.Provider, string, *pids) {
	t.Helper()
	cloud, started := t.TempDir(), &pids{}
	p := newDirect(t, tp, cloud, func(c *tfprovider.Config) {
		c.RenewAfter = 1
		c.OnStart = started.add
	})
	return p, cloud, started
}

// planned plans the create of a resource of kind (item, slow, crash).
func planned(t *testing.T, p *tfprovider.Provider, tp tfplugintest.Provider, kind, name string) provider.Resource {
	t.Helper()
	r := provider.Resource{Name: name, Type: tp.Type + "_" + kind, CloudName: name, Properties: map[string]any{"name": name}}
	cp, err := p.PlanChange(t.Context(), provider.ChangeRequest{Resource: r})
	if err != nil || len(cp.Refusals) > 0 || cp.Planned == nil {
		t.Fatalf("plan %s: %+v %v", name, cp, err)
	}
	r.Planned = cp.Planned
	return r
}

// TestRenewalWaitsForCallsInFlight: a process is replaced while one of
// its calls is slow; later calls go to the new process without waiting
// for it, the old process runs until that call has returned (an
// interrupt reaches it there), and then it is shut down.
func TestRenewalWaitsForCallsInFlight(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			p, cloud, started := renewingEveryCall(t, tp)
			slow := planned(t, p, tp, "slow", "slow")
			items := []provider.Resource{planned(t, p, tp, "item", "a"), planned(t, p, tp, "item", "b")}

			type result struct {
				obj provider.Object
				err error
			}
			done := make(chan result, 1)
			go func() {
				obj, err := p.Create(t.Context(), slow)
				done <- result{obj, err}
			}()
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(filepath.Join(cloud, "slow-1.json")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the slow create never stored its item")
				}
			}
			list := started.all()
			slowPid := list[len(list)-1]

			for _, r := range items {
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				obj, err := p.Create(ctx, r)
				cancel()
				if err != nil || obj.ID == "" {
					t.Fatalf("create %s beside the slow call: %+v %v", r.Name, obj, err)
				}
			}
			if p.Pid() == slowPid || len(started.all()) == len(list) {
				t.Fatal("the process serving the slow call was not replaced")
			}
			if !alive(slowPid) {
				t.Fatal("the process serving the slow call was shut down during it")
			}
			if err := p.Stop(t.Context()); err != nil {
				t.Fatalf("stop: %v", err)
			}
			select {
			case r := <-done:
				var pe *provider.PartialError
				if !errors.As(r.err, &pe) || pe.Object.ID != "slow-1" {
					t.Errorf("the interrupted slow create: %v; want an error carrying its item", r.err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the slow call was not interrupted: Stop did not reach its process")
			}
			waitGone(t, slowPid)
		})
	}
}

// TestCrashedProcessNotReplaced: a process that crashed is not replaced
// by a new one, whatever renewal says: the calls after the crash fail as
// they did without renewal, and create nothing.
func TestCrashedProcessNotReplaced(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			p, cloud, started := renewingEveryCall(t, tp)
			boom := planned(t, p, tp, "crash", "boom")
			after := planned(t, p, tp, "item", "after")
			ctx := t.Context()
			if _, err := p.Create(ctx, boom); !tfplugin.IsCrash(err) {
				t.Fatalf("create boom: %v, want a crash", err)
			}
			n := len(started.all())
			if _, err := p.Create(ctx, after); err == nil {
				t.Fatal("a create after the crash succeeded: a new process replaced the crashed one")
			}
			if got := len(started.all()); got != n {
				t.Errorf("%d processes started after the crash, want none", got-n)
			}
			if _, err := os.Stat(filepath.Join(cloud, "after-1.json")); !os.IsNotExist(err) {
				t.Errorf("the create after the crash reached the cloud: %v", err)
			}
		})
	}
}

// TestRenewalThroughAnInterruptedApply: an interrupt during an apply whose
// process is renewed at every call ends it as without renewal: the slow
// resource's object is kept in state, and no process outlives the run.
func TestRenewalThroughAnInterruptedApply(t *testing.T) {
	tp := tfplugintest.Framework
	w := newWorld(t, tp)
	started := &pids{}
	w.tune = func(c *tfprovider.Config) {
		c.RenewAfter = 1
		c.OnStart = started.add
	}
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a } }
  slow: { type: TP_slow, properties: { name: slow }, dependsOn: [a] }
`)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(w.cloud, "slow-2.json")); err == nil {
				cancel()
				return
			}
		}
	}()
	res, err := w.engine(cfg).Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if res.Err() == nil {
		t.Fatal("the interrupted apply reports no failure")
	}
	st := w.state()
	if st.Resources["a"] == nil || st.Resources["slow"] == nil || st.Resources["slow"].ProviderID != "slow-2" {
		t.Errorf("state after the interrupt: %v, want a and slow (its object exists)", st.Names())
	}
	w.close()
	for _, pid := range started.all() {
		if alive(pid) {
			t.Errorf("provider process %d still runs after the run", pid)
		}
	}
}

// TestGrowthRenewsProcess: with no call count set, a process is replaced
// for its growth as read from /proc (a factor of 1.01 that any process
// passes in a few hundred calls), and never with renewal off.
func TestGrowthRenewsProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc: processes are not replaced for their growth here")
	}
	tp := tfplugintest.Framework
	var desired []provider.Desired
	for i := range 600 {
		desired = append(desired, provider.Desired{Name: fmt.Sprintf("r%d", i), Type: tp.Type + "_item", Properties: map[string]any{"name": fmt.Sprintf("r%d", i)}})
	}
	for _, c := range []struct {
		growth float64
		renew  bool
	}{{1.01, true}, {-1, false}} {
		p := newDirect(t, tp, t.TempDir(), func(cfg *tfprovider.Config) { cfg.RenewGrowth = c.growth })
		refusals, err := p.ValidateConfigs(t.Context(), desired)
		if err != nil || len(refusals) > 0 {
			t.Fatalf("growth %v: validate: %v %v", c.growth, refusals, err)
		}
		if got := p.Renewals(); (got > 0) != c.renew {
			t.Errorf("growth %v: %d processes replaced after 600 calls, want replacing %v", c.growth, got, c.renew)
		}
	}
}
