package tfcorpus

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPrepare: a run holds the configuration alone (no goldens, no step1,
// no corpus files), nested directories included, and its prior state
// names its own working directory.
func TestPrepare(t *testing.T) {
	entries, err := Load(corpusRoot)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Entry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	moved, tfvars := byName["moved"], byName["variables-tfvars"]

	workdir := filepath.Join(t.TempDir(), "moved")
	r, err := Prepare(moved, workdir, "/mirror")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"main.tf", "modules/box/main.tf"}, files(t, workdir)); diff != "" {
		t.Errorf("files of the run (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(moved.PriorState), `"lineage"`) || r.PriorState == nil {
		t.Fatal("the moved entry has no prior state")
	}
	if strings.Contains(string(r.PriorState), WorkdirPlaceholder) {
		t.Error("the run's prior state still holds the placeholder")
	}
	if r.Mirror != "/mirror" || r.Name != "moved" {
		t.Errorf("run = %s, mirror %s", r.Name, r.Mirror)
	}

	r, err = Prepare(tfvars, filepath.Join(t.TempDir(), "v"), "/mirror")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.auto.tfvars", "b.auto.tfvars.json", "extra.tfvars", "main.tf", "terraform.tfvars", "terraform.tfvars.json"}
	if diff := cmp.Diff(want, files(t, r.Workdir)); diff != "" {
		t.Errorf("files of the run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"-var-file=extra.tfvars", "-var=varfile_then_var=command line"}, r.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if len(r.Env) != 3 || !strings.HasPrefix(r.Env[0], "TF_VAR_from_env=") {
		t.Errorf("env = %q", r.Env)
	}
}

func TestProviders(t *testing.T) {
	entries, err := Load(corpusRoot)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"estate-module-foreach": {"hashicorp/random", "kyku/fwtest"},
		"moved":                 {"hashicorp/random"},
		"tf-json":               nil,
		"data-sources":          {"hashicorp/local", "hashicorp/random", "kyku/fwtest", "kyku/sdktest"},
	}
	for _, e := range entries {
		w, ok := want[e.Name]
		if !ok {
			continue
		}
		got, err := e.Providers()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w, got, cmpEmptyStrings); diff != "" {
			t.Errorf("%s: providers (-want +got):\n%s", e.Name, diff)
		}
	}
}

var cmpEmptyStrings = cmp.Transformer("emptyAsNil", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

// files are the files under dir, relative, sorted.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
