package action_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/workspace"
)

// TestActionShowUnchanged: the plan comment counts the unchanged
// resources on one line; input show-unchanged lists each.
func TestActionShowUnchanged(t *testing.T) {
	for _, show := range []string{"false", "true"} {
		t.Run("show-unchanged="+show, func(t *testing.T) {
			f := newFixture(t)
			old := f.config("web")
			f.setRef(defaultRef, old)
			f.setCheckout(old)
			// What the default branch describes is applied (as its merge did).
			cfg, err := config.Parse([]config.File{{Name: configPath, Data: []byte(old)}})
			must(t, err)
			ws, err := workspace.Open(t.Context(), cfg, f.settings(), provider.Registry{"sim": sim.Factory})
			must(t, err)
			res, err := ws.Engine.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			must(t, err)
			must(t, res.Err())

			f.setRef(shaA, f.config("web", "worker"))
			f.addPR(2, shaA)
			r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{"INPUT_SHOW-UNCHANGED": show})
			wantCode(t, r, 0)
			body := f.srv.Comments(repoName, 2)[0].Body
			listed := strings.Contains(body, "\n✓ no-op Vm \"web\"\n")
			counted := strings.Contains(body, "✓ 1 unchanged resource not shown.\n")
			if listed != (show == "true") || counted == listed {
				t.Errorf("web listed %v, counted %v:\n%s", listed, counted, body)
			}
		})
	}
}
