package engine_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/kinds"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/statemgr/local"
)

// ruled is the sim planned with its own replace rules for target groups
// and its own check: a Vm of size large cannot be reached in place, and a
// database's storage cannot shrink.
type ruled struct {
	*sim.Provider
	mu    sync.Mutex // guards asked: a level's resources are planned at once
	asked []kinds.Change
	fail  error
}

func (r *ruled) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	return kinds.Planner{Rules: r.rules, Check: r.check}.PlanChange(ctx, req)
}

func (r *ruled) rules(typ string) provider.Rules {
	rules := r.Provider.Schema(typ).Rules
	if typ != "TargetGroup" {
		return rules
	}
	out := provider.Rules{}
	for k, v := range rules {
		out[k] = v
	}
	out["port"] = provider.Replaces("a test cloud's target group keeps its port")
	return out
}

func (r *ruled) check(_ context.Context, req kinds.Change) (provider.ChangePlan, error) {
	r.mu.Lock()
	r.asked = append(r.asked, req)
	r.mu.Unlock()
	var out provider.ChangePlan
	if r.fail != nil {
		return out, r.fail
	}
	if req.ID == "" {
		return out, nil
	}
	if req.Type == "Vm" && slices.Contains(req.Changed, "size") && req.Properties["size"] == "large" {
		out.Replace = append(out.Replace, provider.Forced{Path: "size", Reason: "large machines live elsewhere"})
	}
	if req.Type == "Database" && req.Properties["storageGb"].(float64) < req.Prior["storageGb"].(float64) {
		out.Refusals = append(out.Refusals, provider.Refusal{Path: "storageGb", Reason: "storage only grows"})
	}
	return out, nil
}

const ruledStack = `resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  sub: { type: Subnet, properties: { network: "${net}", cidr: 10.0.1.0/24, zone: sim-a } }
  web:
    type: Vm
    properties:
      network: "${net}"
      subnet: "${sub}"
      image: debian-12
      size: small
  tg:
    type: TargetGroup
    properties:
      port: 80
      targets: [ "${web}" ]
  db:
    type: Database
    properties:
      engine: postgres
      storageGb: 30
`

// TestPlanFollowsTheProvidersRules: the provider's rules decide replace
// or update, its ChangePlanner adds replaces and refusals by value, and the
// plan text, the PR comment and plan.json say why.
func TestPlanFollowsTheProvidersRules(t *testing.T) {
	ctx := context.Background()
	s, err := sim.New(sim.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := &ruled{Provider: s}
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "test", RetryBase: time.Millisecond})
	if _, err := e.Apply(ctx, parse(t, ruledStack), engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	creates := 0
	for _, req := range p.asked {
		if req.ID == "" {
			creates++
		}
	}
	if creates != 5 {
		t.Errorf("the planner was asked about %d creates, want 5", creates)
	}

	next := strings.NewReplacer("port: 80", "port: 8080", "size: small", "size: medium").Replace(ruledStack)
	pl := mustPlan(t, e, parse(t, next))
	tg, web := change(t, pl, "tg"), change(t, pl, "web")
	if tg.Action != plan.Replace || len(tg.Properties) != 1 || tg.Properties[0].ReplaceReason != "a test cloud's target group keeps its port" {
		t.Errorf("tg: %s %+v; want a replace for the provider's port rule", tg.Action, tg.Properties)
	}
	if web.Action != plan.Update {
		t.Errorf("web: %s; want an update (medium is reachable in place)", web.Action)
	}
	var last kinds.Change
	for _, req := range p.asked {
		if req.Name == "web" {
			last = req
		}
	}
	if last.ID == "" || last.Prior["size"] != "small" || !slices.Equal(last.Changed, []string{"size"}) || last.Properties["size"] != "medium" {
		t.Errorf("the planner was asked %+v; want web's ID, prior size small, changed [size]", last)
	}

	next = strings.Replace(ruledStack, "size: small", "size: large", 1)
	pl = mustPlan(t, e, parse(t, next))
	if web := change(t, pl, "web"); web.Action != plan.Replace || !web.Properties[0].ForcesReplace || web.Properties[0].ReplaceReason != "large machines live elsewhere" {
		t.Errorf("web: %s %+v; want the planner's replace", web.Action, web.Properties)
	}
	var text, comment, js bytes.Buffer
	if err := render.PlanText(&text, pl, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := render.PlanJSON(&js, pl, render.JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	comment.WriteString(render.PlanComment(pl, render.Meta{}, 65536))
	for what, b := range map[string]*bytes.Buffer{"text": &text, "comment": &comment} {
		if !strings.Contains(b.String(), "# forces replacement: large machines live elsewhere") {
			t.Errorf("the plan %s does not say why:\n%s", what, b)
		}
	}
	if !strings.Contains(js.String(), `"replaceReason": "large machines live elsewhere"`) {
		t.Errorf("plan.json does not say why:\n%s", js.String())
	}

	next = strings.Replace(ruledStack, "storageGb: 30", "storageGb: 10", 1)
	_, err = e.Plan(ctx, parse(t, next))
	if want := `kyku.yaml:20:7: resource "db" (Database): property "storageGb": storage only grows`; err == nil || err.Error() != want {
		t.Errorf("plan of a shrink: %v; want %s", err, want)
	}

	p.fail = provider.Transient(errors.New("the catalogue is busy"))
	if _, err := e.Plan(ctx, parse(t, next)); err == nil || !strings.Contains(err.Error(), `with sim: after 5 attempts: transient: the catalogue is busy`) {
		t.Errorf("a planner that keeps failing: %v", err)
	}
}

// unruled is the sim planned without replace rules.
type unruled struct{ *sim.Provider }

func (unruled) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	return kinds.Planner{}.PlanChange(ctx, req)
}

// TestPlanWithoutRulesFollowsTheSchema: a provider that declares no rules
// gets the schema's immutable properties, without a reason.
func TestPlanWithoutRulesFollowsTheSchema(t *testing.T) {
	ctx := context.Background()
	s, err := sim.New(sim.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := unruled{s}
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "test", RetryBase: time.Millisecond})
	if _, err := e.Apply(ctx, parse(t, ruledStack), engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	pl := mustPlan(t, e, parse(t, strings.NewReplacer("image: debian-12", "image: debian-13", "port: 80", "port: 8080").Replace(ruledStack)))
	if web := change(t, pl, "web"); web.Action != plan.Replace || web.Properties[0].ReplaceReason != "" {
		t.Errorf("web: %s %+v; want the schema's replace", web.Action, web.Properties)
	}
	if tg := change(t, pl, "tg"); tg.Action != plan.Update {
		t.Errorf("tg: %s; want the schema's update", tg.Action)
	}
}

// cloudChecking is the sim with a CloudChecker.
type cloudChecking struct {
	*sim.Provider
	calls int
	err   error
}

func (c *cloudChecking) CheckCloud(_ context.Context, rs []provider.Desired) ([]provider.Refusal, error) {
	c.calls++
	if c.err != nil {
		return nil, c.err
	}
	var out []provider.Refusal
	for _, r := range rs {
		if r.Type == "Vm" {
			out = append(out, provider.Refusal{Resource: r.Name, Path: "size", Reason: "not sold here"})
		}
		if r.Name == "net-subnet-public-0" {
			out = append(out, provider.Refusal{Resource: r.Name, Path: "zone", Reason: "auto-subnets are checked too"})
		}
	}
	return out, nil
}

// TestPlanAsksTheCloud: a CloudChecker is asked once per plan, about
// every resource with auto-subnets injected; its refusals are positioned,
// a failure to ask is an error naming the provider.
func TestPlanAsksTheCloud(t *testing.T) {
	s, err := sim.New(sim.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := &cloudChecking{Provider: s}
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "test", RetryBase: time.Millisecond, RetryAttempts: 2})
	cfg := parse(t, `resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 } }
  web:
    type: Vm
    properties: { image: debian-12,
                  size: small }
`)
	_, err = e.Plan(context.Background(), cfg)
	want := `kyku.yaml:2:3: resource "net-subnet-public-0" (Subnet): property "zone": auto-subnets are checked too
kyku.yaml:6:19: resource "web" (Vm): property "size": not sold here`
	if err == nil || err.Error() != want || p.calls != 1 {
		t.Errorf("plan: %v (%d calls)\nwant:\n%s", err, p.calls, want)
	}
	p.err = errors.New("no route to the API")
	if _, err := e.Plan(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "check the configuration against sim: no route to the API") {
		t.Errorf("plan: %v", err)
	}
}

func change(t *testing.T, p *plan.Plan, name string) plan.Change {
	t.Helper()
	for _, c := range p.Changes {
		if c.ResourceID == name {
			return c
		}
	}
	t.Fatalf("no change of %s", name)
	return plan.Change{}
}
