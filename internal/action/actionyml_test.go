package action_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/kyku/action/internal/action"
)

// actionYML is the part of action.yml this test checks.
type actionYML struct {
	Inputs  map[string]struct{ Default string }
	Outputs map[string]struct{ Value string }
	Runs    struct {
		Using string
		Steps []struct {
			ID   string
			Uses string
			Env  map[string]string
			With map[string]string
		}
	}
}

func readActionYML(t *testing.T) actionYML {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "action.yml"))
	must(t, err)
	var a actionYML
	must(t, yaml.Unmarshal(data, &a))
	return a
}

// TestActionYMLMatchesTheCode: every input action.yml declares is passed
// to the binary as INPUT_<NAME> and read by it, every output the binary
// writes is declared and mapped from the step, and nothing else.
func TestActionYMLMatchesTheCode(t *testing.T) {
	a := readActionYML(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q", a.Runs.Using)
	}
	var kyku map[string]string
	for _, s := range a.Runs.Steps {
		if s.ID == "kyku" {
			kyku = s.Env
		}
	}
	if kyku == nil {
		t.Fatal("action.yml has no step with id kyku")
	}

	// What the binary reads: record the INPUT_* it asks for.
	f := newFixture(t)
	var mu sync.Mutex
	asked := map[string]bool{}
	dir := t.TempDir()
	outFile := filepath.Join(dir, "out")
	must(t, os.WriteFile(outFile, nil, 0o644))
	ev := filepath.Join(dir, "event.json")
	must(t, os.WriteFile(ev, []byte(`{"repository":{"full_name":"`+repoName+`"}}`), 0o644))
	env := map[string]string{
		"GITHUB_EVENT_NAME": "release", "GITHUB_EVENT_PATH": ev, "GITHUB_REPOSITORY": repoName,
		"GITHUB_API_URL": f.srv.APIURL(), "GITHUB_OUTPUT": outFile, "INPUT_GITHUB-TOKEN": "t",
	}
	code := action.Run(t.Context(), action.Env{Getenv: func(k string) string {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(k, "INPUT_") {
			asked[k] = true
		}
		return env[k]
	}})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var read, declared, passed []string
	for k := range asked {
		read = append(read, k)
	}
	for name := range a.Inputs {
		key := "INPUT_" + strings.ToUpper(name)
		declared = append(declared, key)
		if kyku[key] != "${{ inputs."+name+" }}" {
			t.Errorf("step kyku passes %s = %q, want ${{ inputs.%s }}", key, kyku[key], name)
		}
	}
	for k := range kyku {
		if strings.HasPrefix(k, "INPUT_") {
			passed = append(passed, k)
		}
	}
	sort.Strings(read)
	sort.Strings(declared)
	sort.Strings(passed)
	if d := cmp.Diff(declared, read); d != "" {
		t.Errorf("inputs declared in action.yml (-) vs read by the binary (+):\n%s", d)
	}
	if d := cmp.Diff(declared, passed); d != "" {
		t.Errorf("inputs declared (-) vs passed to the binary (+):\n%s", d)
	}

	data, err := os.ReadFile(outFile)
	must(t, err)
	var written, outputs []string
	for k := range parseOutputs(t, string(data)) {
		written = append(written, k)
	}
	for name, o := range a.Outputs {
		outputs = append(outputs, name)
		if o.Value != "${{ steps.kyku.outputs."+name+" }}" {
			t.Errorf("output %s value = %q", name, o.Value)
		}
	}
	sort.Strings(written)
	sort.Strings(outputs)
	if d := cmp.Diff(outputs, written); d != "" {
		t.Errorf("outputs declared in action.yml (-) vs written by the binary (+):\n%s", d)
	}
	if a.Inputs["github-token"].Default != "${{ github.token }}" {
		t.Errorf("github-token default = %q", a.Inputs["github-token"].Default)
	}
}
