package tfcorpus_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/tfcorpus"
)

// corpusRoot is the corpus, from this package's directory.
var corpusRoot = filepath.Join("..", "..", "testdata", "tfcorpus")

// entryDiffs plans e with planner in a run of its own (under dir) and
// lists every difference from what OpenTofu did: its plan, or its
// refusal. err is the harness's own failure.
func entryDiffs(ctx context.Context, e tfcorpus.Entry, dir, mirror string, planner tfcorpus.Planner) ([]string, error) {
	r, err := tfcorpus.Prepare(e, filepath.Join(dir, e.Name), mirror)
	if err != nil {
		return nil, err
	}
	planJSON, refused, err := planner(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", e.Name, err)
	}
	if e.Errors != nil {
		if len(refused) == 0 {
			return []string{"Kyku plans what OpenTofu refuses (" + tfcorpus.DiagnosticsFile + ")"}, nil
		}
		return tfcorpus.CompareDiagnostics(e.Errors, refused), nil
	}
	if len(refused) > 0 {
		diffs := []string{"Kyku refuses what OpenTofu plans:"}
		for _, d := range refused {
			diffs = append(diffs, fmt.Sprintf("  %s:%d: %s: %s", d.Filename, d.Line, d.Summary, d.Detail))
		}
		return diffs, nil
	}
	planJSON = bytes.ReplaceAll(planJSON, []byte(r.Workdir), []byte(tfcorpus.WorkdirPlaceholder))
	got, err := tfcorpus.FromKyku(planJSON)
	if err != nil {
		return nil, err
	}
	return tfcorpus.Compare(e.Golden, got), nil
}

// checkEntry fails t with every difference entryDiffs finds.
func checkEntry(t *testing.T, e tfcorpus.Entry, mirror string, planner tfcorpus.Planner) {
	t.Helper()
	diffs, err := entryDiffs(t.Context(), e, t.TempDir(), mirror, planner)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
}

// oracle answers with OpenTofu's own plan or refusal, the plan written
// as Kyku's plan --json (kykuDocOf), in the run's working directory.
func oracle(_ context.Context, r tfcorpus.Run) ([]byte, []tfcorpus.Diagnostic, error) {
	if r.Errors != nil {
		return nil, r.Errors, nil
	}
	doc := kykuDocOf(r.Golden)
	return bytes.ReplaceAll(doc, []byte(tfcorpus.WorkdirPlaceholder), []byte(r.Workdir)), nil, nil
}

// TestHarnessRoundTrip runs the conformance harness over the whole
// corpus with the oracle: every golden is expressible as Kyku's plan
// --json (planned values, markers, secrets masked) and compares equal.
func TestHarnessRoundTrip(t *testing.T) {
	entries, err := tfcorpus.Load(corpusRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name, func(t *testing.T) { checkEntry(t, e, "", oracle) })
	}
}

// TestHarnessFindsDifferences: an answer that is off in one way fails
// the entry, naming what differs.
func TestHarnessFindsDifferences(t *testing.T) {
	entries, err := tfcorpus.Load(corpusRoot)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]tfcorpus.Entry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	edited := func(edit func(p *tfcorpus.Plan)) tfcorpus.Planner {
		return func(ctx context.Context, r tfcorpus.Run) ([]byte, []tfcorpus.Diagnostic, error) {
			p := r.Golden
			p.Changes = append([]tfcorpus.Change(nil), p.Changes...)
			edit(&p)
			r.Golden = p
			return oracle(ctx, r)
		}
	}
	refuse := func(context.Context, tfcorpus.Run) ([]byte, []tfcorpus.Diagnostic, error) {
		return nil, []tfcorpus.Diagnostic{{Summary: "Unsupported block type", Filename: "main.tf", Line: 3}}, nil
	}
	cases := []struct {
		entry   string
		planner tfcorpus.Planner
		want    string
	}{
		{"count", edited(func(p *tfcorpus.Plan) { p.Changes = p.Changes[1:] }),
			"terraform_data.monitor[0]: missing: OpenTofu plans [create], Kyku plans nothing"},
		{"state-changes", edited(func(p *tfcorpus.Plan) { p.Changes[0].Actions = []string{"update"} }),
			"random_pet.counted[0]: actions: OpenTofu [no-op], Kyku [update]"},
		{"workspace-path", edited(func(p *tfcorpus.Plan) {
			p.Outputs = map[string]tfcorpus.Output{"workspace": p.Outputs["workspace"], "paths": {Action: "create", Value: "elsewhere"}}
		}), `output.paths: (value): OpenTofu {"child": {"file": true, "module": "modules/child"`},
		{"variables-sensitive", edited(func(p *tfcorpus.Plan) {
			c := p.Changes[1]
			c.Sensitive = nil
			p.Changes[1] = c
		}), "terraform_data.db: input.password: OpenTofu marks it sensitive, Kyku does not"},
		{"error-count-unknown", func(ctx context.Context, r tfcorpus.Run) ([]byte, []tfcorpus.Diagnostic, error) {
			return []byte(`{"changes": []}`), nil, nil
		}, "Kyku plans what OpenTofu refuses (tofu-diagnostics.json)"},
		{"locals", refuse, "Kyku refuses what OpenTofu plans:"},
	}
	for _, tc := range cases {
		t.Run(tc.entry, func(t *testing.T) {
			e, ok := byName[tc.entry]
			if !ok {
				t.Fatalf("no corpus entry %s", tc.entry)
			}
			diffs, err := entryDiffs(t.Context(), e, t.TempDir(), "", tc.planner)
			if err != nil {
				t.Fatal(err)
			}
			if len(diffs) == 0 || !bytes.HasPrefix([]byte(diffs[0]), []byte(tc.want)) {
				t.Errorf("differences = %q, want the first to start %q", diffs, tc.want)
			}
		})
	}
}
