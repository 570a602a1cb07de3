package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
)

// No rendering ever shows a sensitive value: not the text, the --json
// output, the redacted plan file, nor any markdown, whatever the options.
func TestNoSensitiveValueInAnyOutput(t *testing.T) {
	p := withConfig(fullPlan())
	p.Changes = append(p.Changes,
		change(plan.Create, "Vm", "fresh", 2, plan.PropChange{Path: "userData", New: secret, Sensitive: true}),
		change(plan.Destroy, "Vm", "stale", 2, plan.PropChange{Path: "userData", Old: map[string]any{"nested": []any{secret}}, Sensitive: true}))
	p.Count()
	outs := map[string]string{}
	for name, opts := range map[string]TextOptions{"text": {ShowNoOp: true}, "text verbose": {Verbose: true, Color: true}} {
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
	outs["plan comment trimmed"] = PlanComment(p, meta(), 2000)
	outs["apply comment"] = ApplyComment(applySuccess(), meta(), CommentLimit)
	outs["drift issue"] = DriftIssue(drift(), meta(), CommentLimit)

	// The fixture really holds the secret, so the check below means something.
	if full, _ := plan.Encode(p); !bytes.Contains(full, []byte(secret)) {
		t.Fatal("fixture lost its secret")
	}
	for name, out := range outs {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(out, secret) {
				t.Errorf("%s shows the sensitive value:\n%s", name, out)
			}
			if !strings.Contains(out, plan.Masked) {
				t.Errorf("%s does not show the masked marker", name)
			}
		})
	}
}
