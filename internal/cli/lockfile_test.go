package cli_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// The lock file of a directory of .tf files is Terraform's own,
// .terraform.lock.hcl: kyku init writes it, plan checks the providers
// against it, and a team's lock, written by tofu, is honoured as it is.

func TestTerraformDirectoryLockIsTerraforms(t *testing.T) {
	tp := tfplugintest.SDK
	k, run := newTerraformKyku(t, tp, map[string]string{"main.tf": tfMain, "terraform.tfvars": "env = \"prod\"\n"})
	tf := filepath.Join(k.dir, "tf")
	written, err := os.ReadFile(filepath.Join(tf, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatalf("kyku init wrote no .terraform.lock.hcl: %v", err)
	}
	if !strings.Contains(string(written), `provider "registry.opentofu.org/kyku/`+tp.Type+`"`) {
		t.Errorf(".terraform.lock.hcl:\n%s", written)
	}
	if _, err := os.Stat(filepath.Join(tf, ".kyku.lock.hcl")); err == nil {
		t.Errorf("kyku init wrote .kyku.lock.hcl beside .tf files")
	}
	if code, out, errOut := run("plan"); code != 0 {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}

	// Plan reads .terraform.lock.hcl, not Kyku's name for a lock.
	if err := os.Rename(filepath.Join(tf, ".terraform.lock.hcl"), filepath.Join(tf, ".kyku.lock.hcl")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("plan")
	if code == 0 || !strings.Contains(errOut, "not in the lock file "+filepath.Join(tf, ".terraform.lock.hcl")) {
		t.Errorf("plan with the lock under Kyku's name: exit %d, want the provider not locked in .terraform.lock.hcl\n%s%s", code, out, errOut)
	}
}

// teamLockDir is a directory of .tf files with the lock tofu 1.12.6 wrote
// for it (testdata, recorded with `tofu init` from a filesystem mirror of
// hashicorp/null 3.3.1 and hashicorp/random 3.9.0).
func teamLockDir(t *testing.T, k *kyku) (dir string, lock []byte) {
	t.Helper()
	lock, err := os.ReadFile("testdata/tofu-1.12.6.terraform.lock.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(k.dir, "tf")
	writeFiles(t, dir, map[string]string{
		".terraform.lock.hcl": string(lock),
		"main.tf": `terraform {
  required_providers {
    null   = { source = "hashicorp/null", version = "~> 3.2" }
    random = { source = "hashicorp/random", version = ">= 3.0.0" }
  }
}
resource "null_resource" "a" {}
resource "random_pet" "p" {}
`,
	})
	return dir, lock
}

// TestTeamsTofuLockIsHonoured: packages that are not the ones the team's
// lock pins are refused by init and by plan, naming .terraform.lock.hcl,
// and init leaves the team's lock as it is.
func TestTeamsTofuLockIsHonoured(t *testing.T) {
	k := newKyku(t, "")
	tf, lock := teamLockDir(t, k)
	mirror := t.TempDir()
	platform := runtime.GOOS + "_" + runtime.GOARCH
	for _, p := range []string{"null/3.3.1/" + platform + "/terraform-provider-null_v3.3.1", "random/3.9.0/" + platform + "/terraform-provider-random_v3.9.0"} {
		writeFiles(t, mirror, map[string]string{"registry.opentofu.org/hashicorp/" + p: "#!/bin/sh\necho not the team's provider\n"})
	}
	k.env["KYKU_PLUGIN_MIRROR"] = mirror
	for _, cmd := range []string{"init", "plan"} {
		code, out, errOut := k.run("", cmd, "-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku"))
		if code == 0 || !strings.Contains(errOut, "matches none of the hashes in .terraform.lock.hcl") {
			t.Errorf("%s with other packages: exit %d, want them refused by .terraform.lock.hcl\n%s%s", cmd, code, out, errOut)
		}
		if now, _ := os.ReadFile(filepath.Join(tf, ".terraform.lock.hcl")); string(now) != string(lock) {
			t.Errorf("after %s the team's lock changed:\n%s", cmd, now)
		}
	}
}

// TestTeamsTofuLockWithItsPackages: with the very packages the team's
// lock was recorded from (KYKU_TEST_NULL_MIRROR: the benchmark mirror of
// docs/benchmarks-tools.md, linux_amd64), kyku init leaves the lock byte
// for byte and plan runs.
func TestTeamsTofuLockWithItsPackages(t *testing.T) {
	mirror := os.Getenv("KYKU_TEST_NULL_MIRROR")
	if mirror == "" {
		t.Skip("KYKU_TEST_NULL_MIRROR is not set (see docs/benchmarks-tools.md)")
	}
	k := newKyku(t, "")
	tf, lock := teamLockDir(t, k)
	k.env["KYKU_PLUGIN_MIRROR"] = mirror
	for _, cmd := range []string{"init", "plan"} {
		code, out, errOut := k.run("", cmd, "-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku"))
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", cmd, code, out, errOut)
		}
		if now, _ := os.ReadFile(filepath.Join(tf, ".terraform.lock.hcl")); string(now) != string(lock) {
			t.Errorf("after %s the team's lock changed:\n%s", cmd, now)
		}
	}
}

// TestInitReadOnlyLock: kyku init -lockfile=readonly, as tofu's, installs
// what the lock records and refuses, writing nothing, when the lock would
// change (a provider it does not record); tofu init's backend flags
// (-backend=false, -reconfigure) are taken, Kyku's init touching no
// backend.
func TestInitReadOnlyLock(t *testing.T) {
	tp := tfplugintest.SDK
	k, run := newTerraformKyku(t, tp, map[string]string{"main.tf": tfMain, "terraform.tfvars": "env = \"prod\"\n"})
	tf := filepath.Join(k.dir, "tf")
	lockPath := filepath.Join(tf, ".terraform.lock.hcl")
	before, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("init", "-lockfile=readonly", "-backend=false", "-reconfigure", "-input=false"); code != 0 || !strings.Contains(out, "read-only: not written") {
		t.Fatalf("init -lockfile=readonly with the lock complete: exit %d\n%s%s", code, out, errOut)
	}
	// A provider the lock does not record: refused, the lock unchanged.
	writeFiles(t, tf, map[string]string{"more.tf": `terraform {
  required_providers {
    extra = { source = "kyku/` + tfplugintest.Framework.Type + `" }
  }
}
provider "extra" {}
`})
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tp, tfplugintest.Framework)
	code, out, errOut := run("init", "-lockfile=readonly")
	if code != 1 || !strings.Contains(errOut, "the lock file is read-only (-lockfile=readonly)") {
		t.Errorf("init -lockfile=readonly with a provider the lock lacks: exit %d, want 1 and why\n%s%s", code, out, errOut)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(before) {
		t.Errorf("init -lockfile=readonly changed the lock file:\n%s", after)
	}
	if code, _, errOut := run("init", "-lockfile=readonly", "--upgrade"); code != 1 || !strings.Contains(errOut, "choose one") {
		t.Errorf("init -lockfile=readonly --upgrade: exit %d, want refused\n%s", code, errOut)
	}
	if code, out, errOut := run("init"); code != 0 {
		t.Errorf("init: exit %d\n%s%s", code, out, errOut)
	}
	if after, _ := os.ReadFile(lockPath); !strings.Contains(string(after), tfplugintest.Framework.Type) {
		t.Errorf("init did not record the new provider:\n%s", after)
	}
}

// TestInitLocksEveryRequiredProvider: kyku init installs and locks every
// provider required_providers names, one no resource uses too, as tofu
// init does: a team's lock recording it is kept as it is (Kyku's init
// dropped the entry), and plan, as OpenTofu's, refuses it unlocked.
func TestInitLocksEveryRequiredProvider(t *testing.T) {
	tp := tfplugintest.SDK
	k, run := newTerraformKyku(t, tp, map[string]string{"main.tf": tfMain, "terraform.tfvars": "env = \"prod\"\n"})
	tf := filepath.Join(k.dir, "tf")
	lockPath := filepath.Join(tf, ".terraform.lock.hcl")
	writeFiles(t, tf, map[string]string{"more.tf": `terraform {
  required_providers {
    unused = { source = "kyku/` + tfplugintest.Framework.Type + `" }
  }
}
`})
	code, out, errOut := run("plan")
	if code != 1 || !strings.Contains(errOut, `provider "unused" (registry.opentofu.org/kyku/`+tfplugintest.Framework.Type+`) is not in the lock file`) {
		t.Errorf("plan with a required provider unlocked: exit %d, want 1 and the provider named\n%s%s", code, out, errOut)
	}
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tp, tfplugintest.Framework)
	if code, out, errOut := run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	lock, err := os.ReadFile(lockPath)
	if err != nil || !strings.Contains(string(lock), `provider "registry.opentofu.org/kyku/`+tfplugintest.Framework.Type+`"`) {
		t.Fatalf("init did not lock the required provider no resource uses (%v):\n%s", err, lock)
	}
	if code, out, errOut := run("init"); code != 0 {
		t.Fatalf("init again: exit %d\n%s%s", code, out, errOut)
	}
	if now, _ := os.ReadFile(lockPath); string(now) != string(lock) {
		t.Errorf("init again changed the lock:\n%s", now)
	}
	if code, out, errOut := run("plan"); code != 0 {
		t.Errorf("plan: exit %d\n%s%s", code, out, errOut)
	}
}
