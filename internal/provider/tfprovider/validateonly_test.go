package tfprovider_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestValidateOnly: a provider started to validate (kyku validate) is
// never configured: where its ConfigureProvider would fail for want of
// credentials, configurations are checked against its schema and by its
// own validation all the same, and its attributes' types are known; a
// call that would reach its cloud (a plan) fails, naming why.
func TestValidateOnly(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.tune = func(c *tfprovider.Config) {
		c.ValidateOnly = true
		c.Env = []string{"FWTEST_REQUIRE_CREDENTIALS=1"}
	}
	ctx := t.Context()
	head := "providers:\n  TP: { source: kyku/TP, config: { dir: CLOUD } }\nresources:\n"

	good := w.parse(head + "  one: { type: TP_item, properties: { name: one } }\n")
	w.engine(good)
	if err := engine.Validate(ctx, w.router, good); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if typ, err := w.router.AttributeType(ctx, "fwtest_item", false, "revision", nil); err != nil || typ != "number" {
		t.Errorf("the type of revision: %v %v, want number", typ, err)
	}

	bad := w.parse(head + "  one: { type: TP_item, properties: { name: one, value: \"has space\" } }\n")
	w.engine(bad)
	if err := engine.Validate(ctx, w.router, bad); err == nil || !strings.Contains(err.Error(), "the test cloud refuses spaces in value") {
		t.Errorf("validate: %v, want the provider's refusal", err)
	}

	_, err := w.engine(good).Plan(ctx, good)
	if err == nil || !strings.Contains(err.Error(), "started to validate configurations only, not configured") {
		t.Errorf("plan with a provider started to validate: %v", err)
	}
}
