package tfinstall

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLockAgreesWithOpenTofu: for the null provider in the benchmark
// mirror (docs/benchmarks-tools.md), OpenTofu's `providers lock` writes
// the very lock file Kyku writes (the same h1 hash, the same layout; only
// the tool named in the header differs), and Kyku reads OpenTofu's.
// Runs when KYKU_TEST_TOFU names a tofu binary and KYKU_TEST_NULL_MIRROR
// the mirror.
func TestLockAgreesWithOpenTofu(t *testing.T) {
	tofu, mirrorDir := os.Getenv("KYKU_TEST_TOFU"), os.Getenv("KYKU_TEST_NULL_MIRROR")
	if tofu == "" || mirrorDir == "" {
		t.Skip("KYKU_TEST_TOFU and KYKU_TEST_NULL_MIRROR are not set (see docs/benchmarks-tools.md)")
	}
	dir := t.TempDir()
	tf := "terraform {\n  required_providers {\n    null = { source = \"hashicorp/null\", version = \"3.3.1\" }\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tofu, "providers", "lock", "-fs-mirror="+mirrorDir, "-platform="+testPlatform.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=/dev/null", "TF_IN_AUTOMATION=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tofu providers lock: %v\n%s", err, out)
	}
	theirs, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := ParseSource("hashicorp/null")
	lock := &Lock{}
	in := &Installer{Mirror: mirrorDir, Platform: testPlatform}
	if _, err := in.Install(t.Context(), []Requirement{{src, mustConstraints(t, "3.3.1")}}, lock, false); err != nil {
		t.Fatal(err)
	}
	ours := strings.Replace(string(lock.Encode()), `"kyku init"`, `"tofu init"`, 1)
	if d := cmp.Diff(string(theirs), ours); d != "" {
		t.Errorf("lock files (-tofu +kyku):\n%s", d)
	}
	read, ds := ParseLock(".terraform.lock.hcl", theirs)
	if ds.Err() != nil || read.Providers[src] == nil || !read.Providers[src].Matches(lock.Providers[src].Hashes...) {
		t.Errorf("reading OpenTofu's lock: %v %+v", ds.Err(), read.Providers)
	}
}
