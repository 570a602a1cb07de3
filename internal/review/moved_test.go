package review_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/review"
)

// TestApplyOfAPullRequestThatMovesAResource: a pull request renaming web
// to app with a moved entry (alone, or with a change) is planned, then
// applied by `/kyku apply` under leases (the default on local state): the apply plans the
// reviewed changes again by the names the configuration gives them, not
// web's former name, which no configuration has; the Vm keeps its cloud
// object under its new name.
func TestApplyOfAPullRequestThatMovesAResource(t *testing.T) {
	for _, tc := range []struct {
		name, size string
		want       []string
	}{
		{name: "a move alone", size: "small", want: []string{"move app"}},
		{name: "a move and an update", size: "large", want: []string{"update app"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.srv.SetPermission(repoName, "alice", "write")
			f.sources[headA] = "resources:\n  web: { type: Vm, properties: { image: debian-12, size: small } }\n"
			f.addPR(1, headA)
			f.plan(1, headA)
			if out, err := review.Apply(t.Context(), f.deps, review.ApplyRequest{Settings: f.settings, Number: 1, Commenter: "alice"}); err != nil || !out.Applied {
				t.Fatalf("apply #1: %v %+v", err, out)
			}
			id := f.state().Resources["web"].ProviderID
			if !f.workspace().Engine.Leased() {
				t.Fatal("the fixture's applies take the whole-state lock: the test tests nothing")
			}

			f.mu.Lock()
			f.sources[headB] = "resources:\n  app: { type: Vm, properties: { image: debian-12, size: " + tc.size + " } }\nmoved:\n  - { from: web, to: app }\n"
			f.mu.Unlock()
			f.addPR(2, headB)
			planned := f.plan(2, headB)
			c, err := review.Comment(t.Context(), f.deps, f.settings, f.comment(2, "alice", "/kyku apply"))
			if err != nil || c.Apply == nil {
				t.Fatalf("/kyku apply on #2: %v, outcome %+v", err, c)
			}
			out := c.Apply
			if !out.Applied || out.Refused != nil || out.Result == nil || out.Result.Err() != nil {
				t.Fatalf("apply #2: %+v, refused %v", out, out.Refused)
			}
			if out.Digest != planned.Digest {
				t.Errorf("applied digest %s, reviewed %s", out.Digest, planned.Digest)
			}
			var applied []string
			for _, c := range out.Result.Plan.Changes {
				applied = append(applied, c.Action.String()+" "+c.ResourceID)
			}
			if d := cmp.Diff(tc.want, applied); d != "" {
				t.Errorf("applied (-want +got):\n%s", d)
			}
			st := f.state()
			if st.Resources["web"] != nil || st.Resources["app"] == nil || st.Resources["app"].ProviderID != id {
				t.Errorf("state after the move: web %v, app %v; want app holding web's object %s", st.Resources["web"], st.Resources["app"], id)
			}
			if got := f.cloud(); len(got) != 1 {
				t.Errorf("cloud %v, want the one Vm", got)
			}
		})
	}
}
