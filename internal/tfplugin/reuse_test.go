package tfplugin_test

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestReuseSchema: a process that replaces another takes over its schema
// (the same one, renamed types included) when the provider said asking
// again is optional, and none before the first has one; its resident size
// is known while it runs and not once it has ended.
func TestReuseSchema(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			ctx := t.Context()
			launch := func() *tfplugin.Provider {
				p, err := tfplugin.Start(ctx, tfplugin.Config{
					Name: tp.Source(), LocalName: "other", Path: tfplugintest.Build(t, tp), StopGrace: 5 * time.Second,
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { p.Close() })
				return p
			}
			first, second := launch(), launch()
			if second.ReuseSchema(first) {
				t.Fatal("a schema was taken over from a process that has none yet")
			}
			s, err := first.Schema(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !s.GetProviderSchemaOptional {
				t.Skipf("%s asks for its schema at every process", tp.Type)
			}
			if !second.ReuseSchema(first) {
				t.Fatal("the schema was not taken over")
			}
			got, err := second.Schema(ctx)
			if err != nil || got != s {
				t.Fatalf("second process's schema: %p %v, want the first's %p", got, err, s)
			}
			if own := second.OwnType("other_item"); own != tp.Type+"_item" {
				t.Errorf("OwnType after the takeover: %q, want %q", own, tp.Type+"_item")
			}
			if n, ok := second.Resident(); !ok || n < 1<<20 {
				t.Errorf("resident size of a running process: %d %v", n, ok)
			}
			second.Close()
			if _, ok := second.Resident(); ok {
				t.Error("a resident size for a process that has ended")
			}
		})
	}
}
