package tfconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/value"
)

// BenchmarkExpand: 5,000 instances through a module with for_each,
// locals and functions, every instance's arguments then resolved as a
// plan resolves them.
func BenchmarkExpand(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{
		"main.tf": `
locals {
  sites = { for i in range(1000) : format("site-%04d", i) => cidrsubnet("10.0.0.0/8", 14, i) }
}
module "site" {
  source   = "./site"
  for_each = local.sites
  name     = each.key
  cidr     = each.value
}
`,
		"site/main.tf": `
variable "name" {}
variable "cidr" {}
locals {
  tags = { site = var.name, env = "prod" }
}
resource "null_resource" "net" {
  triggers = merge(local.tags, { cidr = var.cidr })
}
resource "null_resource" "sub" {
  count    = 3
  triggers = { net = null_resource.net.id, cidr = cidrsubnet(var.cidr, 4, count.index) }
}
resource "null_resource" "app" {
  triggers = { subs = join(",", null_resource.sub[*].id), name = upper(var.name) }
}
output "app" {
  value = null_resource.app.id
}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	lookup := func(r value.Ref) (any, bool) {
		return map[string]any{"id": "id-" + r.Resource}, true
	}
	for b.Loop() {
		m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
		if err != nil {
			b.Fatal(err)
		}
		cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
		if err != nil {
			b.Fatal(err)
		}
		if len(cfg.Resources) != 5000 {
			b.Fatalf("%d resources", len(cfg.Resources))
		}
		for _, r := range cfg.Resources {
			if _, _, err := value.ResolveChecked(r.Properties, lookup); err != nil {
				b.Fatal(fmt.Errorf("%s: %w", r.Name, err))
			}
		}
	}
}
