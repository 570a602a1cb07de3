package plan_test

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/plan/plantest"
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
		Lineage: "l1", Serial: 7, Prefix: "ab12cd34", StateExists: true,
		Backend: "local /work/infra/.kyku/state.prod.json",
		Config: &config.Config{Provider: config.ProviderConfig{Name: "sim"}, Resources: []*config.Resource{
			{Name: "net", Type: "Vpc", Properties: map[string]any{"cidr": "10.0.0.0/16", "distributeAcrossAzs": float64(0)}},
		}},
	}
	p.ConfigHash, p.VariablesHash, p.SecretsHash = p.Config.Hash(), p.Config.VariablesHash(), p.Config.SecretsHash()
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
		{"not json", "{nope", "not a complete kyku plan file (truncated or damaged"},
		{"no version", `{"changes":[]}`, "no formatVersion"},
		{"future version", `{"formatVersion":99}`, "plan format 99 is not supported"},
		{"no digest", `{"formatVersion":1,"changes":[]}`, "carries no digest"},
		{"bad action", string(plantest.Reseal(t, []byte(`{"digest":"`+strings.Repeat("0", 64)+`","formatVersion":1,"changes":[{"action":"explode"}]}`))), `unknown action "explode"`},
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

// TestDecodeRefusesEditedFiles: a plan file that was edited, truncated or
// damaged after Kyku wrote it is refused with one line naming the file;
// an edit whose digest was computed again is refused when the counters or
// the embedded configuration no longer agree with the rest.
func TestDecodeRefusesEditedFiles(t *testing.T) {
	good, err := plan.Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []byte {
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("the plan file holds no %q", old)
		}
		return bytes.Replace(good, []byte(old), []byte(new), 1)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"edited property", edit(`"new": 443`, `"new": 8443`), "does not match its digest"},
		{"flipped action", edit(`"action": "no-op"`, `"action": "destroy"`), "does not match its digest"},
		{"edited config", edit(`"cidr": "10.0.0.0/16",`, `"cidr": "10.9.0.0/16",`), "does not match its digest"},
		{"edited serial", edit(`"serial": 7`, `"serial": 8`), "does not match its digest"},
		{"edited backend", edit(`/work/infra/.kyku`, `/tmp/.kyku`), "does not match its digest"},
		{"edited digest", flipDigit(good), "does not match its digest"},
		{"truncated", good[:len(good)/2], "not a complete kyku plan file (truncated or damaged"},
		{"one byte short", good[:len(good)-2], "not a complete kyku plan file (truncated or damaged"},
		{"empty", nil, "not a complete kyku plan file"},
		{"digest moved", append([]byte(`{"formatVersion":1,`), bytes.TrimPrefix(bytes.Replace(good, []byte(`"formatVersion": 1,`), nil, 1), []byte("{"))...), "carries no digest"},
		{"flipped action, resealed", plantest.Reseal(t, edit(`"action": "no-op"`, `"action": "destroy"`)),
			"its counters (1 to create, 1 to change, 1 to replace, 1 to destroy) are not its changes' (1, 1, 1, 2)"},
		{"secretsHash dropped, resealed", plantest.Reseal(t, dropSecretsHash(t, good)), "it has no secretsHash"},
		{"edited config, resealed", plantest.Reseal(t, edit(`"cidr": "10.0.0.0/16",`, `"cidr": "10.9.0.0/16",`)),
			"its embedded configuration does not hash to its configHash and secretsHash"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plan.Decode("saved.tfplan", tt.data)
			if err == nil {
				t.Fatalf("decoded %+v", p.Counters)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "saved.tfplan: ") || !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("err = %q, want one line naming saved.tfplan and saying %q", msg, tt.want)
			}
			if !errors.Is(err, plan.ErrNotVerified) {
				t.Errorf("err = %v, want it to wrap ErrNotVerified", err)
			}
		})
	}
	if _, err := plan.Decode("saved.tfplan", plantest.Reseal(t, good)); err != nil {
		t.Errorf("a file resealed without an edit: %v", err)
	}
}

// TestResealedSecretEditIsRefused: the published configHash leaves the
// secrets out, so a saved plan whose embedded secret was edited (the file
// resealed) hashes to it still; its private secretsHash does not, and the
// file is refused.
func TestResealedSecretEditIsRefused(t *testing.T) {
	p := sample()
	p.Config.Resources = append(p.Config.Resources, &config.Resource{Name: "web", Type: "Vm", Properties: map[string]any{"image": "debian-12", "userData": "hunter2-aaa"}})
	p.ConfigHash, p.VariablesHash, p.SecretsHash = p.Config.Hash(), p.Config.VariablesHash(), p.Config.SecretsHash()
	good, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(good, []byte("hunter2-aaa"), []byte("curl-evil.sh"), 1)
	if bytes.Equal(edited, good) {
		t.Fatal("the plan file holds no secret to edit")
	}
	_, err = plan.Decode("saved.tfplan", plantest.Reseal(t, edited))
	if err == nil || !strings.Contains(err.Error(), "does not hash to its configHash and secretsHash") {
		t.Errorf("a resealed secret edit: %v", err)
	}
	q := &config.Config{Provider: p.Config.Provider, Resources: []*config.Resource{p.Config.Resources[0],
		{Name: "web", Type: "Vm", Properties: map[string]any{"image": "debian-12", "userData": "curl-evil.sh"}}}}
	if q.Hash() != p.ConfigHash {
		t.Errorf("configHash depends on a secret")
	}
	if _, err := plan.Decode("saved.tfplan", plantest.Reseal(t, good)); err != nil {
		t.Errorf("resealed without an edit: %v", err)
	}
}

// TestEncodeStartsWithTheDigest: the digest is the file's first member,
// and FileDigest says which it is.
func TestEncodeStartsWithTheDigest(t *testing.T) {
	p := sample()
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := plan.FileDigest(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"digest\": \"" + d + "\",\n  \"formatVersion\": 1,"; !strings.HasPrefix(string(data), want) {
		t.Errorf("plan file starts %q, want %q", data[:80], want)
	}
}

func TestDestroysAll(t *testing.T) {
	empty := &config.Config{}
	full := sample().Config
	destroy := []plan.Change{{Action: plan.Destroy, ResourceID: "a", Type: "Vm"}, {Action: plan.Forget, ResourceID: "b", Type: "Vm"}}
	for _, tt := range []struct {
		name string
		p    plan.Plan
		want bool
	}{
		{"empty config destroys", plan.Plan{Config: empty, Changes: destroy}, true},
		{"empty config, nothing in state", plan.Plan{Config: empty}, false},
		{"empty config, only forgets", plan.Plan{Config: empty, Changes: destroy[1:]}, false},
		{"config with resources", plan.Plan{Config: full, Changes: destroy}, false},
		{"kyku destroy", plan.Plan{Destroy: true, Changes: destroy}, false},
		{"targeted", plan.Plan{Config: empty, Changes: destroy, Targets: []string{"a"}}, false},
		{"redacted", plan.Plan{Redacted: true, Changes: destroy}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.DestroysAll(); got != tt.want {
				t.Errorf("DestroysAll() = %v, want %v", got, tt.want)
			}
		})
	}
}

// flipDigit changes the first digit of a plan file's digest.
func flipDigit(data []byte) []byte {
	out := bytes.Clone(data)
	i := bytes.Index(out, []byte(`"digest": "`)) + len(`"digest": "`)
	if out[i] == '0' {
		out[i] = '1'
	} else {
		out[i] = '0'
	}
	return out
}

// TestPlannedBytesTravelAndCount: a provider's planned bytes survive the
// plan file; Same compares them byte for byte; the changes digest covers
// the schema version and whether apply sends the bytes as they are, not
// the bytes themselves (they hold sensitive values in clear).
func TestPlannedBytesTravelAndCount(t *testing.T) {
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Changes: []plan.Change{{Action: plan.Create, ResourceID: "n", Type: "null_resource",
		Planned: &plan.Planned{State: []byte{0x81, 0xa2, 'i', 'd'}, Private: []byte(`{"x":1}`), SchemaVersion: 1, ConfigKnown: true, Values: map[string]any{"id": "x"}}}}}
	p.Count()
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	back, err := plan.Decode("p.json", data)
	if err != nil {
		t.Fatal(err)
	}
	got := back.Changes[0].Planned
	if !got.Same(p.Changes[0].Planned) || got.Values != nil {
		t.Fatalf("planned after the round trip: %+v", got)
	}
	digest := func(mutate func(*plan.Planned)) string {
		c := *p
		pp := *p.Changes[0].Planned
		mutate(&pp)
		c.Changes = []plan.Change{p.Changes[0]}
		c.Changes[0].Planned = &pp
		d, err := plan.ChangesDigest(&c)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	same := digest(func(*plan.Planned) {})
	if digest(func(pp *plan.Planned) { pp.State = []byte("secret") }) != same {
		t.Error("the changes digest depends on the planned bytes")
	}
	if digest(func(pp *plan.Planned) { pp.SchemaVersion = 2 }) == same || digest(func(pp *plan.Planned) { pp.ConfigKnown = false }) == same {
		t.Error("the changes digest ignores the schema version or ConfigKnown")
	}
	other := *got
	other.Private = []byte(`{"x":2}`)
	if got.Same(&other) || (*plan.Planned)(nil).Same(got) || !(*plan.Planned)(nil).Same(nil) {
		t.Error("Same")
	}
}

// dropSecretsHash is a plan file without its secretsHash member.
func dropSecretsHash(t *testing.T, data []byte) []byte {
	t.Helper()
	re := regexp.MustCompile(`\n\s*"secretsHash": "[0-9a-f]+",`)
	if !re.Match(data) {
		t.Fatal("the plan file holds no secretsHash")
	}
	return re.ReplaceAll(data, nil)
}

// TestDigestCoversOwnTypes: a plan whose renamed types lost their own
// names (so that policies would judge them by the configuration's) is not
// the plan the reviewer saw, and a plan file keeps them.
func TestDigestCoversOwnTypes(t *testing.T) {
	p := &plan.Plan{FormatVersion: plan.FormatVersion, OwnTypes: map[string]string{"west_s3_bucket": "aws_s3_bucket"},
		Changes: []plan.Change{{Action: plan.Create, ResourceID: "b", Type: "west_s3_bucket"}}}
	p.Count()
	with, err := plan.ChangesDigest(p)
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.OwnTypes = nil
	without, err := plan.ChangesDigest(&q)
	if err != nil {
		t.Fatal(err)
	}
	if with == without {
		t.Error("the changes digest ignores OwnTypes")
	}
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	back, err := plan.Decode("p.json", data)
	if err != nil || back.OwnTypes["west_s3_bucket"] != "aws_s3_bucket" {
		t.Errorf("own types after a round trip: %v %v", back.OwnTypes, err)
	}
}
