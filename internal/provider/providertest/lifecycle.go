package providertest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/statemgr/local"
)

// Stack is a configuration that Lifecycle drives through the engine on
// one provider. The configuration must hold what the examples under
// examples/ hold: a SecurityGroup web-sg with one rule "port: 22, cidr: …"
// (any range), a Vm web-0 written "image: debian-12\n      size: small"
// (the first such Vm), and a TargetGroup web-tg targeting web-0.
type Stack struct {
	Provider provider.Provider
	Config   string         // the configuration text, parsed as kyku.yaml
	Engine   engine.Options // DeployPrefix defaults to "kyku0001"
	Created  int            // resources the first apply creates

	// Drift changes the cloud behind Kyku's back: it adds an ingress rule
	// to web-sg (required).
	Drift func(t *testing.T)
	// Inventory lists the objects left in the cloud (required): none after
	// the destroy.
	Inventory func() []string

	// Optional checks of the cloud: after the first apply, and after the
	// in-place update (web-sg's rule, web-0's size).
	AfterCreate func(t *testing.T)
	AfterUpdate func(t *testing.T)
}

// Lifecycle drives s through the engine as a user would: apply → a plan
// with nothing to do → an in-place update (a rule of web-sg, the size of
// web-0) → a replace (web-0's image; web-tg follows the new ID) → drift
// (Stack.Drift) found by plan and undone by apply → destroy, which leaves
// the cloud empty. Every step's plan must list exactly the changes named.
func Lifecycle(t *testing.T, s Stack) {
	t.Helper()
	if s.Provider == nil || s.Drift == nil || s.Inventory == nil {
		t.Fatal("providertest: Stack needs Provider, Drift and Inventory")
	}
	opts := s.Engine
	if opts.DeployPrefix == "" {
		opts.DeployPrefix = "kyku0001"
	}
	eng := engine.New(s.Provider, local.New(t.TempDir(), "", local.Options{}), opts)
	ctx := context.Background()
	apply := func(text string) *engine.Result {
		t.Helper()
		res, err := eng.Apply(ctx, Parse(t, text), engine.ApplyOptions{AutoApprove: true}, nil)
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		if err := res.Err(); err != nil {
			t.Fatalf("apply: %v", err)
		}
		return res
	}
	plans := func(text string, want ...string) {
		t.Helper()
		pl, err := eng.Plan(ctx, Parse(t, text))
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		if got := Actions(pl); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("plan = %v, want %v", got, want)
		}
	}

	text := s.Config
	if res := apply(text); len(res.Succeeded) != s.Created {
		t.Fatalf("created %d, want %d", len(res.Succeeded), s.Created)
	}
	if s.AfterCreate != nil {
		s.AfterCreate(t)
	}
	plans(text)

	// Update in place: a security group rule and a Vm size.
	text = Edit(t, text, "port: 22, cidr: ", "port: 2222, cidr: ")
	text = Edit(t, text, "image: debian-12\n      size: small", "image: debian-12\n      size: medium")
	plans(text, "update web-sg", "update web-0")
	apply(text)
	plans(text)
	if s.AfterUpdate != nil {
		s.AfterUpdate(t)
	}

	// Replace: a new image; the target group follows the new ID.
	text = Edit(t, text, "image: debian-12\n      size: medium", "image: debian-13\n      size: medium")
	plans(text, "replace web-0", "update web-tg")
	apply(text)
	plans(text)

	// Drift: a rule added behind Kyku's back is not read by a plan whose
	// change does not touch web-sg (docs/plan-reads.md); a plan that
	// reads everything (--refresh=all, as the drift schedule does) shows
	// it as an update, and an apply that reads everything removes it.
	s.Drift(t)
	plans(text)
	all := engine.PlanOptions{Refresh: engine.RefreshAll}
	if pl, err := eng.PlanWith(ctx, Parse(t, text), all); err != nil {
		t.Fatalf("plan --refresh=all: %v", err)
	} else if got := Actions(pl); strings.Join(got, ",") != "update web-sg" {
		t.Fatalf("plan --refresh=all = %v, want [update web-sg]", got)
	}
	if res, err := eng.Apply(ctx, Parse(t, text), engine.ApplyOptions{AutoApprove: true, Refresh: engine.RefreshAll}, nil); err != nil {
		t.Fatalf("apply --refresh=all: %v", err)
	} else if err := res.Err(); err != nil {
		t.Fatalf("apply --refresh=all: %v", err)
	}
	if pl, err := eng.PlanWith(ctx, Parse(t, text), all); err != nil || len(Actions(pl)) != 0 {
		t.Fatalf("plan --refresh=all after the apply: %v, %v; want no changes", pl, err)
	}

	res, err := eng.Destroy(ctx, engine.ApplyOptions{AutoApprove: true})
	if err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if inv := s.Inventory(); len(inv) != 0 {
		t.Errorf("the cloud still holds %v after destroy", inv)
	}
}

// Example returns examples/<name>/kyku.yaml of this repository, the
// stacks users check by hand.
func Example(t *testing.T, name string) string {
	t.Helper()
	_, here, _, ok := runtime.Caller(0) // internal/provider/providertest/lifecycle.go
	if !ok {
		t.Fatal("providertest: cannot tell where the repository is")
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "..", "examples", name, "kyku.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Parse parses text as the configuration file kyku.yaml.
func Parse(t *testing.T, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Edit replaces the first old (which must occur) with new in text.
func Edit(t *testing.T, text, old, new string) string {
	t.Helper()
	if !strings.Contains(text, old) {
		t.Fatalf("the configuration has no %q", old)
	}
	return strings.Replace(text, old, new, 1)
}

// Actions lists a plan's changes that do something, as "<action> <name>".
func Actions(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			out = append(out, c.Action.String()+" "+c.ResourceID)
		}
	}
	return out
}
