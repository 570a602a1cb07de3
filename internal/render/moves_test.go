package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
)

// movesPlan has instances, a move that renames in the cloud, a move with
// an update after it, an import with the update that makes it match, and
// an instance destroyed by a smaller count.
func movesPlan() *plan.Plan {
	mv := change(plan.Move, "Vm", "web[0]", 2)
	mv.MovedFrom, mv.ProviderID, mv.PriorCloudName, mv.CloudName = "app-server", "100", "a1b2c3d4-app-server", "a1b2c3d4-web-0"
	mu := change(plan.Update, "SecurityGroup", `edge["a"]`, 1, prop("tags.zone", "old", "a"))
	mu.MovedFrom, mu.ProviderID = "edge-a", "7"
	im := change(plan.Import, "Database", "db", 1, prop("tags.team", "ops", "web"))
	im.ProviderID, im.CloudName = "12345", "hand-made-db"
	sec := change(plan.Import, "Vm", `batch["x"]`, 2, plan.PropChange{Path: "userData", Old: secret, New: secret + "-2", Sensitive: true})
	sec.ProviderID = "55"
	gone := change(plan.Destroy, "Vm", "web[2]", 2)
	gone.ProviderID = "102"
	return newPlan("prod", mu, im, mv, sec, change(plan.Create, "Vm", "web[10]", 2, prop("size", nil, "large")), gone,
		change(plan.NoOp, "Vm", "web[1]", 2))
}

func TestMovesAndImportsRender(t *testing.T) {
	p := movesPlan()
	if c := p.Counters; c.Move != 2 || c.Import != 2 || c.Update != 1 || c.Destroy != 1 {
		t.Fatalf("counters %+v", c)
	}
	var txt bytes.Buffer
	if err := PlanText(&txt, p, TextOptions{ShowNoOp: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "plan_moves.txt.golden", txt.String())
	for _, want := range []string{`→ move Vm web[0] (from "app-server")`, `⇐ import Database "db" (id 12345)`, `~ update SecurityGroup edge["a"] (moved from "edge-a")`, "1 to destroy", "2 to move, 2 to import"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, txt.String())
		}
	}
	md := PlanComment(p, meta(), CommentLimit)
	golden(t, "comment_moves.md.golden", md)
	var js bytes.Buffer
	if err := PlanJSON(&js, p, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "plan_moves.json.golden", js.String())
	golden(t, "picture_moves.mmd.golden", PlanMermaid(p))
	for name, out := range map[string]string{"text": txt.String(), "markdown": md, "json": js.String()} {
		if strings.Contains(out, secret) {
			t.Errorf("%s shows the sensitive value", name)
		}
	}
}
