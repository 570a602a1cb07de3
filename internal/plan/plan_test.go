package plan_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
)

func sample() *plan.Plan {
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion, Environment: "prod", Provider: "sim",
		CreatedAt: time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC),
		Changes: []plan.Change{
			{Action: plan.Create, ResourceID: "net", Type: "Vpc", Level: 0, CloudName: "ab12cd34-net",
				Properties: []plan.PropChange{{Path: "cidr", New: "10.0.0.0/16"}}},
			{Action: plan.Update, ResourceID: "lb", Type: "LoadBalancer", Level: 3, ProviderID: "42",
				Properties: []plan.PropChange{{Path: "port", Old: float64(80), New: float64(443)}}},
			{Action: plan.Replace, ResourceID: "web", Type: "Vm", Level: 2, ProviderID: "43",
				Properties: []plan.PropChange{{Path: "image", Old: "debian-12", New: "debian-13", ForcesReplace: true}}},
			{Action: plan.Destroy, ResourceID: "old", Type: "Vm", Level: 2, ProviderID: "44"},
			{Action: plan.NoOp, ResourceID: "db", Type: "Database", Level: 1, ProviderID: "45"},
		},
		Levels:  map[string]int{"net": 0, "db": 1, "web": 2, "lb": 3},
		Lineage: "l1", Serial: 7, Prefix: "ab12cd34", StateExists: true, ConfigHash: "abc",
		Config: &config.Config{Provider: config.ProviderConfig{Name: "sim"}, Resources: []*config.Resource{
			{Name: "net", Type: "Vpc", Properties: map[string]any{"cidr": "10.0.0.0/16", "distributeAcrossAzs": float64(0)}},
		}},
	}
	p.Count()
	return p
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	p := sample()
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, got, cmpopts.IgnoreUnexported(config.Config{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	again, err := plan.Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Error("encode(decode(encode(p))) differs from encode(p)")
	}
	want := plan.Counters{Create: 1, Update: 1, Replace: 1, Destroy: 1, NoOp: 1}
	if got.Counters != want || !got.HasChanges() {
		t.Errorf("counters %+v, HasChanges %v", got.Counters, got.HasChanges())
	}
}

func TestDecodeRefusesOtherFiles(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"not json", "{nope", "not a kyku plan file"},
		{"no version", `{"changes":[]}`, "no formatVersion"},
		{"future version", `{"formatVersion":99}`, "plan format 99 is not supported"},
		{"bad action", `{"formatVersion":1,"changes":[{"action":"explode"}]}`, `unknown action "explode"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := plan.Decode("p.json", []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "p.json") {
				t.Errorf("err = %v, want it to name p.json and say %q", err, tt.want)
			}
		})
	}
}

func TestActionStrings(t *testing.T) {
	for a, want := range map[plan.Action]string{plan.NoOp: "no-op", plan.Create: "create", plan.Update: "update", plan.Replace: "replace", plan.Destroy: "destroy", plan.Forget: "forget"} {
		if a.String() != want {
			t.Errorf("%d.String() = %q, want %q", a, a.String(), want)
		}
		var back plan.Action
		if err := back.UnmarshalText([]byte(want)); err != nil || back != a {
			t.Errorf("UnmarshalText(%q) = %v, %v", want, back, err)
		}
	}
}
