package tfstate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfstate"
)

// testdata/kyku holds a state of Kyku's own types (main.tf: kyku_vpc,
// kyku_security_group, kyku_vm with count, beside terraform_data reading
// and read by them) as a kyku apply wrote it (kyku.tfstate), as a real
// tofu 1.12.6 rewrote it (kyku.tofu.tfstate, tofu state mv there and
// back) and printed it (kyku.pull.tfstate); record.sh re-records them.

// TestKykuTypesAsTofuWrites: what Kyku writes of its own types is what
// OpenTofu writes back after reading it (the same bytes but the serial
// tofu raised), and each form read and written back unchanged is the
// very bytes it was.
func TestKykuTypesAsTofuWrites(t *testing.T) {
	kyku, tofu := read(t, "testdata/kyku/kyku.tfstate"), read(t, "testdata/kyku/kyku.tofu.tfstate")
	if d := cmp.Diff(withSerial(t, kyku, 2, 4), string(tofu)); d != "" {
		t.Errorf("tofu rewrote Kyku's state otherwise (-kyku +tofu):\n%s", d)
	}
	for path, form := range map[string]tfstate.Form{
		"testdata/kyku/kyku.tfstate": tfstate.Indented, "testdata/kyku/kyku.tofu.tfstate": tfstate.Indented,
		"testdata/kyku/kyku.pull.tfstate": tfstate.Compact,
	} {
		t.Run(path, func(t *testing.T) {
			data, b, st := bridged(t, path, tfstate.BridgeOptions{})
			got := string(written(t, b, st, form))
			if form == tfstate.Compact {
				got += "\n" // tofu state pull's final line
			}
			if d := cmp.Diff(string(data), got); d != "" {
				t.Errorf("written back unchanged (-was +now):\n%s", d)
			}
		})
	}
}

// TestKykuTypesModel: an instance of Kyku's types in a Terraform state is,
// in Kyku's model, of its Kyku type, with its arguments as Config, its
// outputs as Outputs, its cloud name, ID, sensitive arguments and
// dependencies, all named as Kyku names them; terraform_data beside it is
// as ever.
func TestKykuTypesModel(t *testing.T) {
	_, _, st := bridged(t, "testdata/kyku/kyku.tofu.tfstate", tfstate.BridgeOptions{})
	web := st.Resources["kyku_vm.web[0]"]
	want := &state.Resource{
		Name: "kyku_vm.web[0]", Type: "Vm", CloudName: "4d74d837-kyku-vm-web-0", ProviderID: "10000004",
		Config:       map[string]any{"image": "debian-12", "network": "10000001", "securityGroups": []any{"10000002"}, "size": "small", "userData": "s3cr3t"},
		Outputs:      map[string]any{"id": "10000004", "privateIp": "10.154.101.181", "publicIp": "198.51.100.25"},
		Dependencies: []string{"kyku_security_group.web", "kyku_vpc.net"}, Sensitive: []string{"userData"},
	}
	if d := cmp.Diff(want, web); d != "" {
		t.Errorf("kyku_vm.web[0] (-want +got):\n%s", d)
	}
	net := st.Resources["kyku_vpc.net"]
	if net.Type != "Vpc" || net.Config["distributeAcrossAzs"] != 0.0 || net.Config["tags"].(map[string]any)["owner"] != "team-a" {
		t.Errorf("kyku_vpc.net: %+v", net)
	}
	if ip := st.Resources["terraform_data.ip"]; ip.Type != "terraform_data" || ip.Config != nil || ip.Outputs["input"] != "198.51.100.25" {
		t.Errorf("terraform_data.ip: %+v", ip)
	}

	// A sensitive output is named as Kyku names it too.
	data := strings.Replace(string(read(t, "testdata/kyku/kyku.pull.tfstate")), `[[{"type":"get_attr","value":"user_data"}]]`,
		`[[{"type":"get_attr","value":"public_ip"}],[{"type":"get_attr","value":"user_data"}]]`, 1)
	f, err := tfstate.Decode("sensitive output", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tfstate.NewBridge(f, tfstate.BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"publicIp", "userData"}, b.State().Resources["kyku_vm.web[0]"].Sensitive); d != "" {
		t.Errorf("sensitive (-want +got):\n%s", d)
	}

	// A kyku_ type of another provider (a plugin's) is that provider's.
	data = strings.Replace(string(read(t, "testdata/kyku/kyku.pull.tfstate")), `registry.opentofu.org/kyku/kyku`, `registry.opentofu.org/acme/other`, 1)
	if f, err = tfstate.Decode("other", []byte(data)); err != nil {
		t.Fatal(err)
	}
	b, err = tfstate.NewBridge(f, tfstate.BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sg := b.State().Resources["kyku_security_group.web"]; sg.Type != "kyku_security_group" || sg.Config != nil || sg.Outputs["cloud_name"] == nil {
		t.Errorf("a plugin's kyku_security_group: %+v", sg)
	}
}

// TestKykuTypesChanged: a change to an object of Kyku's types changes
// that instance's bytes only: the argument changed (in snake case), its
// other attributes and sensitive paths as they were; a new one is
// recorded under Kyku's provider with its whole object; one destroyed is
// gone.
func TestKykuTypesChanged(t *testing.T) {
	data, b, st := bridged(t, "testdata/kyku/kyku.pull.tfstate", tfstate.BridgeOptions{})
	vm := st.Resources["kyku_vm.web[1]"]
	vm.Config["size"] = "large"
	got := string(written(t, b, st, tfstate.Compact)) + "\n"
	want := strings.Replace(string(data), `"private_ip":"10.154.101.180","public_ip":"198.51.100.24","security_groups":["10000002"],"size":"small"`,
		`"private_ip":"10.154.101.180","public_ip":"198.51.100.24","security_groups":["10000002"],"size":"large"`, 1)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("one argument changed (-want +got):\n%s", d)
	}
	vm.Outputs["privateIp"] = "10.0.0.9"
	got = string(written(t, b, st, tfstate.Compact)) + "\n"
	want = strings.Replace(want, `"private_ip":"10.154.101.180","public_ip":"198.51.100.24","security_groups":["10000002"],"size":"large"`,
		`"private_ip":"10.0.0.9","public_ip":"198.51.100.24","security_groups":["10000002"],"size":"large"`, 1)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("one argument and one output changed (-want +got):\n%s", d)
	}

	_, b, st = bridged(t, "testdata/kyku/kyku.pull.tfstate", tfstate.BridgeOptions{})
	delete(st.Resources, "kyku_security_group.web")
	st.Resources["kyku_ssh_key.ops"] = &state.Resource{
		Name: "kyku_ssh_key.ops", Type: "SshKey", CloudName: "p-kyku-ssh-key-ops", ProviderID: "10000009",
		Config: map[string]any{"publicKey": "ssh-ed25519 AAAA"}, Outputs: map[string]any{"id": "10000009"},
		Dependencies: []string{"kyku_vpc.net"}, Sensitive: []string{"publicKey"},
	}
	f, _, err := b.File(st)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range f.Resources {
		types = append(types, r.Type)
		if r.Type != "kyku_ssh_key" {
			continue
		}
		in := r.Instances[0]
		if r.Provider != tfstate.KykuProvider || r.Name != "ops" {
			t.Errorf("the new resource: %s %s", r.Provider, r.Name)
		}
		wantAttrs := `{"cloud_name":"p-kyku-ssh-key-ops","id":"10000009","public_key":"ssh-ed25519 AAAA"}`
		if string(in.Attributes) != wantAttrs {
			t.Errorf("attributes %s, want %s", in.Attributes, wantAttrs)
		}
		if len(in.Sensitive) != 1 || in.Sensitive[0].Top() != "public_key" || len(in.Dependencies) != 1 {
			t.Errorf("sensitive %v, dependencies %v", in.Sensitive, in.Dependencies)
		}
	}
	slices.Sort(types)
	if d := cmp.Diff([]string{"kyku_ssh_key", "kyku_vm", "kyku_vpc", "terraform_data", "terraform_data"}, types); d != "" {
		t.Errorf("resource types (-want +got):\n%s", d)
	}
}

// TestKykuTypesProvider: a new object of Kyku's types is recorded under
// the provider address the configuration gives it when that provider's
// type is kyku (required_providers with another source), under
// KykuProvider otherwise: under another type's provider it would no
// longer read as Kyku's.
func TestKykuTypesProvider(t *testing.T) {
	for _, tt := range []struct{ given, want string }{
		{"", tfstate.KykuProvider},
		{`provider["registry.opentofu.org/acme/kyku"]`, `provider["registry.opentofu.org/acme/kyku"]`},
		{`provider["registry.opentofu.org/hashicorp/aws"]`, tfstate.KykuProvider},
	} {
		t.Run(tt.given, func(t *testing.T) {
			b, err := tfstate.NewBridge(&tfstate.File{Lineage: "l"}, tfstate.BridgeOptions{Provider: func(tfstate.InstanceAddr) string { return tt.given }})
			if err != nil {
				t.Fatal(err)
			}
			st := b.State()
			st.Resources["kyku_vpc.net"] = &state.Resource{Name: "kyku_vpc.net", Type: "Vpc", ProviderID: "1", Config: map[string]any{"cidr": "10.0.0.0/16"}, Outputs: map[string]any{"id": "1"}}
			f, _, err := b.File(st)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Resources[0].Provider; got != tt.want {
				t.Errorf("provider %s, want %s", got, tt.want)
			}
			nb, err := tfstate.NewBridge(f, tfstate.BridgeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r := nb.State().Resources["kyku_vpc.net"]; r.Type != "Vpc" || r.Config["cidr"] != "10.0.0.0/16" {
				t.Errorf("read back: %+v", r)
			}
		})
	}
	b, err := tfstate.NewBridge(&tfstate.File{Lineage: "l"}, tfstate.BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := b.State()
	st.Resources["kyku_vm.web"] = &state.Resource{Name: "kyku_vm.web", Type: "Vpc", ProviderID: "1"}
	if _, _, err := b.File(st); err == nil || !strings.Contains(err.Error(), "its type Vpc is not the type of its address") {
		t.Errorf("a Vpc at a kyku_vm's address: %v", err)
	}
}

// TestKykuTypesExtra: what Kyku keeps beside the state of its own types is
// what the Terraform state has no place for (protect, the basis, an ID
// other than the id attribute), not their arguments or cloud name: once
// OpenTofu writes the state and Extra no longer applies, Kyku's model
// still holds every argument, output and cloud name.
func TestKykuTypesExtra(t *testing.T) {
	_, b, st := bridged(t, "testdata/kyku/kyku.tfstate", tfstate.BridgeOptions{})
	net := st.Resources["kyku_vpc.net"]
	net.Protect, net.Basis = true, &state.Basis{Config: "c", Provider: "p"}
	st.Metadata.Prefix = "4d74d837"
	st.Resources["terraform_data.ip"].Config = map[string]any{"input": "198.51.100.25"}
	f, extra, err := b.File(st)
	if err != nil {
		t.Fatal(err)
	}
	want := &tfstate.ExtraResource{Protect: true, Basis: &state.Basis{Config: "c", Provider: "p"}}
	if d := cmp.Diff(want, extra.Resources["kyku_vpc.net"]); d != "" {
		t.Errorf("extra of kyku_vpc.net (-want +got):\n%s", d)
	}
	if x := extra.Resources["kyku_vm.web[0]"]; x != nil {
		t.Errorf("extra of kyku_vm.web[0], which has nothing beyond its attributes: %+v", x)
	}
	if x := extra.Resources["terraform_data.ip"]; x == nil || x.Config == nil {
		t.Errorf("a plugin resource's config is no longer kept beside the state: %+v", x)
	}

	with, err := tfstate.NewBridge(f, tfstate.BridgeOptions{Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st.Resources, with.State().Resources); d != "" {
		t.Errorf("read back with its extra (-written +read):\n%s", d)
	}
	f.Serial++ // OpenTofu wrote it since: extra no longer applies
	without, err := tfstate.NewBridge(f, tfstate.BridgeOptions{Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	got := without.State().Resources["kyku_vpc.net"]
	net.Protect, net.Basis = false, nil
	if d := cmp.Diff(net, got); d != "" {
		t.Errorf("read back after OpenTofu wrote it (-want +got):\n%s", d)
	}
}
