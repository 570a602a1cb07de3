package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/diag"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// expectedErrors reads the "# ERROR: <message>" comments of a fixture as
// "line: message" strings (several may share a line).
func expectedErrors(t *testing.T, data []byte) []string {
	t.Helper()
	var want []string
	for i, line := range strings.Split(string(data), "\n") {
		parts := strings.Split(line, "# ERROR: ")
		for _, msg := range parts[1:] {
			want = append(want, fmt.Sprintf("%d: %s", i+1, strings.TrimSpace(msg)))
		}
	}
	sort.Strings(want)
	return want
}

// diagnostics parses files and returns the diagnostics (failing the test if
// the error is of another type).
func diagnostics(t *testing.T, files ...File) diag.Diagnostics {
	t.Helper()
	return diagnosticsIn(t, Inputs{}, files...)
}

// diagnosticsIn is diagnostics for the expansion in.
func diagnosticsIn(t *testing.T, in Inputs, files ...File) diag.Diagnostics {
	t.Helper()
	cfg, err := ParseEnv(files, in)
	if err == nil {
		return nil
	}
	if cfg != nil {
		t.Errorf("Parse returned a config together with an error")
	}
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("Parse error %T is not diag.Diagnostics: %v", err, err)
	}
	return ds
}

// TestErrorFixtures parses each testdata/errors/*.yaml alone and checks that
// it reports exactly the errors its comments announce, on those lines. A
// first line "# ENV: name" expands it for that environment.
func TestErrorFixtures(t *testing.T) {
	paths, err := filepath.Glob("testdata/errors/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := expectedErrors(t, data)
			if len(want) == 0 {
				t.Fatal("fixture announces no # ERROR")
			}
			var in Inputs
			if env, ok := strings.CutPrefix(strings.SplitN(string(data), "\n", 2)[0], "# ENV: "); ok {
				in.Environment = strings.TrimSpace(env)
			}
			var got []string
			for _, d := range diagnosticsIn(t, in, File{Name: name, Data: data}) {
				if d.Pos.File != name {
					t.Errorf("diagnostic %q names file %q, want %q", d, d.Pos.File, name)
				}
				got = append(got, fmt.Sprintf("%d: %s", d.Pos.Line, d.Message))
			}
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCrossFileErrors covers what only shows when files are merged.
func TestCrossFileErrors(t *testing.T) {
	a := File{Name: "dir/a.yaml", Data: []byte(`provider: sim
backend: { type: local }
resources:
  key:
    type: SshKey
    properties: { publicKey: k }
outputs:
  id: ${key.id}
`)}
	b := File{Name: "dir/b.yaml", Data: []byte(`provider: { name: aws, region: eu-central-1 }
backend: { type: s3, bucket: b }
resources:
  key:
    type: SshKey
    properties: { publicKey: other }
outputs:
  id: ${key}
`)}
	want := []string{
		`dir/b.yaml:1:1: duplicate "provider" (first defined at dir/a.yaml:1:1)`,
		`dir/b.yaml:2:1: duplicate "backend" (first defined at dir/a.yaml:2:1)`,
		`dir/b.yaml:4:3: duplicate resource "key" (first defined at dir/a.yaml:4:3)`,
		`dir/b.yaml:8:3: duplicate output "id" (first defined at dir/a.yaml:8:3)`,
	}
	var got []string
	for _, d := range diagnostics(t, a, b) {
		got = append(got, d.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestErrorPositions pins line AND column for a few diagnostics, and the
// alias guards.
func TestErrorPositions(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"property value column", "resources:\n  web:\n    type: Vm\n    properties: { image: [x] }\n",
			[]string{`f.yaml:4:26: resources.web.properties.image: expected string, got list`}},
		{"unknown type at the value", "resources:\n  web:\n    type: Vmm\n",
			[]string{`f.yaml:3:11: resource "web": unknown type "Vmm" (did you mean "Vm"?)`}},
		{"not a mapping", "- a\n- b\n",
			[]string{`f.yaml:1:1: top level: expected mapping with "resources", got list`}},
		{"second document", "resources: {}\n---\nresources: {}\n",
			[]string{`f.yaml:2:1: only one YAML document per file is supported (remove the second ---)`}},
		{"merge keys", "resources:\n  a: &a\n    type: SshKey\n    properties: { publicKey: k }\n  b:\n    <<: *a\n",
			[]string{`f.yaml:5:3: resource "b": missing "type" (one of: Database, LoadBalancer, SecurityGroup, SshKey, Subnet, TargetGroup, Vm, Vpc)`,
				`f.yaml:6:5: resources.b: merge keys (<<) are not supported; repeat the keys or use an alias for the whole value`}},
		{"self-containing alias", "outputs:\n  x: &a [ *a ]\n",
			[]string{`f.yaml:2:11: outputs.x[0]: alias *a contains itself`}},
		{"non-finite number", "outputs:\n  x: .inf\n",
			[]string{`f.yaml:2:6: outputs.x: number .inf is not a finite 64-bit number`}},
		{"empty provider name", "provider: \"\"\n",
			[]string{`f.yaml:1:1: provider: name must not be empty (e.g. sim or aws)`}},
		{"provider name not a string", "provider: { name: [a] }\n",
			[]string{`f.yaml:1:19: provider.name: expected string, got list`}},
		{"null outputs and resources are empty", "resources:\noutputs:\n", nil},
		{"unsupported tag", "outputs:\n  x: !Ref web\n",
			[]string{`f.yaml:2:6: outputs.x: unsupported YAML tag !Ref`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range diagnostics(t, File{Name: "f.yaml", Data: []byte(tt.yaml)}) {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestAliasBomb: nested aliases must not exhaust memory or time.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("outputs:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	ds := diagnostics(t, File{Name: "bomb.yaml", Data: []byte(b.String())})
	if len(ds) == 0 || !strings.Contains(ds.Error(), "document too large after expanding aliases") {
		t.Fatalf("want a 'too large' diagnostic, got %v", ds)
	}
}

// TestValidateGolden pins the full `kyku validate` output (every error,
// sorted, file:line:col) for a directory with errors in two files.
func TestValidateGolden(t *testing.T) {
	_, err := Load(filepath.Join("testdata", "multi"))
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("Load error = %v, want diagnostics", err)
	}
	got := ds.Error() + "\n"
	path := filepath.Join("testdata", "multi.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
