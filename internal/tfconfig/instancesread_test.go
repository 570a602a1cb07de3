package tfconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/value"
)

// instancesReadFiles: a module called with for_each and one with count,
// their outputs read one instance at a time, by literal index (which
// evaluates only that instance's outputs), by an index HCL converts
// ("1" of a count), by a computed index, and whole.
const instancesReadModule = `
variable "name" {
  type = string
}
resource "kyku_ssh_key" "k" {
  public_key = "ssh-ed25519 AAAA ${var.name}"
}
output "name" {
  value = var.name
}
output "key" {
  value = kyku_ssh_key.k.public_key
}
`

func instancesReadMain(outputs string) string {
	return `
provider "kyku" {
  name = "sim"
}
locals {
  pick = "b"
}
module "each" {
  source   = "./m"
  for_each = toset(["a", "b", "c"])
  name     = "each-${each.key}"
}
module "count" {
  source = "./m"
  count  = 3
  name   = "count-${count.index}"
}
` + outputs
}

func TestOutputsReadingOneInstanceOfAModule(t *testing.T) {
	outputs := `
output "literal" {
  value = module.each["b"].key
}
output "two" {
  value = [module.each["a"].name, module.each["c"].key]
}
output "counted" {
  value = module.count[2].key
}
output "converted" {
  value = module.count["1"].name
}
output "computed" {
  value = module.each[local.pick].name
}
output "whole" {
  value = [for k, m in module.each : m.name]
}
output "splat" {
  value = module.count[*].name
}
`
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "config"), map[string]string{"main.tf": instancesReadMain(outputs), "m/main.tf": instancesReadModule})
	e := simEngine(t, dir)
	cfg := loadExpanded(t, filepath.Join(dir, "config"))
	res, err := e.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"literal":   "ssh-ed25519 AAAA each-b",
		"two":       []any{"each-a", "ssh-ed25519 AAAA each-c"},
		"counted":   "ssh-ed25519 AAAA count-2",
		"converted": "count-1",
		"computed":  "each-b",
		"whole":     []any{"each-a", "each-b", "each-c"},
		"splat":     []any{"count-0", "count-1", "count-2"},
	}
	if diff := cmp.Diff(want, res.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	again, err := e.Plan(t.Context(), loadExpanded(t, filepath.Join(dir, "config")))
	if err != nil {
		t.Fatal(err)
	}
	if again.HasChanges() {
		t.Errorf("plan after apply has changes: %+v", again.Counters)
	}
}

func TestOutputReadingAMissingInstanceOfAModule(t *testing.T) {
	for name, expr := range map[string]string{
		"for_each": `module.each["z"].name`,
		"count":    `module.count[7].name`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, filepath.Join(dir, "config"), map[string]string{
				"main.tf":   instancesReadMain("output \"missing\" {\n  value = " + expr + "\n}\n"),
				"m/main.tf": instancesReadModule,
			})
			e := simEngine(t, dir)
			m, err := tfconfig.Load(filepath.Join(dir, "config"), nil, tfconfig.Inputs{})
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
			if err == nil {
				_, err = e.Plan(t.Context(), cfg)
			}
			if err == nil || !strings.Contains(err.Error(), "Invalid index") {
				t.Errorf("plan: %v, want the invalid index reported", err)
			}
		})
	}
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for file, text := range files {
		p := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func simEngine(t testing.TB, dir string) *engine.Engine {
	t.Helper()
	prov, err := sim.Factory(t.Context(), map[string]string{"dir": filepath.Join(dir, "sim")}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return engine.New(prov, local.New(filepath.Join(dir, ".kyku"), "", local.Options{}), engine.Options{
		DeployPrefix: "t", RetryBase: time.Millisecond, DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
	})
}

func loadExpanded(t testing.TB, dir string) *config.Config {
	t.Helper()
	m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// BenchmarkOutputReadingOneModuleInstance: .ci/bench-hcl's output
// (module.site["site-00"].ids[0], of 50 instances of a module of 100
// resources each) evaluated as a plan evaluates it, every resource's
// object known. Only the instance it indexes has its outputs evaluated
// (instancesRead): 100 objects built rather than 5,000.
func BenchmarkOutputReadingOneModuleInstance(b *testing.B) {
	dir := b.TempDir()
	writeFiles(b, dir, planShapeFiles(50, 100))
	cfg := loadExpanded(b, dir)
	var out *config.Output
	for _, o := range cfg.Outputs {
		if o.Name == "first" {
			out = o
		}
	}
	if out == nil {
		b.Fatal("no output first")
	}
	objects := map[string]any{}
	for _, r := range cfg.Resources {
		objects[r.Name] = map[string]any{"id": "id-" + r.Name, "public_key": "k"}
	}
	lookup := func(r value.Ref) (any, bool) {
		obj, ok := objects[r.Resource]
		if !ok {
			return nil, false
		}
		if r.Attr == value.AllAttrs {
			return obj, true
		}
		v, ok := obj.(map[string]any)[r.Attr]
		return v, ok
	}
	b.ReportAllocs()
	for b.Loop() {
		got, unknown, err := value.ResolveChecked(out.Value, lookup)
		if err != nil || unknown || got != `id-module.site["site-00"].kyku_ssh_key.node[0]` {
			b.Fatalf("output: %v (unknown %v, %v)", got, unknown, err)
		}
	}
}
