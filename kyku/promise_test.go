package kyku_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/kyku"
)

// TestAPIPlanFileVerifies: a plan file decoded with encoding/json must
// verify (an edited one is refused), and a plan whose changes are not
// what its configuration plans now is refused by Apply as stale, changing
// nothing.
func TestAPIPlanFileVerifies(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	cfg := mustConfig(t, example)
	if _, err := f.e.Apply(ctx, cfg, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	p, err := f.e.Plan(ctx, mustConfig(t, strings.Replace(example, "size: small", "size: large", 1)), kyku.PlanOptions{Provider: f.sim})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var edited kyku.Plan
	if err := json.Unmarshal(bytes.Replace(data, []byte(`"large"`), []byte(`"small"`), -1), &edited); err == nil || !strings.Contains(err.Error(), "does not match its digest") {
		t.Fatalf("an edited plan file decoded: %v", err)
	}
	var back kyku.Plan
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	// The cloud changes after the plan: applying it would not do what it says.
	if _, err := f.e.Apply(ctx, mustConfig(t, strings.Replace(example, "storageGb: 20", "storageGb: 30", 1)), kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	before := f.cloud(t)
	if _, err := f.e.Apply(ctx, nil, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, &back); !kyku.IsStale(err) {
		t.Fatalf("apply of a plan the state moved past: %v", err)
	}
	if after := f.cloud(t); len(after) != len(before) {
		t.Errorf("the refused plan changed the cloud: %v → %v", before, after)
	}
}

// TestAPIDestroyAllNeedsTheOption: a configuration with no resources is
// not a way to destroy everything by accident through the Go API either.
func TestAPIDestroyAllNeedsTheOption(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	if _, err := f.e.Apply(ctx, mustConfig(t, example), kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	empty := mustConfig(t, "resources: {}\n")
	if _, err := f.e.Plan(ctx, empty, kyku.PlanOptions{Provider: f.sim}); !kyku.IsDestroyAll(err) {
		t.Fatalf("plan: %v", err)
	}
	if _, err := f.e.Apply(ctx, empty, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); !kyku.IsDestroyAll(err) {
		t.Fatalf("apply: %v", err)
	}
	if n := len(f.cloud(t)); n != 3 {
		t.Fatalf("the refusals changed the cloud: %d objects", n)
	}
	p, err := f.e.Plan(ctx, empty, kyku.PlanOptions{Provider: f.sim, AllowDestroyAll: true})
	if err != nil || p.Counters.Destroy != 3 {
		t.Fatalf("allowed plan: %v", err)
	}
	if _, err := f.e.Apply(ctx, nil, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, p); !kyku.IsDestroyAll(err) {
		t.Fatalf("apply of the allowed plan without the option: %v", err)
	}
	res, err := f.e.Apply(ctx, nil, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true, AllowDestroyAll: true}, p)
	if err != nil || res.Err() != nil || len(f.cloud(t)) != 0 {
		t.Fatalf("apply with the option: %v, cloud %v", err, f.cloud(t))
	}
}

// TestAPIEnvironmentNames: an environment name that could reach outside
// the state directory is refused before anything is written.
func TestAPIEnvironmentNames(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	for _, env := range []string{"../../x", "prod.eu", "a/b", strings.Repeat("e", 65)} {
		if _, err := f.e.Plan(ctx, mustConfig(t, example), kyku.PlanOptions{Provider: f.sim, Env: env}); err == nil || !strings.Contains(err.Error(), "the options' Env: environment name") {
			t.Errorf("Plan with Env %q: %v", env, err)
		}
		if _, err := kyku.ParseConfigFor("kyku.yaml", []byte(example), kyku.ConfigOptions{Env: env}); err == nil || !strings.Contains(err.Error(), "ConfigOptions.Env") {
			t.Errorf("ParseConfigFor with Env %q: %v", env, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(f.dir)); len(entries) != 1 {
		t.Errorf("files beside the test's directory: %v", entries)
	}
}
