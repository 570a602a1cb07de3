package tfinstall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTofuLockKeptAsItIs: a .terraform.lock.hcl written by tofu 1.12.6
// (testdata, recorded with `tofu init` from a filesystem mirror) is read
// as it is, and writing its entries back leaves the file byte for byte;
// an entry added keeps tofu's header, so the team's diff is the entry.
func TestTofuLockKeptAsItIs(t *testing.T) {
	theirs, err := os.ReadFile("testdata/tofu-1.12.6.terraform.lock.hcl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), TerraformLockFileName)
	if err := os.WriteFile(path, theirs, 0o644); err != nil {
		t.Fatal(err)
	}
	lock, err := ReadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	null, _ := ParseSource("hashicorp/null")
	if got := lock.Providers[null]; got == nil || got.Version != "3.3.1" || got.Constraints != "~> 3.2" ||
		len(got.Hashes) != 1 || got.Hashes[0] != "h1:6n/M+nVOpBHBriZu5aEngOoIYaxvLT1La4K+ZkgUuJg=" {
		t.Fatalf("null's entry: %+v", got)
	}
	if err := WriteLock(path, lock); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if diff := cmp.Diff(string(theirs), string(again)); diff != "" {
		t.Errorf("written back (-tofu's +Kyku's):\n%s", diff)
	}

	local, _ := ParseSource("hashicorp/local")
	lock.Providers[local] = &Locked{Version: "2.9.0", Constraints: "2.9.0", Hashes: []Hash{"h1:AAAA"}}
	if err := WriteLock(path, lock); err != nil {
		t.Fatal(err)
	}
	added, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(added), "# This file is maintained automatically by \"tofu init\".\n") ||
		!strings.Contains(string(added), `provider "registry.opentofu.org/hashicorp/local"`) {
		t.Errorf("with an entry added:\n%s", added)
	}

	// A lock Kyku starts says so.
	fresh := filepath.Join(t.TempDir(), TerraformLockFileName)
	if err := WriteLock(fresh, lock); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fresh); !strings.HasPrefix(string(b), "# This file is maintained automatically by \"kyku init\".\n") {
		t.Errorf("a new lock's header:\n%s", b)
	}
}

func TestIsLockFile(t *testing.T) {
	for name, want := range map[string]bool{
		".kyku.lock.hcl": true, "infra/.terraform.lock.hcl": true, "infra/.kyku.lock.hcl": true,
		"terraform.lock.hcl": false, "infra/.terraform.lock.hcl.bak": false, ".terraform/modules/modules.json": false,
	} {
		if got := IsLockFile(name); got != want {
			t.Errorf("IsLockFile(%q) = %v, want %v", name, got, want)
		}
	}
}
