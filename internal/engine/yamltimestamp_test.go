package engine_test

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
)

// timestamp() in a kyku.yaml is known after apply, as in a .tf file: the
// plan shows it unknown, and the apply writes the apply's time (the
// engine's clock), not a refusal that the plan never announced.
func TestYAMLTimestampKnownAtApply(t *testing.T) {
	w := newWorld(t)
	at := time.Date(2026, 12, 6, 18, 30, 0, 0, time.UTC)
	e := w.engine(func(o *engine.Options) { o.Now = func() time.Time { return at } })
	cfg := parse(t, `provider: sim
resources:
  web:
    type: Vm
    properties: { image: debian-12, tags: { at: "${timestamp()}" } }
`)
	p := mustPlan(t, e, cfg)
	if c := p.Changes[0]; c.Action != plan.Create {
		t.Fatalf("plan: %+v", c)
	}
	mustApply(t, e, cfg)
	tags, _ := w.state().Resources["web"].Config["tags"].(map[string]any)
	if got, want := tags["at"], "2026-12-06T18:30:00Z"; got != want {
		t.Errorf("tags.at after apply = %#v, want %q (the apply's time)", got, want)
	}
}
