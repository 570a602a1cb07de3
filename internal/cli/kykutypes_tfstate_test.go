package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfstate"
)

// Kyku's own types in a root whose state is OpenTofu's: recorded in it as
// the resources of provider kyku/kyku, beside terraform_data, each
// reading the other.

const kykuTypesRoot = `variable "size" {
  default = "small"
}

provider "kyku" {
  name = "sim"
}

resource "terraform_data" "owner" {
  input = "team-a"
}

resource "kyku_vpc" "net" {
  cidr = "10.0.0.0/16"
  tags = { owner = terraform_data.owner.output }
}

resource "kyku_vm" "web" {
  count     = 2
  network   = kyku_vpc.net.id
  image     = "debian-12"
  size      = var.size
  user_data = "s3cr3t"
}

resource "terraform_data" "ip" {
  input = kyku_vm.web[0].public_ip
}

output "ips" {
  value = kyku_vm.web[*].public_ip
}
`

// kykuTypesKyku writes kykuTypesRoot into a root of its own (no backend
// block: terraform.tfstate beside it) and returns the kyku and the root.
func kykuTypesKyku(t *testing.T) (*kyku, string) {
	t.Helper()
	k := newKyku(t, "")
	root := filepath.Join(k.dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "main.tf"), []byte(kykuTypesRoot), 0o644); err != nil {
		t.Fatal(err)
	}
	return k, root
}

// simObject is an object of the sim's cloud, as its file holds it.
type simObject struct {
	ID, Type, CloudName string
	Properties          map[string]any
	path                string
}

// simCloud is every object in the sim cloud under dir, by ID.
func simCloud(t *testing.T, dir string) map[string]simObject {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "cloud", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]simObject{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var o simObject
		if err := json.Unmarshal(data, &o); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		o.path = f
		out[o.ID] = o
	}
	return out
}

// attrsOf is the attributes of the instance addr of f; nil when f has none.
func attrsOf(t *testing.T, f *tfstate.File, addr string) map[string]any {
	t.Helper()
	for _, r := range f.Resources {
		for _, in := range r.Instances {
			if r.InstanceAddr(in.Key) != addr {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(in.Attributes, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	return nil
}

// TestKykuTypesInTofuState: plan, apply and destroy of kyku_vpc and
// kyku_vm in a root whose state is OpenTofu's (local backend). The state
// reads as OpenTofu's, each object of Kyku's types under provider
// kyku/kyku with its whole object (arguments, outputs, cloud name, ID,
// the sensitive user_data marked), terraform_data reading them and read
// by them; a plan after the apply has no changes and writes nothing; a
// change rewrites only the instances it changes; destroy leaves the cloud
// and the state empty.
func TestKykuTypesInTofuState(t *testing.T) {
	k, root := kykuTypesKyku(t)
	path := statePath(root, "")
	code, out, errOut := k.run("", "plan", "--detailed-exitcode", "-c", root)
	if code != 2 || !strings.Contains(out, "5 to create") {
		t.Fatalf("plan: exit %d, want 2 and 5 to create\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	f := readTFState(t, path)
	providers := map[string]string{}
	for _, r := range f.Resources {
		providers[r.Type] = r.Provider
	}
	wantProviders := map[string]string{
		"kyku_vm": tfstate.KykuProvider, "kyku_vpc": tfstate.KykuProvider,
		"terraform_data": `provider["terraform.io/builtin/terraform"]`,
	}
	if d := cmp.Diff(wantProviders, providers); d != "" {
		t.Errorf("providers (-want +got):\n%s", d)
	}
	cloud := simCloud(t, k.dir)
	if len(cloud) != 3 {
		t.Errorf("the sim's cloud holds %d objects, want 3", len(cloud))
	}
	web := attrsOf(t, f, "kyku_vm.web[0]")
	obj, inCloud := cloud[web["id"].(string)]
	if !inCloud || obj.Type != "Vm" || web["cloud_name"] != obj.CloudName || web["user_data"] != "s3cr3t" || web["public_ip"] == nil || web["size"] != "small" {
		t.Errorf("kyku_vm.web[0]: %v, the cloud's object %+v", web, obj)
	}
	if ip := attrsOf(t, f, "terraform_data.ip")["input"].(map[string]any)["value"]; ip != web["public_ip"] {
		t.Errorf("terraform_data.ip holds %v, not kyku_vm.web[0]'s public_ip %v", ip, web["public_ip"])
	}
	if tags := attrsOf(t, f, "kyku_vpc.net")["tags"]; !cmp.Equal(tags, map[string]any{"owner": "team-a"}) {
		t.Errorf("kyku_vpc.net's tags %v", tags)
	}
	for _, r := range f.Resources {
		if r.Type == "kyku_vm" && (len(r.Instances[0].Sensitive) != 1 || r.Instances[0].Sensitive[0].Top() != "user_data") {
			t.Errorf("kyku_vm's sensitive paths: %v", r.Instances[0].Sensitive)
		}
	}

	before := snapshot(t, root)
	code, out, errOut = k.run("", "plan", "--detailed-exitcode", "-c", root)
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Errorf("plan after apply: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if d := cmp.Diff(before, snapshot(t, root)); d != "" {
		t.Errorf("plan changed files (-before +after):\n%s", d)
	}

	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root, "--var", "size=large"); code != 0 || !strings.Contains(out, "2 succeeded") {
		t.Fatalf("apply size=large: exit %d\n%s%s", code, out, errOut)
	}
	after := readTFState(t, path)
	was := instances(t, f)
	var changed []string
	for addr, in := range instances(t, after) {
		if string(in) != string(was[addr]) {
			changed = append(changed, addr)
		}
	}
	slices.Sort(changed)
	if d := cmp.Diff([]string{"kyku_vm.web[0]", "kyku_vm.web[1]"}, changed); d != "" {
		t.Errorf("instances changed (-want +got):\n%s", d)
	}
	if a := attrsOf(t, after, "kyku_vm.web[1]"); a["size"] != "large" || a["id"] != attrsOf(t, f, "kyku_vm.web[1]")["id"] {
		t.Errorf("kyku_vm.web[1] after the update: %v", a)
	}
	if len(simCloud(t, k.dir)) != 3 {
		t.Error("the update created objects")
	}

	code, out, errOut = k.run("", "destroy", "--auto-approve", "-c", root, "--var", "size=large")
	if code != 0 {
		t.Fatalf("destroy: exit %d\n%s%s", code, out, errOut)
	}
	if n := len(simCloud(t, k.dir)); n != 0 {
		t.Errorf("the sim's cloud holds %d objects after destroy", n)
	}
	if gone := readTFState(t, path); len(gone.Resources) != 0 || gone.Lineage != f.Lineage {
		t.Errorf("after destroy: %d resources, lineage %s (was %s)", len(gone.Resources), gone.Lineage, f.Lineage)
	}
}

// TestKykuTypesStateCommands: kyku state list, show, mv, rm, pull and
// push on a Terraform state holding Kyku's types: show lays an object out
// as tofu state show would (its HCL type, attributes in snake case, the
// sensitive one masked), mv keeps it under Kyku's provider, rm forgets
// it (the cloud keeps it), pull prints the stored state, push puts one
// back; after the round the plan has no changes.
func TestKykuTypesStateCommands(t *testing.T) {
	k, root := kykuTypesKyku(t)
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	path := statePath(root, "")
	run := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := k.run("", append(append([]string{}, args...), "-c", root)...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, errOut)
		}
		return out
	}
	list := run(0, "state", "list")
	for _, addr := range []string{"kyku_vm.web[0]", "kyku_vm.web[1]", "kyku_vpc.net", "terraform_data.ip", "terraform_data.owner"} {
		if !strings.Contains(list, addr) {
			t.Errorf("state list has no %s:\n%s", addr, list)
		}
	}
	show := run(0, "state", "show", "kyku_vm.web[0]")
	f := readTFState(t, path)
	web := attrsOf(t, f, "kyku_vm.web[0]")
	for _, line := range []string{
		"# kyku_vm.web[0]:\nresource \"kyku_vm\" \"web\" {\n",
		"    cloud_name = \"" + web["cloud_name"].(string) + "\"\n",
		"    public_ip  = \"" + web["public_ip"].(string) + "\"\n",
		"    user_data  = (sensitive value)\n",
	} {
		if !strings.Contains(show, line) {
			t.Errorf("state show has no %q:\n%s", line, show)
		}
	}
	if strings.Contains(show, "s3cr3t") {
		t.Errorf("state show prints the sensitive user_data:\n%s", show)
	}

	pulled := run(0, "state", "pull")
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tfstate.Encode(f, tfstate.Compact)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want)+"\n", pulled); d != "" {
		t.Errorf("pull is not the stored state (-want +got):\n%s", d)
	}
	saved := filepath.Join(k.dir, "saved.tfstate")
	if err := os.WriteFile(saved, stored, 0o644); err != nil {
		t.Fatal(err)
	}

	run(0, "state", "mv", "kyku_vm.web[1]", "kyku_vm.spare")
	moved := readTFState(t, path)
	if a := attrsOf(t, moved, "kyku_vm.spare"); a == nil || a["id"] != attrsOf(t, f, "kyku_vm.web[1]")["id"] {
		t.Errorf("kyku_vm.spare after mv: %v", a)
	}
	for _, r := range moved.Resources {
		if r.Type == "kyku_vm" && r.Name == "spare" && r.Provider != tfstate.KykuProvider {
			t.Errorf("kyku_vm.spare's provider: %s", r.Provider)
		}
	}
	run(0, "state", "rm", "kyku_vm.spare")
	if a := attrsOf(t, readTFState(t, path), "kyku_vm.spare"); a != nil {
		t.Errorf("kyku_vm.spare after rm: %v", a)
	}
	if len(simCloud(t, k.dir)) != 3 {
		t.Error("state rm touched the cloud")
	}
	run(0, "state", "push", "--force", saved)
	back := readTFState(t, path)
	if attrsOf(t, back, "kyku_vm.web[1]") == nil || back.Lineage != f.Lineage {
		t.Errorf("after push: %v", back)
	}
	if out := run(0, "plan", "--detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after the state commands:\n%s", out)
	}
}

// TestKykuTypesDrift: an object of Kyku's types changed in the cloud
// behind Kyku's back is seen by a plan that reads it (--refresh=all: the
// update that brings it back) and by kyku refresh (its new value written
// into the Terraform state); after the apply that brings it back, no
// changes.
func TestKykuTypesDrift(t *testing.T) {
	k, root := kykuTypesKyku(t)
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	path := statePath(root, "")
	id := attrsOf(t, readTFState(t, path), "kyku_vm.web[1]")["id"].(string)
	obj := simCloud(t, k.dir)[id]
	data, err := os.ReadFile(obj.path)
	if err != nil {
		t.Fatal(err)
	}
	drifted := strings.Replace(string(data), `"size": "small"`, `"size": "huge"`, 1)
	if drifted == string(data) {
		t.Fatalf("no size in %s:\n%s", obj.path, data)
	}
	if err := os.WriteFile(obj.path, []byte(drifted), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := k.run("", "plan", "--detailed-exitcode", "--refresh=all", "-c", root)
	if code != 2 || !strings.Contains(out, `kyku_vm.web[1]`) || !strings.Contains(out, "1 to update") {
		t.Errorf("plan after drift: exit %d, want 2 and the update of kyku_vm.web[1]\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", "refresh", "-c", root); code != 0 {
		t.Fatalf("refresh: exit %d\n%s%s", code, out, errOut)
	}
	if a := attrsOf(t, readTFState(t, path), "kyku_vm.web[1]"); a["size"] != "huge" || a["id"] != id {
		t.Errorf("kyku_vm.web[1] after refresh: %v", a)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve", "--refresh=all", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if a := attrsOf(t, readTFState(t, path), "kyku_vm.web[1]"); a["size"] != "small" || a["id"] != id {
		t.Errorf("kyku_vm.web[1] after the apply: %v", a)
	}
	if code, out, errOut := k.run("", "plan", "--detailed-exitcode", "--refresh=all", "-c", root); code != 0 {
		t.Errorf("plan after the apply: exit %d\n%s%s", code, out, errOut)
	}
}

// TestKykuTypesAfterTofuWrote: once OpenTofu has written the state (tofu
// state mv there and back writes the same bytes with its serial raised:
// testdata of internal/tfstate), what Kyku kept beside it no longer
// applies and is dropped; nothing of Kyku's types is lost with it: the
// plan has no changes, an update changes the objects in place under
// their cloud names, and no object is created.
func TestKykuTypesAfterTofuWrote(t *testing.T) {
	k, root := kykuTypesKyku(t)
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	path := statePath(root, "")
	f := readTFState(t, path)
	if _, err := os.Stat(path + ".kyku/tfstate-extra.json"); err != nil {
		t.Fatalf("nothing kept beside the state: %v", err)
	}
	f.Serial += 2
	data, err := tfstate.Encode(f, tfstate.Indented)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cloud := simCloud(t, k.dir)
	code, out, errOut := k.run("", "plan", "--detailed-exitcode", "-c", root)
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Errorf("plan after OpenTofu wrote the state: exit %d, want no changes\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root, "--var", "size=large"); code != 0 {
		t.Fatalf("apply size=large: exit %d\n%s%s", code, out, errOut)
	}
	now := simCloud(t, k.dir)
	if len(now) != len(cloud) {
		t.Errorf("the cloud holds %d objects, was %d", len(now), len(cloud))
	}
	for id, o := range cloud {
		if now[id].CloudName != o.CloudName {
			t.Errorf("object %s renamed %q → %q", id, o.CloudName, now[id].CloudName)
		}
		if o.Type == "Vm" && now[id].Properties["size"] != "large" {
			t.Errorf("object %s not updated: %v", id, now[id].Properties)
		}
	}
}

// TestKykuTypesMigrateCheck: kyku migrate check on a root of Kyku's types
// whose state is OpenTofu's counts its resources and says no-op, and
// writes nothing.
func TestKykuTypesMigrateCheck(t *testing.T) {
	k, root := kykuTypesKyku(t)
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	before := snapshot(t, root)
	code, out, errOut := k.run("", "migrate", "check", root, "--state-dir", "")
	if code != 0 || !strings.Contains(out, "every one plans no changes") || !regexp.MustCompile(`default +5 +no-op`).MatchString(out) {
		t.Errorf("migrate check: exit %d\n%s%s", code, out, errOut)
	}
	if d := cmp.Diff(before, snapshot(t, root)); d != "" {
		t.Errorf("migrate check changed files (-before +after):\n%s", d)
	}
}

// TestKykuTypesUnderAnotherProvider: a state that records an object of a
// kyku_ type under another provider (hand-edited, tofu state
// replace-provider) does not pass it off as Kyku's: the plan is refused
// naming the resource, and nothing in the cloud or the state changes.
func TestKykuTypesUnderAnotherProvider(t *testing.T) {
	k, root := kykuTypesKyku(t)
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	path := statePath(root, "")
	f := readTFState(t, path)
	for _, r := range f.Resources {
		if r.Type == "kyku_vpc" {
			r.Provider = `provider["registry.opentofu.org/acme/other"]`
		}
	}
	f.Serial++
	data, err := tfstate.Encode(f, tfstate.Indented)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cloud := simCloud(t, k.dir)
	for _, cmd := range [][]string{{"plan"}, {"apply", "--auto-approve"}} {
		code, out, errOut := k.run("", append(cmd, "-c", root)...)
		if code != 1 || !strings.Contains(errOut, `kyku_vpc "kyku_vpc.net"`) {
			t.Errorf("%s: exit %d, want 1 naming kyku_vpc.net\n%s%s", cmd[0], code, out, errOut)
		}
	}
	now, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(data), string(now)); d != "" {
		t.Errorf("the state changed (-before +after):\n%s", d)
	}
	if d := cmp.Diff(cloud, simCloud(t, k.dir), cmp.AllowUnexported(simObject{})); d != "" {
		t.Errorf("the cloud changed (-before +after):\n%s", d)
	}
}

// TestTerraformLoadedSaidBeforeLoading: a command reading a Terraform
// configuration says so (Env.TerraformLoaded, which tunes the CLI's
// collector as for a provider run) before it loads it; one reading
// kyku.yaml does not.
func TestTerraformLoadedSaidBeforeLoading(t *testing.T) {
	k, root := kykuTypesKyku(t)
	loaded := 0
	k.terraformLoaded = func() { loaded++ }
	if code, out, errOut := k.run("", "validate", "-c", root); code != 0 {
		t.Fatalf("validate of the Terraform root: exit %d\n%s%s", code, out, errOut)
	}
	if loaded != 1 {
		t.Errorf("validate of a Terraform root said TerraformLoaded %d times, want once", loaded)
	}

	y := newKyku(t, cfg)
	loaded = 0
	y.terraformLoaded = func() { loaded++ }
	if code, out, errOut := y.run("", "validate"); code != 0 {
		t.Fatalf("validate of kyku.yaml: exit %d\n%s%s", code, out, errOut)
	}
	if loaded != 0 {
		t.Errorf("validate of kyku.yaml said TerraformLoaded %d times, want never", loaded)
	}
}
