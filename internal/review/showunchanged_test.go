package review_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
)

// TestPlanCommentShowUnchanged: the plan comment and summary count the
// unchanged resources on one line; with Settings.ShowUnchanged (the
// Action's show-unchanged input) they list each.
func TestPlanCommentShowUnchanged(t *testing.T) {
	for _, show := range []bool{false, true} {
		t.Run(map[bool]string{false: "counted", true: "listed"}[show], func(t *testing.T) {
			f := newFixture(t)
			f.settings.ShowUnchanged = show
			if _, err := f.workspace().Engine.Apply(context.Background(), parse(t, configV1), engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
				t.Fatal(err)
			}
			f.addPR(1, headB)
			out := f.plan(1, headB)
			replies := f.replies(1)
			if len(replies) != 1 {
				t.Fatalf("%d comments, want 1", len(replies))
			}
			for what, body := range map[string]string{"comment": replies[0], "summary": out.Summary} {
				if listed := strings.Contains(body, "\n✓ no-op Vm \"web\"\n"); listed != show {
					t.Errorf("%s lists web %v, want %v:\n%s", what, listed, show, body)
				}
				if counted := strings.Contains(body, "✓ 1 unchanged resource not shown.\n"); counted == show {
					t.Errorf("%s counts web %v, want %v:\n%s", what, counted, !show, body)
				}
			}
		})
	}
}
