package engine

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
)

// bulkRead is discovery's first pass when the provider reads in bulk
// (provider.BulkReader): one ReadMany for every state resource in names,
// retried like any provider call. What it returns goes into objs; the
// names it missed are returned, to be read one by one, because a list
// missing an object is no proof it is gone (it may have been renamed,
// untagged, or created before the prefix tag existed). Without a
// BulkReader every name is returned as is.
func (e *Engine) bulkRead(ctx context.Context, st *state.File, names []string, objs map[string]provider.Object) ([]string, error) {
	br, ok := e.provider.(provider.BulkReader)
	if !ok || len(names) == 0 {
		return names, nil
	}
	refs := make([]provider.Ref, 0, len(names))
	asked := make(map[provider.Ref]bool, len(names))
	for _, n := range names {
		sr := st.Resources[n]
		ref := provider.Ref{Type: sr.Type, ID: sr.ProviderID}
		if !asked[ref] {
			asked[ref] = true
			refs = append(refs, ref)
		}
	}
	var found map[provider.Ref]provider.Object
	err := e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		found, err = br.ReadMany(ctx, st.Metadata.Prefix, refs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read %d resources in bulk: %w", len(refs), err)
	}
	rest := make([]string, 0, len(names)-min(len(found), len(names)))
	for _, n := range names {
		sr := st.Resources[n]
		if o, ok := found[provider.Ref{Type: sr.Type, ID: sr.ProviderID}]; ok && o.ID == sr.ProviderID {
			objs[n] = o
			continue
		}
		rest = append(rest, n)
	}
	return rest, nil
}
