package tfconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfconfig"
)

// planShapeFiles is .ci/bench-hcl's configuration (keys sites built by
// locals with format, cidrsubnet and merge, a module called with
// for_each over them, per resources from one count in it, their
// arguments from the module's inputs through format, cidrsubnet and
// jsonencode) with Kyku's own kyku_ssh_key in place of null_resource, so
// that it plans in this process against the sim.
func planShapeFiles(keys, per int) map[string]string {
	return map[string]string{
		"main.tf": fmt.Sprintf(`
provider "kyku" {
  name = "sim"
}
locals {
  base = { env = "bench", owner = "platform" }
  sites = {
    for i in range(%d) : format("site-%%02d", i) => merge(local.base, {
      cidr  = cidrsubnet("10.0.0.0/8", 8, i)
      index = tostring(i)
    })
  }
}
module "site" {
  source    = "./site"
  for_each  = local.sites
  name      = each.key
  cidr      = each.value.cidr
  tags      = each.value
  instances = %d
}
output "first" {
  value = module.site["site-00"].ids[0]
}
`, keys, per),
		"site/main.tf": `
variable "name" {
  type = string
}
variable "cidr" {
  type = string
}
variable "tags" {
  type = map(string)
}
variable "instances" {
  type = number
}
locals {
  labels = jsonencode(var.tags)
}
resource "kyku_ssh_key" "node" {
  count      = var.instances
  public_key = format("ssh-ed25519 %s %s %s", format("%s-%03d", var.name, count.index), cidrsubnet(var.cidr, 8, count.index), local.labels)
}
output "ids" {
  value = kyku_ssh_key.node[*].id
}
`,
	}
}

// processCPU is the CPU time (user + system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPlanHCL: .ci/bench-hcl's shape of 5,000 resources loaded,
// expanded and planned in one process, as `kyku plan -c DIR` does, on
// the sim: from no state (5,000 to create) and after an apply of it
// (5,000 unchanged, each read from the sim's cloud). cpu-ms/op is the
// CPU of one whole load + expand + plan.
func BenchmarkPlanHCL(b *testing.B) {
	const keys, per = 50, 100
	for _, applied := range []bool{false, true} {
		name := "from-no-state"
		if applied {
			name = "after-apply"
		}
		b.Run(name, func(b *testing.B) {
			base := b.TempDir()
			dir := filepath.Join(base, "config")
			for file, text := range planShapeFiles(keys, per) {
				p := filepath.Join(dir, file)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					b.Fatal(err)
				}
			}
			prov, err := sim.Factory(b.Context(), map[string]string{"dir": filepath.Join(base, "sim")}, func(string) string { return "" })
			if err != nil {
				b.Fatal(err)
			}
			e := engine.New(prov, local.New(filepath.Join(base, ".kyku"), "", local.Options{}), engine.Options{
				DeployPrefix: "b", RetryBase: time.Millisecond, DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
			})
			if applied {
				m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				res, err := e.Apply(b.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := res.Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			var used time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC() // each plan pays for its own garbage, as a fresh process would
				b.StartTimer()
				start := processCPU()
				m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				p, err := e.Plan(b.Context(), cfg)
				used += processCPU() - start
				if err != nil {
					b.Fatal(err)
				}
				want, got := keys*per, p.Counters.Create
				if applied {
					got = p.Counters.NoOp
				}
				if got != want || p.HasChanges() == applied {
					b.Fatalf("plan: %+v, want %d %s", p.Counters, want, name)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
