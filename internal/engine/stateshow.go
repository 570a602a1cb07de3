package engine

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// StateResource is one resource instance of the state (kyku state show):
// read under the lock, nothing written. A name not in the state is an
// error naming the closest that is.
func (e *Engine) StateResource(ctx context.Context, name string) (*state.Resource, error) {
	a, ok := value.ParseAddress(name)
	if !ok || a.Kind == value.AllIndex {
		return nil, fmt.Errorf("state show: %q is not a resource instance address", name)
	}
	st, err := e.ReadState(ctx)
	if err != nil {
		return nil, err
	}
	if st == nil || st.Resources[a.String()] == nil {
		var names []string
		if st != nil {
			names = st.Names()
		}
		return nil, fmt.Errorf("state show: %s is not in state%s", value.QuoteName(a.String()), nameHint(a.String(), names))
	}
	return st.Resources[a.String()], nil
}
