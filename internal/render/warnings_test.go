package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
)

// TestPlanWarnings: a plan's warnings (a check block's failed assertion)
// are shown by the text and the JSON of the plan, changes or not.
func TestPlanWarnings(t *testing.T) {
	w := "main.tf:3:5: Check block assertion failed: Three replicas are recommended."
	p := &plan.Plan{Environment: "default", Warnings: []string{w}}
	var text, js bytes.Buffer
	if err := PlanText(&text, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := PlanJSON(&js, p, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Warning: "+w+"\n") {
		t.Errorf("the text lacks the warning:\n%s", text.String())
	}
	if !strings.Contains(js.String(), `"warnings": [`+"\n"+`    "`+w+`"`) {
		t.Errorf("the JSON lacks the warning:\n%s", js.String())
	}
}
