package tfstate_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfstate"
)

// bridged decodes a recorded state and maps it into Kyku's model.
func bridged(t *testing.T, path string, opts tfstate.BridgeOptions) ([]byte, *tfstate.Bridge, *state.File) {
	t.Helper()
	data := read(t, path)
	f, err := tfstate.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tfstate.NewBridge(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return data, b, b.State()
}

// written is the Terraform state the bridge writes for next, in form.
func written(t *testing.T, b *tfstate.Bridge, next *state.File, form tfstate.Form) []byte {
	t.Helper()
	f, _, err := b.File(next)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tfstate.Encode(f, form)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withSerial is a recorded state's bytes with its serial replaced.
func withSerial(t *testing.T, data []byte, from, to int64) string {
	t.Helper()
	for _, sep := range []string{`"serial":`, `"serial": `} {
		old := fmt.Sprintf("%s%d,", sep, from)
		if strings.Count(string(data), old) == 1 {
			return strings.Replace(string(data), old, fmt.Sprintf("%s%d,", sep, to), 1)
		}
	}
	t.Fatalf("no serial %d in the state", from)
	return ""
}

// TestBridgeUnchanged: a state read into Kyku's model and written back
// unchanged is the very bytes OpenTofu wrote; with the serial Kyku raised,
// only the serial differs; the lineage stays.
func TestBridgeUnchanged(t *testing.T) {
	for path, form := range recorded(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, b, st := bridged(t, path, tfstate.BridgeOptions{})
			if d := cmp.Diff(string(data), string(written(t, b, st, form))); d != "" {
				t.Fatalf("written back unchanged (-tofu +kyku):\n%s", d)
			}
			serial := st.Metadata.Serial
			st.Metadata.Serial++
			if d := cmp.Diff(withSerial(t, data, serial, serial+1), string(written(t, b, st, form))); d != "" {
				t.Errorf("written back with the next serial (-want +got):\n%s", d)
			}
		})
	}
}

// TestBridgeModel: what Kyku's model holds of a recorded state.
func TestBridgeModel(t *testing.T) {
	_, b, st := bridged(t, "testdata/recorded/sensitive.remote.tfstate", tfstate.BridgeOptions{Workspace: "prod"})
	if st.Metadata.Environment != "prod" || st.Metadata.Version != state.Version || st.Metadata.Lineage == "" || st.Metadata.Serial != 1 {
		t.Errorf("metadata: %+v", st.Metadata)
	}
	want := []string{"null_resource.uses", "random_password.pw", "terraform_data.nested", "tls_private_key.k"}
	if d := cmp.Diff(want, st.Names()); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	pw := st.Resources["random_password.pw"]
	if pw.Type != "random_password" || pw.ProviderID != "none" || pw.SchemaVersion != 3 {
		t.Errorf("random_password.pw: %+v", pw)
	}
	if _, ok := pw.Outputs["keepers"]; ok {
		t.Error("a null attribute is in Outputs")
	}
	if pw.Outputs["length"] != 16.0 || pw.Outputs["special"] != true {
		t.Errorf("outputs: %v", pw.Outputs)
	}
	if d := cmp.Diff([]string{"bcrypt_hash", "result"}, pw.Sensitive); d != "" {
		t.Errorf("sensitive (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"input"}, st.Resources["terraform_data.nested"].Sensitive); d != "" {
		t.Errorf("nested sensitive paths: (-want +got):\n%s", d)
	}
	if !st.OutputSensitivity["password"] || st.OutputSensitivity["public_key"] || st.OutputTypes["password"] != "string" {
		t.Errorf("outputs: %v %v", st.OutputSensitivity, st.OutputTypes)
	}
	if len(b.Tainted()) != 0 || len(b.Deposed()) != 0 {
		t.Errorf("tainted %v, deposed %v", b.Tainted(), b.Deposed())
	}

	_, _, st = bridged(t, "testdata/recorded/modules.remote.tfstate", tfstate.BridgeOptions{})
	leaf := st.Resources[`module.each["eu"].module.leaf.null_resource.leaf`]
	if leaf == nil || leaf.Dependencies[0] != "module.each.random_pet.p" {
		t.Errorf("a module's resource: %+v (names %v)", leaf, st.Names())
	}
	_, _, st = bridged(t, "testdata/recorded/data.remote.tfstate", tfstate.BridgeOptions{})
	for _, n := range st.Names() {
		if strings.HasPrefix(n, "data.") {
			t.Errorf("a data resource in Kyku's model: %s", n)
		}
	}
}

// TestBridgeTaintedAndDeposed: a tainted instance is listed, and once
// Kyku replaced it (another ID) no longer tainted. A deposed object
// OpenTofu left is Kyku's resource state.DeposedName of its address,
// which Kyku's next plan destroys: it stays, with its key, once its
// current object is gone, and goes once Kyku destroyed it.
func TestBridgeTaintedAndDeposed(t *testing.T) {
	data, b, st := bridged(t, "testdata/recorded/tainted.remote.tfstate", tfstate.BridgeOptions{})
	if d := cmp.Diff([]string{"null_resource.bad"}, b.Tainted()); d != "" {
		t.Fatalf("tainted (-want +got):\n%s", d)
	}
	bad := st.Resources["null_resource.bad"]
	old := bad.ProviderID
	bad.ProviderID, bad.Outputs["id"] = "42", "42"
	got := string(written(t, b, st, tfstate.Compact))
	want := strings.Replace(strings.Replace(string(data), `"status":"tainted",`, "", 1), `"id":"`+old+`"`, `"id":"42"`, 1)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("replaced (-want +got):\n%s", d)
	}

	data, b, st = bridged(t, "testdata/recorded/deposed.remote.tfstate", tfstate.BridgeOptions{})
	dep := st.Resources[state.DeposedName("time_sleep.d")]
	if dep == nil || dep.Type != "time_sleep" || dep.ProviderID == "" || dep.ProviderID == st.Resources["time_sleep.d"].ProviderID || len(b.Deposed()) != 0 {
		t.Fatalf("the deposed object in Kyku's state: %+v (listed apart: %+v)", dep, b.Deposed())
	}
	if got := string(written(t, b, st, tfstate.Compact)); got != string(data) {
		t.Errorf("written unchanged (-want +got):\n%s", cmp.Diff(string(data), got))
	}
	key := ""
	delete(st.Resources, "time_sleep.d")
	f, _, err := b.File(st)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Resources) != 1 || len(f.Resources[0].Instances) != 1 || len(f.Resources[0].Instances[0].Deposed) != 8 {
		t.Fatalf("after the current object is gone: %+v", f.Resources)
	}
	key = f.Resources[0].Instances[0].Deposed
	delete(st.Resources, state.DeposedName("time_sleep.d"))
	if f, _, err = b.File(st); err != nil || len(f.Resources) != 0 {
		t.Errorf("after the deposed object is destroyed too: %+v, %v", f.Resources, err)
	}
	if key == "" {
		t.Fatal("no deposed key")
	}
}

// TestBridgeWritesKykusDeposedObjects: a deposed object Kyku's apply left
// (a create_before_destroy replacement stopped before the destroy) is
// written as a deposed object of its address, under an 8-digit key the
// next write keeps, and read back as it was written: the state could not
// be written at all ("unexpected '~'"), nor anything after it.
func TestBridgeWritesKykusDeposedObjects(t *testing.T) {
	_, b, st := bridged(t, "testdata/recorded/basic.remote.tfstate", tfstate.BridgeOptions{})
	const addr = "null_resource.web"
	cur := st.Resources[addr]
	if cur == nil {
		t.Fatalf("the recorded state lacks %s", addr)
	}
	old := cur.Clone()
	old.Name = state.DeposedName(addr)
	cur.ProviderID, cur.Outputs["id"] = "4242", "4242"
	st.Resources[old.Name] = old
	first := written(t, b, st, tfstate.Compact)
	f, err := tfstate.Decode("first", first)
	if err != nil {
		t.Fatalf("the state written does not read: %v\n%s", err, first)
	}
	var keys []string
	for _, r := range f.Resources {
		for _, in := range r.Instances {
			if r.Addr() == addr {
				keys = append(keys, in.Deposed)
			}
		}
	}
	if len(keys) != 2 || keys[0] != "" || len(keys[1]) != 8 {
		t.Fatalf("instances' deposed keys %q, want the current object and one deposed", keys)
	}
	if again := written(t, b, st, tfstate.Compact); string(again) != string(first) {
		t.Errorf("written twice, another state:\n%s\n%s", first, again)
	}
	back, err := tfstate.NewBridge(f, tfstate.BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := back.State().Resources[old.Name]
	if got == nil || got.ProviderID != old.ProviderID || back.State().Resources[addr].ProviderID != cur.ProviderID {
		t.Errorf("read back: deposed %+v", got)
	}
}

// TestBridgeChangedInstance: a change Kyku makes to one instance changes
// that instance's bytes only (and the serial): the attribute changed, its
// other attributes as they were (a number beyond float64's precision
// keeps its digits), its sensitive paths as they were, the rest of the
// file untouched.
func TestBridgeChangedInstance(t *testing.T) {
	tests := []struct {
		name, path string
		change     func(st *state.File) (old, repl string)
	}{
		{"a trigger", "basic", func(st *state.File) (string, string) {
			triggers := st.Resources["null_resource.web"].Outputs["triggers"].(map[string]any)
			pet := triggers["name"].(string)
			triggers["name"] = "renamed"
			// The pet's name is also in random_pet.name and two outputs,
			// before this trigger in the file.
			return `"name":"` + pet + `","utf"`, `"name":"renamed","utf"`
		}},
		{"a null attribute set", "basic", func(st *state.File) (string, string) {
			st.Resources["random_integer.port"].Outputs["seed"] = "x"
			return `"seed":null`, `"seed":"x"`
		}},
		{"beside a sensitive value", "sensitive", func(st *state.File) (string, string) {
			st.Resources["null_resource.uses"].Outputs["triggers"].(map[string]any)["plain"] = "changed"
			return `"plain":"visible"`, `"plain":"changed"`
		}},
	}
	for _, tt := range tests {
		for _, form := range []tfstate.Form{tfstate.Compact, tfstate.Indented} {
			path := "testdata/recorded/" + tt.path + ".remote.tfstate"
			if form == tfstate.Indented {
				path = "testdata/recorded/" + tt.path + ".tfstate"
			}
			t.Run(tt.name+"/"+filepath.Base(path), func(t *testing.T) {
				data, b, st := bridged(t, path, tfstate.BridgeOptions{})
				old, repl := tt.change(st)
				st.Metadata.Serial++
				got := string(written(t, b, st, form))
				if form == tfstate.Indented {
					// Line by line: the serial's line and the changed value's.
					was, now := strings.Split(string(data), "\n"), strings.Split(got, "\n")
					if len(was) != len(now) {
						t.Fatalf("%d lines, not %d:\n%s", len(now), len(was), got)
					}
					var changed []string
					for i := range was {
						if was[i] != now[i] {
							changed = append(changed, strings.TrimSpace(now[i]))
						}
					}
					_, value, _ := strings.Cut(repl, ":")
					value, _, _ = strings.Cut(value, ",")
					if len(changed) != 2 || changed[0] != `"serial": 2,` || !strings.Contains(changed[1], value) {
						t.Errorf("changed lines: %q", changed)
					}
					return
				}
				if strings.Count(string(data), old) != 1 {
					t.Fatalf("%s is not once in the state", old)
				}
				want := withSerial(t, []byte(strings.Replace(string(data), old, repl, 1)), 1, 2)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			})
		}
	}
}

// TestBridgeOutputs: an output Kyku changed is written as OpenTofu writes
// it (its type from OutputTypes, or the one its value implies), the others
// keep their bytes; a null output is not kept.
func TestBridgeOutputs(t *testing.T) {
	data, b, st := bridged(t, "testdata/recorded/basic.remote.tfstate", tfstate.BridgeOptions{})
	st.Outputs["number"] = 1e21
	st.Outputs["new"] = map[string]any{"b": []any{1.0, "x"}, "a": true}
	st.Outputs["gone"] = nil
	delete(st.Outputs, "html")
	f, _, err := b.File(st)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for n, o := range f.Outputs {
		got[n] = string(o.Value) + " " + string(o.Type)
	}
	orig, _ := tfstate.Decode("basic", data)
	want := map[string]string{}
	for n, o := range orig.Outputs {
		want[n] = string(o.Value) + " " + string(o.Type)
	}
	delete(want, "html")
	want["number"] = `1000000000000000000000 "number"`
	want["new"] = `{"a":true,"b":[1,"x"]} ["object",{"a":"bool","b":["tuple",["number","string"]]}]`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("outputs (-want +got):\n%s", d)
	}
	if !f.Outputs["secret"].Sensitive {
		t.Error("the sensitive output is no longer sensitive")
	}
}

// TestBridgeAddAndRemove: an instance Kyku creates joins its resource (or
// a new one, with the provider its type implies), its attributes in name
// order and its sensitive attributes as paths; one Kyku destroyed leaves,
// and its resource with its last instance.
func TestBridgeAddAndRemove(t *testing.T) {
	_, b, st := bridged(t, "testdata/recorded/counts.remote.tfstate", tfstate.BridgeOptions{})
	st.Resources[`random_id.c[3]`] = &state.Resource{Name: `random_id.c[3]`, Type: "random_id", ProviderID: "x",
		Outputs: map[string]any{"id": "x", "byte_length": 4.0, "b64_std": "eA=="}, Sensitive: []string{"b64_std"}}
	st.Resources[`module.m["k"].time_static.t`] = &state.Resource{Name: `module.m["k"].time_static.t`, Type: "time_static",
		Outputs: map[string]any{"id": "now"}, Dependencies: []string{"random_id.c"}, Private: []byte("p")}
	for _, n := range st.Names() {
		if strings.HasPrefix(n, "null_resource.m[") {
			delete(st.Resources, n)
		}
	}
	f, _, err := b.File(st)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tfstate.Encode(f, tfstate.Compact)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`{"index_key":3,"schema_version":0,"attributes":{"b64_std":"eA==","byte_length":4,"id":"x"},"sensitive_attributes":[[{"type":"get_attr","value":"b64_std"}]]}]}`,
		`{"module":"module.m[\"k\"]","mode":"managed","type":"time_static","name":"t","provider":"provider[\"registry.opentofu.org/hashicorp/time\"]","instances":[{"schema_version":0,"attributes":{"id":"now"},"sensitive_attributes":[],"private":"cA==","dependencies":["random_id.c"]}]}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("no %s in\n%s", want, s)
		}
	}
	if strings.Contains(s, `"name":"m"`) {
		t.Errorf("null_resource.m is still there:\n%s", s)
	}
	if !strings.HasSuffix(s, `"check_results":null}`+"\n") {
		t.Errorf("unexpected end:\n%s", s)
	}
}

// TestBridgeRefusals: what a Terraform state cannot hold is refused with
// the resource's name, before anything is written.
func TestBridgeRefusals(t *testing.T) {
	tests := []struct {
		name string
		r    *state.Resource
		want string
	}{
		{"kyku name", &state.Resource{Name: "web", Type: "Vm"}, `resource web: a Terraform state holds resources by their Terraform address: address "web" is not a resource instance address ([module.NAME.]…TYPE.NAME[KEY])`},
		{"data", &state.Resource{Name: "data.local_file.f", Type: "local_file"}, `resource data.local_file.f: a data resource is not kept in kyku's state`},
		{"not canonical", &state.Resource{Name: `null_resource.a["k"].x`, Type: "null_resource"}, `resource null_resource.a["k"].x: a Terraform state holds resources by their Terraform address: address "null_resource.a[\"k\"].x" is not a resource instance address ([module.NAME.]…TYPE.NAME[KEY])`},
		{"type", &state.Resource{Name: `null_resource.a`, Type: "Vm"}, `resource null_resource.a: its type Vm is not the type of its address`},
		{"number", &state.Resource{Name: `null_resource.a`, Type: "null_resource", Outputs: map[string]any{"n": []any{math.Inf(1)}}}, `null_resource.a: attribute n: +Inf is not a number JSON can hold`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, b, st := bridged(t, "testdata/recorded/empty.remote.tfstate", tfstate.BridgeOptions{})
			st.Resources[tt.r.Name] = tt.r
			_, _, err := b.File(st)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
	hand, err := tfstate.Decode("fields", read(t, "testdata/handmade/fields.in.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tfstate.NewBridge(hand, tfstate.BridgeOptions{}); err == nil || !strings.Contains(err.Error(), `module.m["k"].null_resource.x["k1"]: its attributes are in Terraform 0.11's flat form`) {
		t.Errorf("flat attributes: %v", err)
	}
}

// TestBridgeExtra: what Kyku's model holds beyond a Terraform state (the
// deploy prefix, a resource's config, cloud name, protect flag, an ID that
// is not its "id") comes back from Extra for the state version it was
// written with, and not once OpenTofu wrote another.
func TestBridgeExtra(t *testing.T) {
	_, b, st := bridged(t, "testdata/recorded/lifecycle.remote.tfstate", tfstate.BridgeOptions{})
	st.Metadata.Prefix = "kyku-a1b2"
	st.Metadata.Serial++
	base := st.Resources["random_pet.base"]
	base.Config, base.CloudName, base.Protect, base.ProviderID = map[string]any{"length": 2.0}, "pet-1", true, "other"
	f, extra, err := b.File(st)
	if err != nil {
		t.Fatal(err)
	}
	data, err := tfstate.EncodeExtra(extra)
	if err != nil {
		t.Fatal(err)
	}
	back, err := tfstate.DecodeExtra("extra", data)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := tfstate.NewBridge(f, tfstate.BridgeOptions{Extra: back})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st, b2.State()); d != "" {
		t.Errorf("through Extra (-kyku wrote +kyku read):\n%s", d)
	}
	f.Serial++ // OpenTofu wrote the state since
	b3, err := tfstate.NewBridge(f, tfstate.BridgeOptions{Extra: back})
	if err != nil {
		t.Fatal(err)
	}
	got := b3.State()
	if got.Metadata.Prefix != "" || got.Resources["random_pet.base"].Config != nil || got.Resources["random_pet.base"].ProviderID == "other" {
		t.Errorf("a stale Extra applied: %+v %+v", got.Metadata, got.Resources["random_pet.base"])
	}
}
