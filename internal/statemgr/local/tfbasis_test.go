package local_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// TestTerraformStateKeepsBasisBeside: what a resource was last applied
// from (state.Basis) is kept beside a Terraform-format state, never in
// it; once OpenTofu writes the state, it no longer applies (the next plan
// reads the object).
func TestTerraformStateKeepsBasisBeside(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "terraform.tfstate")
	put(t, path, recordedState(t, "lifecycle"))
	st, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	name := st.Names()[0]
	want := &state.Basis{Config: "c0ffee", Provider: "beef", Version: "3.2.4", ReadAt: time.Date(2026, 12, 6, 13, 0, 0, 0, time.UTC)}
	st.Resources[name].Basis = want
	st.Metadata.Serial++
	if err := newTF(t, dir, "").Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if data := string(get(t, path)); strings.Contains(data, "c0ffee") || strings.Contains(data, "basis") {
		t.Errorf("the Terraform state holds the basis:\n%s", data)
	}
	again, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, again.Resources[name].Basis); d != "" {
		t.Errorf("basis read back (-want +got):\n%s", d)
	}

	// OpenTofu writes the state (a new serial): what Kyku kept is stale.
	var doc map[string]any
	if err := json.Unmarshal(get(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	doc["serial"] = doc["serial"].(float64) + 1
	data, _ := json.MarshalIndent(doc, "", "  ")
	put(t, path, data)
	after, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := after.Resources[name].Basis; b != nil {
		t.Errorf("basis after OpenTofu wrote the state: %+v, want none", b)
	}
}
