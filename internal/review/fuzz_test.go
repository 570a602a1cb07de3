package review

import (
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
)

// FuzzDecodeSavedPlan: whatever bytes sit at a saved plan's key (anyone
// who can write to the backend chooses them), decoding and digesting them
// never panics, and a plan that decodes has a stable digest and config
// hash. The seeds run in every `go test`; `go test -fuzz FuzzDecodeSavedPlan`
// explores further.
func FuzzDecodeSavedPlan(f *testing.F) {
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(
		"resources:\n  web:\n    type: Vm\n    properties: { image: debian-12, userData: s3cr3t }\n")}})
	if err != nil {
		f.Fatal(err)
	}
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion, Environment: "prod", Provider: "sim", CreatedAt: time.Unix(0, 0).UTC(),
		Prefix: "0a1b2c3d", StateExists: true, ConfigHash: cfg.Hash(), Config: cfg, Lineage: "l", Serial: 1,
		Changes: []plan.Change{{Action: plan.Create, ResourceID: "web", Type: "Vm", CloudName: "0a1b2c3d-web",
			Properties: []plan.PropChange{{Path: "image", New: "debian-12"}, {Path: "userData", New: "s3cr3t", Sensitive: true}}}},
	}
	good, err := plan.Encode(p)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(good),
		"",
		"{}",
		"null",
		`{"formatVersion":1}`,
		`{"formatVersion":2,"config":{}}`,
		`{"formatVersion":1,"environment":"prod","config":{"resources":[null]}}`,
		`{"formatVersion":1,"environment":"prod","config":{"resources":[{"name":"a","properties":null}],"outputs":[null]}}`,
		`{"formatVersion":1,"environment":"prod","config":{"resources":[{"name":"a","properties":{"x":[1,{"y":1e308}]}}]},"changes":[{"action":"nope"}]}`,
		`{"formatVersion":1,"environment":"prod","config":{},"changes":[{"action":"create","properties":[{"path":"p","old":{"a":[null]},"new":123456789012345678901234567890}]}]}`,
		`{"formatVersion":1,"environment":"prod","redacted":true}`,
		strings.Repeat("[", 10000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodeSaved("plans/prod/pr-1-x.json", data, "prod")
		if err != nil {
			if p != nil {
				t.Fatal("a plan and an error")
			}
			return
		}
		d1, err1 := ChangesDigest(p)
		d2, err2 := ChangesDigest(p)
		if d1 != d2 || (err1 == nil) != (err2 == nil) {
			t.Fatalf("digest not stable: %s %s", d1, d2)
		}
		if err1 == nil && !digestRE().MatchString(d1) {
			t.Fatalf("digest %q is not sha256 hex", d1)
		}
		if h := p.Config.Hash(); h != p.Config.Hash() {
			t.Fatal("config hash not stable")
		}
		_ = progress.SecretsOf(nil, p)
	})
}
