package tfconfig_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfconfig"
)

// chain is three resources of three instances each, each instance
// reading the same instance of the one before it through count.index (or
// each.key); CHANGE is what vm's instance 1 (or "b") holds.
const (
	countedChain = `
terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
resource "TP_item" "net" {
  count = 3
  name  = "net-${count.index}"
  value = "n"
}
resource "TP_item" "sub" {
  count = 3
  name  = "sub-${count.index}"
  value = "s-${TP_item.net[count.index].revision}"
}
resource "TP_item" "vm" {
  count = 3
  name  = "vm-${count.index}"
  value = "${count.index == 1 ? "CHANGE" : "same"}-${TP_item.sub[count.index].revision}"
}
`
	eachedChain = `
terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
resource "TP_item" "net" {
  for_each = toset(["a", "b", "c"])
  name     = "net-${each.key}"
  value    = "n"
}
resource "TP_item" "sub" {
  for_each = toset(["a", "b", "c"])
  name     = "sub-${each.key}"
  value    = "s-${TP_item.net[each.key].revision}"
}
resource "TP_item" "vm" {
  for_each = toset(["a", "b", "c"])
  name     = "vm-${each.key}"
  value    = "${each.key == "b" ? "CHANGE" : "same"}-${TP_item.sub[each.key].id}"
}
`
)

// TestCountIndexReadsTheInstanceItNames: x[count.index] (and
// x[each.key]) in an instance of a counted (for_each) resource reads the
// one instance of x it names, as the index is known at plan: a change to
// one instance of the last resource of a chain reads that instance and
// the instances it reads from, not every instance of the resources
// before it (3 reads of 9; 7 when x[count.index] stood for every
// instance of x).
func TestCountIndexReadsTheInstanceItNames(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"count.index", countedChain, []string{"net[1]", "sub[1]", "vm[1]"}},
		{"each.key", eachedChain, []string{`net["b"]`, `sub["b"]`, `vm["b"]`}},
	} {
		for _, tp := range testProviders {
			t.Run(tc.name+"/"+tp.Type, func(t *testing.T) {
				w := newWorld(t, tp)
				text := strings.ReplaceAll(tc.config, "TP_", tp.Type+"_")
				w.write(map[string]string{"main.tf": strings.ReplaceAll(text, "CHANGE", "v1")})
				w.apply(w.mustLoad(tfconfig.Inputs{}))
				w.write(map[string]string{"main.tf": strings.ReplaceAll(text, "CHANGE", "v2")})
				p := w.plan(w.mustLoad(tfconfig.Inputs{}))
				var read []string
				for _, c := range p.Changes {
					if !c.NotRead {
						read = append(read, strings.TrimPrefix(c.ResourceID, tp.Type+"_item."))
					}
				}
				sort.Strings(read)
				if diff := cmp.Diff(tc.want, read); diff != "" {
					t.Errorf("objects read (-want +got):\n%s", diff)
				}
				if p.Reads == nil || p.Reads.Read != 3 || p.Reads.Objects != 9 {
					t.Errorf("reads %+v, want 3 of 9", p.Reads)
				}
			})
		}
	}
}
