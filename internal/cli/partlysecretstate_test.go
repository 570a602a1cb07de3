package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A Terraform root setting arguments secret only in parts
// (testdata/tfroots/partlysecret, its state applied by OpenTofu): Kyku
// records the secret parts as OpenTofu does, and later plans mask those
// parts alone.

const partlySecretToken = "tok-s3cr3t-ns"

// sensitivePaths are the sensitive_attributes of each managed instance
// of a Terraform state file, by address, as written.
func sensitivePaths(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Resources []struct {
			Mode, Type, Name string
			Instances        []struct {
				Sensitive json.RawMessage `json:"sensitive_attributes"`
			}
		}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range f.Resources {
		for _, in := range r.Instances {
			if r.Mode == "managed" {
				var v any
				if err := json.Unmarshal(in.Sensitive, &v); err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(v) // the same whatever the form (indented or not)
				out[r.Type+"."+r.Name] = string(b)
			}
		}
	}
	return out
}

// TestPartlySecretStateAsTofuWritesIt: Kyku applying the root from an
// empty state writes the sensitive_attributes OpenTofu wrote applying it.
func TestPartlySecretStateAsTofuWritesIt(t *testing.T) {
	k, root := tofuRoot(t, "partlysecret")
	want := sensitivePaths(t, statePath(root, ""))
	for _, p := range []string{"terraform.tfstate", "terraform.tfstate.d", "cloud"} {
		if err := os.RemoveAll(filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "cloud"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if d := cmp.Diff(want, sensitivePaths(t, statePath(root, ""))); d != "" {
		t.Errorf("sensitive_attributes (-tofu +kyku):\n%s", d)
	}
}

// TestPartlySecretStaysSecretInParts: a change beside the secret parts,
// planned on the state OpenTofu wrote, then (once Kyku applied it) on the
// state Kyku wrote, shows the change in clear and the secret nowhere, in
// the text plan and in --json; the state keeps the secret paths.
func TestPartlySecretStaysSecretInParts(t *testing.T) {
	k, root := tofuRoot(t, "partlysecret")
	tofuPaths := sensitivePaths(t, statePath(root, ""))
	for i, env := range []string{"dev", "qa"} {
		was := []string{"prod", "dev"}[i]
		code, text, errOut := k.run("", "plan", "-c", root, "--var", "env="+env)
		if code != 0 {
			t.Fatalf("plan env=%s: exit %d\n%s%s", env, code, text, errOut)
		}
		code, js, errOut := k.run("", "plan", "--json", "-c", root, "--var", "env="+env)
		if code != 0 {
			t.Fatalf("plan --json env=%s: exit %d\n%s", env, code, errOut)
		}
		if strings.Contains(text+js, partlySecretToken) {
			t.Errorf("env=%s: a plan shows the secret:\n%s\n%s", env, text, js)
		}
		for _, clear := range []string{"tags.env: " + was + " → " + env, "input.env: " + was + " → " + env} {
			if strings.Count(text, clear) < 1 {
				t.Errorf("env=%s: the text plan does not show %q:\n%s", env, clear, text)
			}
		}
		for _, part := range []string{`".tags.token"`, `".endpoints[1].host"`, `".input.list[1]"`, `".input.obj.key"`, `"env": "` + env + `"`} {
			if !strings.Contains(js, part) {
				t.Errorf("env=%s: plan --json lacks %s (the secret paths alone, the rest in clear):\n%s", env, part, js)
			}
		}
		if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root, "--var", "env="+env); code != 0 {
			t.Fatalf("apply env=%s: exit %d\n%s%s", env, code, out, errOut)
		}
		if d := cmp.Diff(tofuPaths, sensitivePaths(t, statePath(root, ""))); d != "" {
			t.Errorf("env=%s: sensitive_attributes after apply (-tofu +kyku):\n%s", env, d)
		}
	}
}

// TestWholeSecretStateStillReads: a state whose sensitive_attributes mark
// the whole argument (as Kyku wrote them before it kept paths) reads as
// it did: the arguments masked whole, the secret nowhere. Once a change
// to the resources is applied, the state marks the parts the
// configuration marks, as OpenTofu would, and the next plan masks those
// alone.
func TestWholeSecretStateStillReads(t *testing.T) {
	k, root := tofuRoot(t, "partlysecret")
	want := sensitivePaths(t, statePath(root, ""))
	path := statePath(root, "")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	whole := 0
	for _, r := range st["resources"].([]any) {
		r := r.(map[string]any)
		for _, in := range r["instances"].([]any) {
			in := in.(map[string]any)
			var tops []any
			for _, p := range in["sensitive_attributes"].([]any) {
				top := p.([]any)[:1]
				if !slices.ContainsFunc(tops, func(t any) bool { return cmp.Equal(t, top) }) {
					tops = append(tops, top)
				}
			}
			whole += len(tops)
			in["sensitive_attributes"] = tops
		}
	}
	if whole == 0 {
		t.Fatal("no sensitive attributes in the recorded state")
	}
	data, _ = json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, text, errOut := k.run("", "plan", "-c", root, "--var", "env=dev")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s%s", code, text, errOut)
	}
	if strings.Contains(text, partlySecretToken) || strings.Contains(text, "prod → dev") || !strings.Contains(text, "tags.env: (sensitive) → (sensitive)") {
		t.Errorf("the plan does not mask the arguments whole:\n%s", text)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root, "--var", "env=dev"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if d := cmp.Diff(want, sensitivePaths(t, path)); d != "" {
		t.Errorf("sensitive_attributes after apply (-want +got):\n%s", d)
	}
	code, text, errOut = k.run("", "plan", "-c", root, "--var", "env=qa")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s%s", code, text, errOut)
	}
	if strings.Contains(text, partlySecretToken) || !strings.Contains(text, "tags.env: dev → qa") || !strings.Contains(text, "input.env: dev → qa") {
		t.Errorf("the plan after apply does not mask the secret parts alone:\n%s", text)
	}
}

// TestNewlySecretPartsOfAnUnchangedObject: an object whose configuration
// marks parts of it secret that its state does not (a state written
// before they were), applied with nothing to change, gets them recorded
// as OpenTofu writes them: a map's entry as an index step, so that
// OpenTofu reading the state masks it too (an attribute step on a map
// would mark nothing there).
func TestNewlySecretPartsOfAnUnchangedObject(t *testing.T) {
	k, root := tofuRoot(t, "partlysecret")
	path := statePath(root, "")
	want := sensitivePaths(t, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for _, r := range f["resources"].([]any) {
		for _, in := range r.(map[string]any)["instances"].([]any) {
			in.(map[string]any)["sensitive_attributes"] = []any{}
		}
	}
	if data, err = json.MarshalIndent(f, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if d := cmp.Diff(want, sensitivePaths(t, path)); d != "" {
		t.Errorf("sensitive_attributes after an apply changing nothing (-tofu +kyku):\n%s", d)
	}
}
