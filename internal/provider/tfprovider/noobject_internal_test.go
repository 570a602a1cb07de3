package tfprovider

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/tfplugin"
)

// TestMadeNoObject: a create that failed before the plugin client sent
// its request, or that the provider answered without an object, made
// none (its intent is closed); one whose request got no answer, or whose
// failure carries the object, may have or did.
func TestMadeNoObject(t *testing.T) {
	for _, c := range []struct {
		name     string
		err      error
		answered bool
		want     bool
	}{
		{name: "succeeded", answered: true},
		{name: "answered with an error", err: errors.New("provider TP: refuses input"), answered: true, want: true},
		{name: "not sent", err: fmt.Errorf("encode config: %w", tfplugin.ErrNotSent), want: true},
		{name: "no answer", err: errors.New("provider TP: ApplyResourceChange: connection lost")},
		{name: "object kept", err: &provider.PartialError{Err: errors.New("bad answer")}, answered: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := madeNoObject(c.err, c.answered); got != c.want {
				t.Errorf("madeNoObject(%v, %v) = %v, want %v", c.err, c.answered, got, c.want)
			}
		})
	}
}

// TestRouterCreateOfAnUnstartedProvider: a create routed to no provider
// (its provider is not among those the run started) asked none: it made
// no object.
func TestRouterCreateOfAnUnstartedProvider(t *testing.T) {
	_, err := NewRouter(nil).Create(t.Context(), provider.Resource{Name: "x", Type: "gone_item"})
	if err == nil || !errors.Is(err, provider.ErrNoObject) {
		t.Fatalf("create: %v, want an error that made no object", err)
	}
}
