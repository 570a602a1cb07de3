package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/plan"
)

// TestImportByAnotherIDRender: an import whose ID (as its entry gives
// it) is not the object's own ID shows both, in the text and plan.json;
// one whose IDs are the same shows the ID once in the text, and plan.json
// still marks it an import by that ID (importId), as OpenTofu's
// "importing" does.
func TestImportByAnotherIDRender(t *testing.T) {
	composite := change(plan.Import, "random_integer", "n", 0)
	composite.ImportID, composite.ProviderID = "42,1,100", "42"
	same := change(plan.Import, "Database", "db", 0)
	same.ImportID, same.ProviderID = "12345", "12345"
	p := newPlan("prod", composite, same)

	var txt bytes.Buffer
	if err := PlanText(&txt, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`⇐ import random_integer "n" (import id 42,1,100, id 42)`, `⇐ import Database "db" (id 12345)`} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, txt.String())
		}
	}
	var js bytes.Buffer
	if err := PlanJSON(&js, p, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Changes []struct {
			ResourceID string `json:"resourceId"`
			ProviderID string `json:"providerId"`
			ImportID   string `json:"importId"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		ResourceID string `json:"resourceId"`
		ProviderID string `json:"providerId"`
		ImportID   string `json:"importId"`
	}{{"n", "42", "42,1,100"}, {"db", "12345", "12345"}}
	if diff := cmp.Diff(want, got.Changes); diff != "" {
		t.Errorf("plan.json changes (-want +got):\n%s", diff)
	}
}
