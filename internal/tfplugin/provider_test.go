package tfplugin_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

var testProviders = []tfplugintest.Provider{tfplugintest.Framework, tfplugintest.SDK}

// start launches a test provider with a fresh cloud directory and
// configures it; the process is closed when the test ends.
func start(t *testing.T, tp tfplugintest.Provider) (*tfplugin.Provider, string) {
	t.Helper()
	return startConfigured(t, tfplugin.Config{Name: tp.Source(), Path: tfplugintest.Build(t, tp), StopGrace: 5 * time.Second})
}

// startKept is start of the framework test provider through a journal
// keeper (this test binary, run as one: TestMain).
func startKept(t *testing.T) (*tfplugin.Provider, string) {
	t.Helper()
	return startConfigured(t, tfplugin.Config{
		Name: "fwtest", Path: tfplugintest.Build(t, tfplugintest.Framework), Keeper: []string{os.Args[0], tfplugin.KeeperArg},
	})
}

// startConfigured is start of the provider cfg launches.
func startConfigured(t *testing.T, cfg tfplugin.Config) (*tfplugin.Provider, string) {
	t.Helper()
	p, err := tfplugin.Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	cloud := t.TempDir()
	configure(t, p, map[string]any{"dir": cloud})
	return p, cloud
}

func configure(t *testing.T, p *tfplugin.Provider, props map[string]any) {
	t.Helper()
	ctx := t.Context()
	s, err := p.Schema(ctx)
	if err != nil {
		t.Fatalf("Schema: %v", err)
	}
	cfg, ds := tfschema.Config(s.Provider.Block, props)
	if ds.HasErrors() {
		t.Fatalf("provider config: %v", ds.Err())
	}
	cfg, ds, err = p.ValidateProviderConfig(ctx, cfg)
	if err != nil || ds.HasErrors() {
		t.Fatalf("ValidateProviderConfig: %v %v", err, ds.Err())
	}
	ds, err = p.ConfigureProvider(ctx, cfg, "1.12.6")
	if err != nil || ds.HasErrors() {
		t.Fatalf("ConfigureProvider: %v %v", err, ds.Err())
	}
}

// change plans and applies one change of resource typ from prior (null:
// a create) to the configuration props (nil: a destroy), as the engine
// will: validate, propose, plan, apply.
type change struct {
	plan  tfplugin.PlanResponse
	state cty.Value
	diags tfschema.Diagnostics
}

func planApply(t *testing.T, p *tfplugin.Provider, typ string, prior cty.Value, props map[string]any) change {
	t.Helper()
	ctx := t.Context()
	s, err := p.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	block := s.ResourceTypes[typ].Block
	if prior == cty.NilVal {
		prior = cty.NullVal(block.ImpliedType())
	}
	config := cty.NullVal(block.ImpliedType())
	if props != nil {
		var ds tfschema.Diagnostics
		config, ds = tfschema.Config(block, props)
		if ds.HasErrors() {
			t.Fatalf("config: %v", ds.Err())
		}
		if ds, err = p.ValidateResourceConfig(ctx, typ, config); err != nil || ds.HasErrors() {
			t.Fatalf("ValidateResourceConfig: %v %v", err, ds.Err())
		}
	}
	plan, err := p.PlanResourceChange(ctx, tfplugin.PlanRequest{
		TypeName: typ, PriorState: prior, Config: config,
		ProposedNewState: tfschema.ProposedNew(block, prior, config),
	})
	if err != nil || plan.Diagnostics.HasErrors() {
		t.Fatalf("PlanResourceChange: %v %v", err, plan.Diagnostics.Err())
	}
	applied, err := p.ApplyResourceChange(ctx, tfplugin.ApplyRequest{
		TypeName: typ, PriorState: prior, Config: config, PlannedPrivate: plan.PlannedPrivate,
		PlannedMsgpack: plan.PlannedMsgpack, // as a saved plan holds it
	})
	if err != nil {
		t.Fatalf("ApplyResourceChange: %v", err)
	}
	return change{plan: plan, state: applied.NewState, diags: applied.Diagnostics}
}

func props(v cty.Value) map[string]any { return tfschema.FromCtyObject(v) }

func paths(ps []cty.Path) []string {
	var out []string
	for _, p := range ps {
		out = append(out, tfschema.PathString(p))
	}
	return out
}

func TestSchemaOfBothProtocols(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			p, _ := start(t, tp)
			if p.Protocol() != tp.Protocol {
				t.Errorf("negotiated protocol %d, want %d", p.Protocol(), tp.Protocol)
			}
			s, err := p.Schema(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			item := s.ResourceTypes[tp.Type+"_item"]
			if item == nil || s.DataSources[tp.Type+"_item"] == nil || s.ResourceTypes[tp.Type+"_crash"] == nil {
				t.Fatalf("schema lacks the test types: %v", s.ResourceTypes)
			}
			a := item.Block.Attributes
			if !a["name"].Required || !a["id"].Computed || !a["revision"].Computed || a["revision"].Type != cty.Number ||
				!a["secret"].Sensitive || !a["tags"].Type.Equals(cty.Map(cty.String)) {
				t.Errorf("item attributes decoded wrong: %+v", a)
			}
			if !s.Provider.Block.Attributes["token"].Sensitive {
				t.Error("the provider's token must be sensitive")
			}
			if d := cmp.Diff([]string{"secret"}, item.Block.SensitiveNames()); d != "" {
				t.Errorf("sensitive names (-want +got):\n%s", d)
			}
			switch tp.Protocol {
			case 6: // a nested attribute type, protocol 6 only
				ep := a["endpoints"]
				if ep == nil || ep.NestedType == nil || ep.NestedType.Nesting != tfschema.NestingList || !ep.NestedType.Attributes["host"].Required {
					t.Errorf("endpoints: %+v", ep)
				}
				if item.Version != 1 {
					t.Errorf("schema version %d, want 1", item.Version)
				}
			case 5:
				rule := item.Block.BlockTypes["rule"]
				if rule == nil || rule.Nesting != tfschema.NestingList || rule.MaxItems != 3 || rule.Block.Attributes["port"].Type != cty.Number {
					t.Errorf("rule block: %+v", rule)
				}
			}
		})
	}
}

func TestLifecycle(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			p, cloud := start(t, tp)
			typ := tp.Type + "_item"

			// create: what the provider computes is unknown in the plan
			c := planApply(t, p, typ, cty.NilVal, map[string]any{"name": "a", "value": "v1", "secret": "s3cret", "tags": map[string]any{"env": "prod"}})
			planned := props(c.plan.PlannedState)
			if planned["id"] != value.Unknown || planned["revision"] != value.Unknown || planned["value"] != "v1" {
				t.Errorf("planned create: %v", planned)
			}
			got := props(c.state)
			if got["id"] != "a-1" || got["revision"] != 1.0 || got["secret"] != "s3cret" || got["value"] != "v1" {
				t.Errorf("created: %v", got)
			}
			if _, err := os.Stat(filepath.Join(cloud, "a-1.json")); err != nil {
				t.Errorf("the cloud holds no item: %v", err)
			}

			// update in place: no replace, the id stays, the revision is recomputed
			c = planApply(t, p, typ, c.state, map[string]any{"name": "a", "value": "v2", "secret": "s3cret", "tags": map[string]any{"env": "prod"}})
			if len(c.plan.RequiresReplace) != 0 {
				t.Errorf("an in-place change requires replace: %v", paths(c.plan.RequiresReplace))
			}
			if planned := props(c.plan.PlannedState); planned["id"] != "a-1" || planned["revision"] != value.Unknown {
				t.Errorf("planned update: %v", planned)
			}
			if got := props(c.state); got["value"] != "v2" || got["revision"] != 2.0 || got["id"] != "a-1" {
				t.Errorf("updated: %v", got)
			}
			updated := c.state

			// a change of name forces a replace, and says which path
			ctx := t.Context()
			s, _ := p.Schema(ctx)
			block := s.ResourceTypes[typ].Block
			config, _ := tfschema.Config(block, map[string]any{"name": "b", "value": "v2"})
			plan, err := p.PlanResourceChange(ctx, tfplugin.PlanRequest{TypeName: typ, PriorState: updated, Config: config,
				ProposedNewState: tfschema.ProposedNew(block, updated, config)})
			if err != nil {
				t.Fatal(err)
			}
			// (The SDK names the id too: it plans a new one.)
			if rr := paths(plan.RequiresReplace); !slices.Contains(rr, "name") || slices.Contains(rr, "value") {
				t.Errorf("RequiresReplace %v, want name and not value", rr)
			}
			if len(plan.PlannedMsgpack) == 0 {
				t.Error("the planned state's bytes are not kept for a saved plan")
			}

			// the configuration the provider refuses, with the path of the value
			bad, _ := tfschema.Config(block, map[string]any{"name": "c", "value": "has space"})
			ds, err := p.ValidateResourceConfig(ctx, typ, bad)
			if err != nil || !ds.HasErrors() || tfschema.PathString(ds[0].Path) != "value" || ds[0].Summary != "Invalid value" {
				t.Errorf("ValidateResourceConfig of a refused value: %v %v", err, ds)
			}

			// refresh finds what changed in the cloud, and that it is gone
			read, err := p.ReadResource(ctx, tfplugin.ReadRequest{TypeName: typ, State: updated})
			if err != nil || read.Diagnostics.HasErrors() || props(read.NewState)["value"] != "v2" {
				t.Fatalf("ReadResource: %v %v %v", err, read.Diagnostics, props(read.NewState))
			}

			// import by ID, then read the rest
			imported, ds, err := p.ImportResourceState(ctx, typ, "a-1")
			if err != nil || ds.HasErrors() || len(imported) != 1 || imported[0].TypeName != typ {
				t.Fatalf("ImportResourceState: %v %v %v", err, ds, imported)
			}
			read, err = p.ReadResource(ctx, tfplugin.ReadRequest{TypeName: typ, State: imported[0].State, Private: imported[0].Private})
			if err != nil || read.Diagnostics.HasErrors() {
				t.Fatalf("ReadResource after import: %v %v", err, read.Diagnostics)
			}
			if got := props(read.NewState); got["name"] != "a" || got["value"] != "v2" || got["revision"] != 2.0 {
				t.Errorf("imported: %v", got)
			}

			// a data source reads it by name
			ds2 := s.DataSources[typ].Block
			dcfg, _ := tfschema.Config(ds2, map[string]any{"name": "a"})
			if diags, err := p.ValidateDataResourceConfig(ctx, typ, dcfg); err != nil || diags.HasErrors() {
				t.Fatalf("ValidateDataResourceConfig: %v %v", err, diags)
			}
			data, diags, err := p.ReadDataSource(ctx, typ, dcfg)
			if err != nil || diags.HasErrors() {
				t.Fatalf("ReadDataSource: %v %v", err, diags)
			}
			if got := props(data); got["id"] != "a-1" || got["value"] != "v2" {
				t.Errorf("data source: %v", got)
			}
			missing, _ := tfschema.Config(ds2, map[string]any{"name": "nobody"})
			if _, diags, _ := p.ReadDataSource(ctx, typ, missing); !diags.HasErrors() || tfschema.PathString(diags[0].Path) != "name" {
				t.Errorf("a data source that finds nothing: %v", diags)
			}

			// state as stored (JSON) upgrades to the current schema
			raw, err := jsonOf(updated, block)
			if err != nil {
				t.Fatal(err)
			}
			up, diags, err := p.UpgradeResourceState(ctx, typ, s.ResourceTypes[typ].Version, raw)
			if err != nil || diags.HasErrors() || !up.RawEquals(updated) {
				t.Errorf("UpgradeResourceState: %v %v\n got %#v\nwant %#v", err, diags, up, updated)
			}

			// destroy: a null configuration, a null new state
			c = planApply(t, p, typ, updated, nil)
			if !c.state.IsNull() {
				t.Errorf("destroyed state: %#v", c.state)
			}
			read, err = p.ReadResource(ctx, tfplugin.ReadRequest{TypeName: typ, State: updated})
			if err != nil || !read.NewState.IsNull() {
				t.Errorf("reading a deleted item: %v %#v", err, read.NewState)
			}
		})
	}
}

func TestProviderConfigErrors(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			p, err := tfplugin.Start(t.Context(), tfplugin.Config{Name: tp.Source(), Path: tfplugintest.Build(t, tp)})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx := t.Context()
			s, _ := p.Schema(ctx)
			cfg, _ := tfschema.Config(s.Provider.Block, map[string]any{"dir": t.TempDir(), "token": "wrong"})
			ds, err := p.ConfigureProvider(ctx, cfg, "1.12.6")
			if err != nil || !ds.HasErrors() || !strings.Contains(ds.Err().Error(), "Invalid token") {
				t.Errorf("ConfigureProvider with a refused token: %v %v", err, ds)
			}
			if _, err := p.PlanResourceChange(ctx, tfplugin.PlanRequest{TypeName: "nope_item"}); err == nil || !strings.Contains(err.Error(), `no resource type "nope_item"`) {
				t.Errorf("an unknown type: %v", err)
			}
		})
	}
}

func TestCrashMidApply(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			p, cloud := start(t, tp)
			// What succeeded before the crash is the caller's to keep.
			first := planApply(t, p, tp.Type+"_item", cty.NilVal, map[string]any{"name": "kept"})
			if props(first.state)["id"] != "kept-1" {
				t.Fatalf("create before the crash: %v", props(first.state))
			}
			ctx := t.Context()
			s, _ := p.Schema(ctx)
			block := s.ResourceTypes[tp.Type+"_crash"].Block
			config, _ := tfschema.Config(block, map[string]any{"name": "boom"})
			null := cty.NullVal(block.ImpliedType())
			plan, err := p.PlanResourceChange(ctx, tfplugin.PlanRequest{TypeName: tp.Type + "_crash", PriorState: null, Config: config,
				ProposedNewState: tfschema.ProposedNew(block, null, config)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.ApplyResourceChange(ctx, tfplugin.ApplyRequest{TypeName: tp.Type + "_crash", PriorState: null, PlannedState: plan.PlannedState, Config: config})
			var crash *tfplugin.CrashError
			if !errors.As(err, &crash) {
				t.Fatalf("apply of a crashing resource: %v, want a CrashError", err)
			}
			if crash.Method != "ApplyResourceChange" || !strings.Contains(crash.Output, "crash in the middle of an apply") {
				t.Errorf("crash error: method %q, output %q", crash.Method, crash.Output)
			}
			if !p.Exited() {
				t.Error("the process has not exited")
			}
			// Later calls fail as crashes too, quickly.
			if _, err := p.ReadResource(ctx, tfplugin.ReadRequest{TypeName: tp.Type + "_item", State: first.state}); err == nil {
				t.Error("a call after the crash succeeded")
			}
			// A new process of the same provider carries on with the cloud as it was.
			q, err := tfplugin.Start(ctx, tfplugin.Config{Name: tp.Source(), Path: tfplugintest.Build(t, tp)})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			configure(t, q, map[string]any{"dir": cloud})
			read, err := q.ReadResource(ctx, tfplugin.ReadRequest{TypeName: tp.Type + "_item", State: first.state})
			if err != nil || props(read.NewState)["name"] != "kept" {
				t.Errorf("the item created before the crash: %v %v", err, props(read.NewState))
			}
		})
	}
}

// TestInterruptedApplyKeepsWhatWasCreated: cancelling the context of an
// apply (Ctrl-C) asks the provider to stop; its answer, holding the item
// it created, arrives and is returned, and Close leaves no process and no
// goroutine behind.
func TestInterruptedApplyKeepsWhatWasCreated(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			before := goroutines()
			p, err := tfplugin.Start(t.Context(), tfplugin.Config{Name: tp.Source(), Path: tfplugintest.Build(t, tp), StopGrace: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			configure(t, p, map[string]any{"dir": t.TempDir()})
			pid := p.Pid()
			s, _ := p.Schema(t.Context())
			typ := tp.Type + "_slow"
			block := s.ResourceTypes[typ].Block
			config, _ := tfschema.Config(block, map[string]any{"name": "slow"})
			null := cty.NullVal(block.ImpliedType())
			plan, err := p.PlanResourceChange(t.Context(), tfplugin.PlanRequest{TypeName: typ, PriorState: null, Config: config,
				ProposedNewState: tfschema.ProposedNew(block, null, config)})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(500*time.Millisecond, cancel)
			began := time.Now()
			resp, err := p.ApplyResourceChange(ctx, tfplugin.ApplyRequest{TypeName: typ, PriorState: null, PlannedState: plan.PlannedState, Config: config})
			if err != nil {
				t.Fatalf("interrupted apply: %v", err)
			}
			if took := time.Since(began); took > 15*time.Second {
				t.Errorf("the interrupted apply took %s: the provider was not told to stop", took)
			}
			if !resp.Diagnostics.HasErrors() || !strings.Contains(resp.Diagnostics.Err().Error(), "interrupted") {
				t.Errorf("diagnostics: %v", resp.Diagnostics)
			}
			if got := props(resp.NewState); got["id"] != "slow-1" {
				t.Errorf("the interrupted create's state: %v, want the item it created", got)
			}
			p.Close()
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("provider process %d still there after Close: %v", pid, err)
			}
			checkGoroutines(t, before)
		})
	}
}

func TestCancelledStartLeavesNothing(t *testing.T) {
	before := goroutines()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := tfplugin.Start(ctx, tfplugin.Config{Name: "fwtest", Path: tfplugintest.Build(t, tfplugintest.Framework)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Start with a cancelled context: %v", err)
	}
	checkGoroutines(t, before)
}

func TestStartRefusesWhatIsNoProvider(t *testing.T) {
	script := filepath.Join(t.TempDir(), "terraform-provider-fake")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'not a plugin' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := tfplugin.Start(t.Context(), tfplugin.Config{Name: "fake", Path: script})
	if err == nil || !strings.Contains(err.Error(), "not a plugin") {
		t.Errorf("Start of a program that is no provider: %v, want an error quoting its output", err)
	}
}

// syncBuffer is a bytes.Buffer safe for the provider's writes and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProviderLogsAreReadAndForwarded: what a provider writes to
// os.Stdout and os.Stderr while serving goes through go-plugin's stdio
// stream (the test providers write 64 KiB per "chatty" item); Kyku reads
// it (unread, the provider would block once its pipe holds 64 KiB) and
// forwards it to Config.Stderr.
func TestProviderLogsAreReadAndForwarded(t *testing.T) {
	before := goroutines()
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			logs := &syncBuffer{}
			p, err := tfplugin.Start(t.Context(), tfplugin.Config{
				Name: tp.Source(), Path: tfplugintest.Build(t, tp), Stderr: logs,
			})
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			defer p.Close()
			configure(t, p, map[string]any{"dir": t.TempDir()})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := 0; i < 4 && !t.Failed(); i++ {
					planApply(t, p, tp.Type+"_item", cty.NilVal, map[string]any{"name": fmt.Sprintf("n%d", i), "value": "chatty"})
				}
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("the provider stopped answering with %d bytes of log forwarded", len(logs.String()))
			}
			// The stream is read as it comes: the last of it may follow the
			// call's answer.
			for deadline := time.Now().Add(10 * time.Second); strings.Count(logs.String(), "chatter of n3-") < 400 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if got := logs.String(); strings.Count(got, "chatter of n3-") < 400 {
				t.Errorf("forwarded %d bytes, want the 256 KiB of chatter:\n%.500s", len(got), got)
			}
		})
	}
	checkGoroutines(t, before)
}
