package engine

import (
	"context"
	"maps"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Outputs returns the config's outputs evaluated against the state (the
// outputs recorded at the last apply when cfg is nil), and the types the
// last apply recorded of them (state.File.OutputTypes), by name, where it
// recorded one for the value it recorded. An output that reads a data
// source is the value the last apply recorded: reading a data source
// needs its provider, which listing outputs does not start (Terraform's
// output command, too, lists what state recorded); so is one not known
// without a plan (plantimestamp(), timestamp()).
func (e *Engine) Outputs(ctx context.Context, cfg *config.Config) (values, types map[string]any, err error) {
	if err := whole(cfg); err != nil {
		return nil, nil, err
	}
	st, err := e.ReadState(ctx)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		return map[string]any{}, map[string]any{}, nil
	}
	values = e.outputs(cfg, st, e.stateLookup(st, nil))
	if cfg != nil {
		data := dataNames(cfg)
		for _, o := range cfg.Outputs {
			now, known := values[o.Name]
			known = known && !value.HasUnknown(now)
			if v, ok := st.Outputs[o.Name]; ok && (!known || readsAny(o.Value, data)) {
				values[o.Name] = v
			}
		}
	}
	types = map[string]any{}
	for n, v := range values {
		if t, ok := st.OutputTypes[n]; ok && value.Equal(v, st.Outputs[n]) {
			types[n] = t
		}
	}
	return values, types, nil
}

// RecordedOutputs are the outputs the last apply recorded in state, their
// types and which of them are sensitive, as recorded: what OpenTofu's
// output command lists of a Terraform configuration (nothing after a
// destroy; the last apply's values of an output changed since).
func (e *Engine) RecordedOutputs(ctx context.Context) (values, types map[string]any, sensitive map[string]bool, err error) {
	st, err := e.ReadState(ctx)
	if err != nil || st == nil {
		return map[string]any{}, map[string]any{}, map[string]bool{}, err
	}
	return maps.Clone(st.Outputs), maps.Clone(st.OutputTypes), maps.Clone(st.OutputSensitivity), nil
}

// dataNames are the names of cfg's data sources (an instance's, web[0],
// by its resource's name, web).
func dataNames(cfg *config.Config) map[string]bool {
	out := map[string]bool{}
	for _, r := range cfg.Resources {
		if r.Data {
			out[value.BaseName(r.Name)] = true
		}
	}
	return out
}

// readsAny reports whether v refers to one of names.
func readsAny(v any, names map[string]bool) bool {
	for _, ref := range value.Refs(v) {
		if names[value.BaseName(ref.Resource)] {
			return true
		}
	}
	return false
}

// outputTypes are the types of the outputs of cfg that outs holds (their
// values) that a schema says, as OpenTofu's state records them, in
// Terraform's JSON type syntax: an output that is one reference to an
// attribute of a provider's resource or data source takes the type its
// schema gives the attribute (provider.Schemas.AttributeType), and one to the ID
// of one of Kyku's types is a string. Any other output takes the type its
// expression says (said, by name: typedOutputs), or else its value's, as
// it does where asking the provider fails: nil when none.
func (e *Engine) outputTypes(ctx context.Context, cfg *config.Config, outs, said map[string]any) map[string]any {
	if cfg == nil || len(outs) == 0 {
		return nil
	}
	var types map[string]any
	for _, o := range cfg.Outputs {
		if _, known := outs[o.Name]; !known {
			continue
		}
		if t, ok := said[o.Name]; ok {
			if types == nil {
				types = map[string]any{}
			}
			types[o.Name] = t
		}
		ref, ok := value.WholeRef(o.Value)
		if !ok || ref.HasSplat() {
			continue
		}
		r := cfg.Resource(ref.Resource)
		if r == nil {
			continue
		}
		var t any
		switch {
		case r.Data || e.ownState(r.Type):
			attr := ref.Attr
			if attr == "" {
				attr = "id" // what ${res} reads of a provider's resource
			}
			t, _ = e.provider.AttributeType(ctx, r.Type, r.Data, attr, ref.Steps())
		case ref.Attr == "" || ref.Attr == "id" && ref.Path == "":
			t = "string" // a provider ID
		}
		if t != nil {
			if types == nil {
				types = map[string]any{}
			}
			types[o.Name] = t
		}
	}
	return types
}

// recordOutputs sets next's outputs, their types (said by their
// expressions, by name, or their schemas') and their sensitivity, to outs; it
// reports whether they differ from st's.
func (e *Engine) recordOutputs(ctx context.Context, cfg *config.Config, st, next *state.File, outs, said map[string]any) bool {
	types := e.outputTypes(ctx, cfg, outs, said)
	sens := outputSensitivity(cfg, outs, st)
	changed := !sameMap(outs, st.Outputs) || !sameMap(types, st.OutputTypes) || !maps.Equal(sens, st.OutputSensitivity)
	next.Outputs, next.OutputTypes, next.OutputSensitivity = outs, types, sens
	return changed
}

// sameMap reports whether a and b hold equal values, an empty map the
// same as none.
func sameMap(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return value.Equal(a, b)
}
