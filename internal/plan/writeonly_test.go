package plan_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/plan/plantest"
)

const woSecret = "wo-pass-Xy7kq"

// withWriteOnly is sample() with a provider's resource whose write-only
// password_wo is set from a sensitive variable's value, which the
// configuration's secrets hold, and a secret it shares with another
// property.
func withWriteOnly() (*plan.Plan, *config.Config) {
	p := sample()
	cfg := func() *config.Config {
		return &config.Config{Provider: config.ProviderConfig{Name: "sim"}, Secrets: []string{woSecret, "shared-Qw8zz"}, Resources: []*config.Resource{
			{Name: "db", Type: "fw_password", Provider: "fw", Sensitive: []string{"password_wo", "other"},
				Properties: map[string]any{"name": "db", "password_wo": woSecret + "+shared-Qw8zz", "other": "shared-Qw8zz"}},
			{Name: "net", Type: "Vpc", Properties: map[string]any{"cidr": "10.0.0.0/16"}},
		}}
	}
	p.Config = cfg()
	p.ConfigHash, p.VariablesHash, p.SecretsHash = p.Config.Hash(), p.Config.VariablesHash(), p.Config.SecretsHash()
	p.WriteOnly = map[string][]string{"db": {"password_wo"}}
	return p, cfg()
}

// TestPlanFileLeavesWriteOnlyValuesOut: the file holds neither the
// write-only value nor a secret only it held (one shared with another
// property stays); the plan in memory is not changed; the decoded plan
// is whole again only with the configuration it was planned from.
func TestPlanFileLeavesWriteOnlyValuesOut(t *testing.T) {
	p, cfg := withWriteOnly()
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("Xy7kq")) || !bytes.Contains(data, []byte("shared-Qw8zz")) {
		t.Errorf("the plan file holds the write-only value, or lost the shared secret:\n%s", data)
	}
	if p.Config.Resources[0].Properties["password_wo"] == nil || len(p.Config.Secrets) != 2 {
		t.Errorf("Encode changed the plan in memory: %+v", p.Config.Resources[0].Properties)
	}
	got, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"shared-Qw8zz"}, got.Config.Secrets); diff != "" {
		t.Errorf("the file's secrets: a secret another property holds stays, the write-only one goes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"db.password_wo"}, got.WriteOnlyLeftOut()); diff != "" {
		t.Errorf("WriteOnlyLeftOut (-want +got):\n%s", diff)
	}
	if _, err := got.WithWriteOnly(nil); !errors.Is(err, plan.ErrWriteOnlyLeftOut) || !strings.Contains(err.Error(), "db.password_wo") {
		t.Errorf("WithWriteOnly(nil): %v", err)
	}
	whole, err := got.WithWriteOnly(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Config.Resources[0].Properties["password_wo"] != woSecret+"+shared-Qw8zz" || whole.Config.Hash() != p.ConfigHash {
		t.Errorf("the plan given its write-only values again: %+v", whole.Config.Resources[0].Properties)
	}
	if _, ok := got.Config.Resources[0].Properties["password_wo"]; ok {
		t.Error("WithWriteOnly changed the decoded plan")
	}
	if same, err := p.WithWriteOnly(nil); err != nil || same != p {
		t.Errorf("a plan in memory, whole, is given back as it is: %v", err)
	}
}

// TestPlanFileWriteOnlyAttacks: another value given at apply is refused;
// a file that lists write-only properties but holds their values (not
// one Kyku writes, so its configuration is not checked against its
// hashes) is refused at decode.
func TestPlanFileWriteOnlyAttacks(t *testing.T) {
	p, cfg := withWriteOnly()
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Resources[0].Properties["password_wo"] = "another-value"
	if _, err := got.WithWriteOnly(cfg); !errors.Is(err, plan.ErrWriteOnlyLeftOut) || !strings.Contains(err.Error(), "not the one planned") {
		t.Errorf("another write-only value: %v", err)
	}

	// A forged file: a write-only value written back, and the rest edited
	// (were its configuration taken as left out, its hashes would not be
	// checked at decode).
	forged := bytes.Replace(data, []byte(`"other": "shared-Qw8zz"`), []byte(`"other": "shared-Qw8zz", "password_wo": "forged"`), 1)
	forged = bytes.Replace(forged, []byte(`"cidr": "10.0.0.0/16"`), []byte(`"cidr": "0.0.0.0/0"`), 1)
	if bytes.Count(forged, []byte("forged")) != 1 || !bytes.Contains(forged, []byte("0.0.0.0/0")) {
		t.Fatalf("the forgery did not take:\n%s", forged)
	}
	raw := plantest.Reseal(t, forged)
	if _, err := plan.Decode("plan.json", raw); !errors.Is(err, plan.ErrNotVerified) || !strings.Contains(err.Error(), "write-only") {
		t.Errorf("a file holding write-only values: %v", err)
	}
}
