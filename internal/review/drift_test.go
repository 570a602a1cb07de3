package review_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// editVm changes the one Vm's properties behind Kyku's back.
func (f *fixture) editVm(edit func(map[string]any)) {
	f.t.Helper()
	files, err := filepath.Glob(filepath.Join(f.simDir, "Vm", "*.json"))
	if err != nil || len(files) != 1 {
		f.t.Fatalf("want one Vm in the sim, got %v (%v)", files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		f.t.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(data, &o); err != nil {
		f.t.Fatal(err)
	}
	edit(o["properties"].(map[string]any))
	if data, err = json.Marshal(o); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(files[0], data, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// TestDrift: drift opens one issue with a table, a second check updates the
// same issue, and the issue is closed with a comment once drift is gone.
func TestDrift(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	cfg := parse(t, configV1)
	if _, err := f.workspace().Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	check := func() *review.DriftOutcome {
		t.Helper()
		out, err := review.Drift(ctx, f.deps, review.DriftRequest{Settings: f.settings, Config: cfg})
		if err != nil {
			t.Fatalf("Drift: %v", err)
		}
		return out
	}
	type issue struct{ State, Title string }
	issues := func() []issue {
		var out []issue
		for _, is := range f.srv.Issues(repoName) {
			out = append(out, issue{is.State, is.Title})
		}
		return out
	}

	// No drift, no issue: nothing is written to GitHub.
	if out := check(); out.Drift || out.IssueURL != "" || len(f.srv.Issues(repoName)) != 0 {
		t.Fatalf("no drift: %+v, issues %v", out, f.srv.Issues(repoName))
	}

	serial := f.serial()
	f.editVm(func(p map[string]any) { p["size"] = "xlarge" })
	first := check()
	if !first.Drift || first.IssueURL == "" || len(first.Result.Drift) != 1 {
		t.Fatalf("drift: %+v", first)
	}
	title := render.DriftTitle("", env)
	if diff := cmp.Diff([]issue{{"open", title}}, issues()); diff != "" {
		t.Fatalf("issues (-want +got):\n%s", diff)
	}
	is := f.srv.Issues(repoName)[0]
	contains(t, "drift issue", is.Body, render.DriftMarker("", env), "| Resource | Property |", "`web`", "`size`", "`small`", "`xlarge`")
	if diff := cmp.Diff([]string{"kyku-drift"}, is.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if f.serial() != serial {
		t.Errorf("a report-only check wrote the state: serial %d → %d", serial, f.serial())
	}

	f.editVm(func(p map[string]any) { p["image"] = "debian-13" })
	second := check()
	if second.IssueURL != first.IssueURL {
		t.Errorf("second check reported %s, want the same issue %s", second.IssueURL, first.IssueURL)
	}
	if diff := cmp.Diff([]issue{{"open", title}}, issues()); diff != "" {
		t.Fatalf("issues after a second drift (-want +got):\n%s", diff)
	}
	contains(t, "updated drift issue", f.srv.Issues(repoName)[0].Body, "`image`", "`debian-13`", "`xlarge`")

	f.editVm(func(p map[string]any) { p["size"], p["image"] = "small", "debian-12" })
	fixed := check()
	if fixed.Drift || !fixed.Closed || fixed.IssueURL != first.IssueURL {
		t.Fatalf("after the fix: %+v", fixed)
	}
	if diff := cmp.Diff([]issue{{"closed", title}}, issues()); diff != "" {
		t.Fatalf("issues after the fix (-want +got):\n%s", diff)
	}
	comments := f.srv.Comments(repoName, is.Number)
	if len(comments) != 2 {
		t.Fatalf("%d comments on the issue, want what changed and the closing one", len(comments))
	}
	contains(t, "change comment", comments[0].Body, "New since the last report", "`Vm web`: `image`")
	contains(t, "closing comment", comments[1].Body, "No drift remains in `prod`")

	// Checked again with no drift: the closed issue is left alone.
	f.srv.ResetRequests()
	if out := check(); out.Closed || f.srv.CountRequests("PATCH", "") != 0 || f.srv.CountRequests("POST", "") != 0 {
		t.Errorf("a clean check after closing wrote to GitHub: %+v", out)
	}
	f.noSecret()
}

// TestDriftWritesStateWhenAsked: WriteState records the cloud in the state.
func TestDriftWritesStateWhenAsked(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	cfg := parse(t, configV1)
	if _, err := f.workspace().Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	f.editVm(func(p map[string]any) { p["size"] = "xlarge" })
	out, err := review.Drift(ctx, f.deps, review.DriftRequest{Settings: f.settings, Config: cfg, WriteState: true})
	if err != nil || !out.Drift || !out.Result.Written {
		t.Fatalf("Drift: %v %+v", err, out)
	}
	if got := f.state().Resources["web"].Config["size"]; got != "xlarge" {
		t.Errorf("state size %v, want the cloud's xlarge", got)
	}
}
