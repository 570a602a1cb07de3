package engine

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
)

// bulkRead is discovery's first pass: one ReadMany for every state
// resource in todo, retried like any provider call. What it returns goes
// into objs; the resources it missed are returned, to be read one by one,
// because a list missing an object is no proof it is gone (it may have
// been renamed, untagged, or created before the prefix tag existed). A
// provider that reads one object at a time answers none.
func (e *Engine) bulkRead(ctx context.Context, st *state.File, todo []*state.Resource, objs map[string]provider.Object) ([]*state.Resource, error) {
	if len(todo) == 0 {
		return todo, nil
	}
	refs := make([]provider.Ref, 0, len(todo))
	asked := make(map[provider.Ref]bool, len(todo))
	for _, sr := range todo {
		ref := provider.Ref{Type: sr.Type, ID: sr.ProviderID}
		if !asked[ref] {
			asked[ref] = true
			refs = append(refs, ref)
		}
	}
	var found map[provider.Ref]provider.Object
	err := e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		found, err = e.provider.ReadMany(ctx, st.Metadata.Prefix, refs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read %s in bulk: %w", noun.Count(len(refs), "resource"), err)
	}
	rest := make([]*state.Resource, 0, len(todo)-min(len(found), len(todo)))
	for _, sr := range todo {
		if o, ok := found[provider.Ref{Type: sr.Type, ID: sr.ProviderID}]; ok && o.ID == sr.ProviderID {
			objs[sr.Name] = o
			continue
		}
		rest = append(rest, sr)
	}
	return rest, nil
}
