package tfplugin_test

import (
	"errors"
	"os"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfplugin"
)

// TestApplyFailingBeforeTheRequest: an ApplyResourceChange that fails in
// the client before its request is sent (a type the provider lacks, a
// value that does not encode) says so (tfplugin.ErrNotSent), and the
// provider made nothing; one the provider answers is not marked.
func TestApplyFailingBeforeTheRequest(t *testing.T) {
	tp := testProviders[0]
	p, cloud := start(t, tp)
	typ := tp.Type + "_item"
	s, err := p.Schema(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	null := cty.NullVal(s.ResourceTypes[typ].Block.ImpliedType())
	for _, c := range []struct {
		name string
		req  tfplugin.ApplyRequest
	}{
		{name: "no such type", req: tfplugin.ApplyRequest{TypeName: tp.Type + "_nothing"}},
		{name: "config of another type", req: tfplugin.ApplyRequest{TypeName: typ, PriorState: null, PlannedState: null, Config: cty.StringVal("x")}},
		{name: "planned state of another type", req: tfplugin.ApplyRequest{TypeName: typ, PriorState: null, PlannedState: cty.True, Config: null}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := p.ApplyResourceChange(t.Context(), c.req)
			if !errors.Is(err, tfplugin.ErrNotSent) {
				t.Fatalf("ApplyResourceChange: %v, want it marked not sent", err)
			}
		})
	}
	if files, err := os.ReadDir(cloud); err != nil || len(files) != 0 {
		t.Errorf("cloud: %v %v, want nothing made", files, err)
	}
	// Sent and answered (a destroy of nothing, or an error): not marked.
	if _, err := p.ApplyResourceChange(t.Context(), tfplugin.ApplyRequest{TypeName: typ, PriorState: null, PlannedState: null, Config: null}); errors.Is(err, tfplugin.ErrNotSent) {
		t.Errorf("an apply the provider answered is marked not sent: %v", err)
	}
}
