package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/statemgr/s3/s3test"
	"github.com/kyku/action/internal/tfstate"
)

// Kyku's own types in a root whose state is OpenTofu's, with the real
// binary: on the S3 backend, and killed with SIGKILL mid-apply.

// kykuTypesMain is a root of kyku_vpc and var.vms kyku_vm beside
// terraform_data reading them; backend is its terraform block.
func kykuTypesMain(backend string) string {
	return backend + `variable "vms" {
  default = 2
}

provider "kyku" {
  name = "sim"
}

resource "kyku_vpc" "net" {
  cidr = "10.0.0.0/16"
}

resource "kyku_vm" "web" {
  count   = var.vms
  network = kyku_vpc.net.id
  image   = "debian-12"
}

resource "terraform_data" "first" {
  input = length(kyku_vm.web) > 0 ? kyku_vm.web[0].public_ip : "none"
}
`
}

// kykuTypesProject is a project whose root (its directory) holds main.
func kykuTypesProject(t *testing.T, main string) *project {
	t.Helper()
	p := newProject(t, "")
	if err := os.Remove(filepath.Join(p.dir, "kyku.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "main.tf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// kykuInstances checks that every instance of f is there once and
// returns the IDs of those of Kyku's types, by address; each resource of
// Kyku's types must be under Kyku's provider.
func kykuInstances(t *testing.T, f *tfstate.File) map[string]string {
	t.Helper()
	out := map[string]string{}
	seen := map[string]bool{}
	for _, r := range f.Resources {
		for _, in := range r.Instances {
			addr := r.InstanceAddr(in.Key)
			if seen[addr] || in.Deposed != "" {
				t.Errorf("%s is in the state twice", addr)
			}
			seen[addr] = true
			if !strings.HasPrefix(r.Type, "kyku_") {
				continue
			}
			if r.Provider != tfstate.KykuProvider {
				t.Errorf("%s: provider %s", addr, r.Provider)
			}
			var attrs struct{ ID string }
			if err := json.Unmarshal(in.Attributes, &attrs); err != nil {
				t.Fatal(err)
			}
			out[addr] = attrs.ID
		}
	}
	return out
}

// TestKykuTypesOnTofuS3State: plan, apply and destroy of Kyku's types in
// a root whose backend is s3 (the S3 server): the state object is
// OpenTofu's format with them under Kyku's provider, what Kyku keeps
// beside it is under <key>.kyku/, a plan after the apply has no changes,
// and destroy empties the cloud and the state.
func TestKykuTypesOnTofuS3State(t *testing.T) {
	srv := s3test.Require(t)
	bucket := srv.NewBucket(t)
	const key = "roots/net/terraform.tfstate"
	backend := fmt.Sprintf("terraform {\n  backend \"s3\" {\n    bucket = %q\n    key = %q\n    region = %q\n    endpoints = { s3 = %q }\n"+
		"    use_path_style = true\n    use_lockfile = true\n    skip_credentials_validation = true\n  }\n}\n\n", bucket, key, srv.Region, srv.Endpoint)
	p := kykuTypesProject(t, kykuTypesMain(backend))
	p.env = append(p.env, srv.Env()...)
	read := func() *tfstate.File {
		t.Helper()
		f, err := tfstate.Decode(key, srv.Object(t, bucket, key))
		if err != nil {
			t.Fatalf("the state is not OpenTofu's: %v", err)
		}
		return f
	}
	if code, out := p.run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, tail(out))
	}
	f := read()
	ids := kykuInstances(t, f)
	if len(ids) != 3 {
		t.Errorf("Kyku's types in the state: %v, want kyku_vpc.net and two kyku_vm", ids)
	}
	_, inCloud := p.cloud()
	for addr, id := range ids {
		if !inCloud[id] {
			t.Errorf("%s: its object %s is not in the cloud", addr, id)
		}
	}
	keys := strings.Join(srv.Keys(t, bucket, ""), "\n")
	if !strings.Contains(keys, key+".kyku/tfstate-extra.json") || strings.Contains(keys, "env:") {
		t.Errorf("the bucket holds:\n%s", keys)
	}
	if code, out := p.run("plan", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan after apply: exit %d, want 0\n%s", code, tail(out))
	}
	if code, out := p.run("destroy", "--auto-approve"); code != 0 {
		t.Fatalf("destroy: exit %d\n%s", code, tail(out))
	}
	if _, ids := p.cloud(); len(ids) != 0 {
		t.Errorf("the cloud holds %d objects after destroy", len(ids))
	}
	if gone := read(); len(gone.Resources) != 0 || gone.Lineage != f.Lineage {
		t.Errorf("after destroy: %d resources, lineage %s (was %s)", len(gone.Resources), gone.Lineage, f.Lineage)
	}
}

// TestCrashKykuTypesOnTofuState kills the real binary with SIGKILL at
// several points of an apply growing a root of Kyku's types (local
// backend, the state OpenTofu's) from 2 to 60 kyku_vm. After each kill
// the state is one OpenTofu reads, with its lineage; the next apply
// completes with every instance once in the state, each the cloud's
// object, and no object created twice: Kyku's types find an object
// created in the instant before a kill by its cloud name.
func TestCrashKykuTypesOnTofuState(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p := kykuTypesProject(t, kykuTypesMain(""))
	p.env = append(p.env, "KYKU_SIM_LATENCY=5ms")
	if code, out := p.run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, tail(out))
	}
	statePath := filepath.Join(p.dir, "terraform.tfstate")
	lineage := readTofuState(t, statePath).Lineage
	vms := func() int {
		objs, _ := filepath.Glob(filepath.Join(p.dir, "cloud", "Vm", "*.json"))
		return len(objs)
	}
	kills := 0
	for _, at := range []int{10, 25, 40} {
		if killApplyAt(t, p, vms, at, "apply", "--auto-approve", "--parallelism", "4", "--var", "vms=60") {
			kills++
		}
		st := readTofuState(t, statePath)
		if st.Lineage != lineage {
			t.Fatalf("after a kill the state's lineage is %s, not %s", st.Lineage, lineage)
		}
		tofuReads(t, statePath)
		t.Logf("killed at %d kyku_vm objects: %d resources in the state", vms(), len(st.Resources))
	}
	if kills == 0 {
		t.Fatal("no apply was killed")
	}
	if code, out := p.run("apply", "--auto-approve", "--var", "vms=60"); code != 0 {
		t.Fatalf("apply after crashes: exit %d\n%s", code, tail(out))
	}
	ids := kykuInstances(t, readTofuState(t, statePath))
	if len(ids) != 61 {
		t.Errorf("the state holds %d instances of Kyku's types, want 61", len(ids))
	}
	names, inCloud := p.cloud()
	for addr, id := range ids {
		if !inCloud[id] {
			t.Errorf("%s: its object %s is not in the cloud", addr, id)
		}
	}
	for name, n := range names {
		if n > 1 {
			t.Errorf("%d objects in the cloud named %s", n, name)
		}
	}
	if len(inCloud) != len(ids) {
		t.Errorf("the cloud holds %d objects, the state %d", len(inCloud), len(ids))
	}
	if code, out := p.run("plan", "--detailed-exitcode", "--var", "vms=60"); code != 0 {
		t.Errorf("plan after the apply completed: exit %d, want 0\n%s", code, tail(out))
	}
	t.Logf("%d applies killed; %d objects", kills, len(ids))
}
