package tfcorpus_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// TestPlannerStartsFromStep1State: the planner hands Kyku the state
// OpenTofu left after step 1, each object under its Terraform address
// with its attributes, as the state its plan starts from.
func TestPlannerStartsFromStep1State(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusRoot, "state-changes", "step1.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	workdir := t.TempDir()
	if err := writePriorState(data, workdir); err != nil {
		t.Fatal(err)
	}
	b, err := local.NewTerraform(local.TerraformConfig{Dir: workdir}, "default", tflayout.Options{Hostname: "tfcorpus", PID: 4242}, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Read(t.Context())
	if err != nil || st == nil {
		t.Fatalf("Kyku's state: %v, err %v", st, err)
	}
	names := st.Names()
	slices.Sort(names)
	want := []string{
		"random_pet.counted[0]", "random_pet.counted[1]", "random_pet.counted[2]",
		`random_pet.keyed["a"]`, `random_pet.keyed["b"]`, `random_pet.keyed["c"]`,
		"random_string.replaced", "terraform_data.gone", "terraform_data.same", "terraform_data.updated",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("Kyku's state (-want +got):\n%s", diff)
	}
	pet := st.Resources[`random_pet.keyed["b"]`]
	if pet.Type != "random_pet" || pet.ProviderID != "frank-insect" || pet.Outputs["id"] != "frank-insect" {
		t.Errorf(`random_pet.keyed["b"] is %+v`, pet)
	}
}
