package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// partlySecretPlan has properties the configuration makes secret only in
// parts (plan.Change.SensitiveWithin), as package diff lists them: a
// create's whole values (a nested object with one secret attribute, a
// list with one secret element, a map with one secret entry); an update
// where only a part beside the secret changed, one where only the secret
// changed, a list grown beside its secret element, and one whose secret
// element changed as it grew.
func partlySecretPlan() *plan.Plan {
	db := change(plan.Create, "aws_db_instance", "aws_db_instance.main", 0,
		plan.PropChange{Path: "config", New: value.Normalize(map[string]any{
			"host": "db.internal", "port": 5432,
			"admin": map[string]any{"user": "app", "password": secret},
		}), Sensitive: true},
		plan.PropChange{Path: "args", New: value.Normalize([]any{"--verbose", secret, "--tls"}), Sensitive: true},
		plan.PropChange{Path: "tags", New: value.Normalize(map[string]any{"env": "prod", "api-token": secret}), Sensitive: true})
	db.SensitiveWithin = map[string][]string{"config": {".admin.password"}, "args": {"[1]"}, "tags": {`["api-token"]`}}
	app := change(plan.Update, "aws_instance", "aws_instance.app", 1,
		plan.PropChange{Path: "settings.region", Old: "eu-west-1", New: "eu-central-1", Sensitive: true},
		plan.PropChange{Path: "settings.auth.password", Old: secret, New: secret + "-2", Sensitive: true},
		plan.PropChange{Path: "flags", Old: value.Normalize([]any{"-a", secret}), New: value.Normalize([]any{"-a", secret, "-b"}), Sensitive: true},
		plan.PropChange{Path: "keys", Old: value.Normalize([]any{"k1", secret}), New: value.Normalize([]any{"k1", secret + "-2", "k3"}), Sensitive: true})
	app.SensitiveWithin = map[string][]string{"settings": {".auth.password"}, "flags": {"[1]"}, "keys": {"[1]"}}
	return newPlan("prod", db, app)
}

func TestPartlySecretGoldens(t *testing.T) {
	p := partlySecretPlan()
	var b bytes.Buffer
	if err := PlanText(&b, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "plan_partly_secret.txt.golden", b.String())
	golden(t, "comment_partly_secret.md.golden", PlanComment(p, meta(), CommentLimit))
}

// TestPartlySecretNeverInClear: no rendering of a partly secret property
// shows a secret part: not the text (verbose or not), the comment, the
// summary, --json, the redacted plan; and the text shows the parts that
// are not secret.
func TestPartlySecretNeverInClear(t *testing.T) {
	p := partlySecretPlan()
	outs := map[string]string{}
	for name, opts := range map[string]TextOptions{"text": {}, "text verbose": {Verbose: true, Color: true}} {
		var b bytes.Buffer
		if err := PlanText(&b, p, opts); err != nil {
			t.Fatal(err)
		}
		outs[name] = b.String()
	}
	var j bytes.Buffer
	if err := PlanJSON(&j, p, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	outs["json"] = j.String()
	redacted, err := plan.Encode(RedactPlan(p))
	if err != nil {
		t.Fatal(err)
	}
	outs["redacted plan file"] = string(redacted)
	outs["plan comment"] = PlanComment(p, meta(), CommentLimit)
	outs["plan summary"] = PlanSummary(p, meta(), SummaryLimit)
	outs["plan comment trimmed"] = PlanComment(p, meta(), 1500)
	if full, _ := plan.Encode(p); !bytes.Contains(full, []byte(secret)) {
		t.Fatal("fixture lost its secret")
	}
	for name, out := range outs {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(out, secret) {
				t.Errorf("%s shows a secret part:\n%s", name, out)
			}
		})
	}
	for _, name := range []string{"text", "plan comment"} {
		for _, clear := range []string{"db.internal", "--verbose", "eu-central-1", "-b"} {
			if !strings.Contains(outs[name], clear) {
				t.Errorf("%s masks %q, which is not secret:\n%s", name, clear, outs[name])
			}
		}
	}
}

// TestShownFallsBackToWhole: what shown cannot place exactly is masked
// whole.
func TestShownFallsBackToWhole(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pc     plan.PropChange
		within []string
	}{
		{"the path is not in the value", plan.PropChange{Path: "config", New: map[string]any{"host": "h"}, Sensitive: true}, []string{".password"}},
		{"a splat", plan.PropChange{Path: "list", New: []any{"a"}, Sensitive: true}, []string{"[*]"}},
		{"inside the secret part", plan.PropChange{Path: "config.password.x", Old: "a", New: "b", Sensitive: true}, []string{".password"}},
		{"the secret part itself", plan.PropChange{Path: "config.password", Old: "a", New: "b", Sensitive: true}, []string{".password"}},
		{"a part on the way known after apply", plan.PropChange{Path: "config", New: map[string]any{"admin": value.Unknown}, Sensitive: true, Unknown: true}, []string{".admin.password"}},
		{"a value that is no object", plan.PropChange{Path: "config", Old: secret, New: secret, Sensitive: true}, []string{".password"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := plan.Change{Action: plan.Update, SensitiveWithin: map[string][]string{topLevel(tc.pc.Path): tc.within}}
			pc := shown(c, tc.pc)
			for _, v := range []any{oldValue(pc), newValue(pc)} {
				if v != nil && v != plan.Masked {
					t.Errorf("shown as %v, want masked whole", v)
				}
			}
		})
	}
}
