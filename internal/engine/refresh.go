package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diff"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/value"
)

// RefreshOptions tune a refresh.
type RefreshOptions struct {
	// WriteState updates the state with what the cloud holds (backup first);
	// false only reports drift.
	WriteState bool
	// Config, when given, supplies ignoreChanges: drift in those properties
	// is not reported.
	Config *config.Config
}

// Drifted is one resource whose cloud object differs from state.
type Drifted struct {
	Type, Name, ProviderID string
	Gone                   bool
	// Properties: Old is the value in state (last applied), New the value
	// in the cloud. Sensitive ones are flagged for masking.
	Properties []plan.PropChange
}

// RefreshResult is the outcome of a refresh.
type RefreshResult struct {
	Drift        []Drifted // sorted by name
	Checked      int
	Written      bool
	BackupKey    string
	SerialBefore int64
	SerialAfter  int64
}

// HasDrift reports whether anything drifted.
func (r *RefreshResult) HasDrift() bool { return len(r.Drift) > 0 }

// Refresh reads every resource in state and reports drift per property.
// Written, a drifted object loses its basis (state.Basis): state then
// holds the cloud's values, not what its configuration last applied, so
// the next plan reads and plans it rather than taking it as untouched.
func (e *Engine) Refresh(ctx context.Context, opts RefreshOptions) (*RefreshResult, error) {
	if err := whole(opts.Config); err != nil {
		return nil, err
	}
	st, unlock, err := e.locked(ctx, "refresh", opts.WriteState)
	if err != nil {
		return nil, err
	}
	defer unlock()
	res := &RefreshResult{}
	if st == nil {
		return res, nil
	}
	res.SerialBefore, res.SerialAfter = st.Metadata.Serial, st.Metadata.Serial
	objs, gone, err := e.discover(ctx, st, nil, nil)
	if err != nil {
		return nil, err
	}
	next := st.Clone()
	for _, name := range st.Names() {
		sr := st.Resources[name]
		if sr.ProviderID == "" {
			continue
		}
		res.Checked++
		if gone[name] {
			res.Drift = append(res.Drift, Drifted{Type: sr.Type, Name: name, ProviderID: sr.ProviderID, Gone: true})
			delete(next.Resources, name)
			continue
		}
		var ignore, sensitive []string
		if opts.Config != nil {
			if cr := opts.Config.Resource(name); cr != nil {
				ignore, sensitive = cr.IgnoreChanges, cr.Sensitive
			}
		}
		// What was secret when last applied stays masked, also for a
		// resource the configuration no longer has.
		sensitive = slices.Concat(sensitive, sr.Sensitive)
		o := objs[name]
		if e.ownState(sr.Type) {
			// Its provider's read is the whole story: every attribute
			// against state's.
			if o.Stored != nil {
				sensitive = append(sensitive, o.Stored.Sensitive...)
			}
			attrs := value.KeepFrom(o.Outputs, sr.Outputs, ignore)
			nr := next.Resources[name]
			if d := diff.Values(sr.Outputs, attrs, sensitive); len(d) > 0 {
				res.Drift = append(res.Drift, Drifted{Type: sr.Type, Name: name, ProviderID: sr.ProviderID, Properties: d})
				nr.Basis = nil
			}
			nr.Outputs = o.Outputs
			recordStored(nr, o)
			continue
		}
		t, ok := schema.Lookup(sr.Type)
		if !ok {
			return nil, fmt.Errorf("state resource %q has unknown type %q", name, sr.Type)
		}
		// Old = state, New = cloud: compare with the cloud as "desired".
		d := diff.Resource(diff.Input{Type: t, Desired: merged(o.Properties, sr.Config), Actual: sr.Config, IgnoreChanges: ignore, Sensitive: sensitive})
		nr := next.Resources[name]
		if len(d.Changes) > 0 {
			res.Drift = append(res.Drift, Drifted{Type: sr.Type, Name: name, ProviderID: sr.ProviderID, Properties: d.Changes})
			nr.Basis = nil
		}
		if o.ID != "" && o.ID != sr.ProviderID {
			nr.ProviderID = o.ID // a stale ID resolved by name
			if o.CloudName != "" {
				nr.CloudName = o.CloudName
			}
		}
		nr.Config = merged(o.Properties, sr.Config)
		if o.Outputs != nil {
			nr.Outputs = o.Outputs
		}
	}
	if !opts.WriteState || !stateChanged(st, next) {
		return res, nil
	}
	if cfg := opts.Config; cfg != nil && cfg.Terraform {
		refreshOutputs(e.outputs(cfg, next, e.stateLookup(next, nil)), cfg, st, next)
	}
	key, err := e.backend.Backup(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("back up state before refresh: %w", err)
	}
	next.Metadata.Serial++
	if err := e.backend.Write(ctx, next, statemgr.WriteOptions{}); err != nil {
		return nil, fmt.Errorf("write refreshed state: %w", err)
	}
	res.Written, res.BackupKey, res.SerialAfter = true, key, next.Metadata.Serial
	return res, nil
}

// merged is the cloud's properties, with the last applied value for any
// property the provider cannot read back.
func merged(cloud, last map[string]any) map[string]any {
	out := value.CopyMap(cloud)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range last {
		if _, ok := out[k]; !ok {
			out[k] = value.Copy(v)
		}
	}
	return out
}

func stateChanged(a, b *state.File) bool {
	if len(a.Resources) != len(b.Resources) {
		return true
	}
	for n, ra := range a.Resources {
		rb := b.Resources[n]
		if rb == nil || ra.ProviderID != rb.ProviderID || !value.Equal(ra.Config, rb.Config) || !value.Equal(ra.Outputs, rb.Outputs) ||
			ra.SchemaVersion != rb.SchemaVersion || !bytes.Equal(ra.Private, rb.Private) {
			return true
		}
	}
	return false
}

// refreshOutputs records in next the outputs of cfg as the refreshed
// objects make them, as OpenTofu's apply -refresh-only records them:
// those known their values (outs), one reading an object found gone none
// (OpenTofu's null), the others as the last apply recorded them (one
// reading a data source, which a refresh does not read).
func refreshOutputs(outs map[string]any, cfg *config.Config, st, next *state.File) {
	for _, o := range cfg.Outputs {
		if v, ok := outs[o.Name]; ok {
			if old, had := next.Outputs[o.Name]; !had || !value.Equal(old, v) {
				if next.Outputs == nil {
					next.Outputs = map[string]any{}
				}
				next.Outputs[o.Name] = v // its type, the schema's or its value's, as recorded
			}
			continue
		}
		for _, ref := range value.Refs(o.Value) {
			if st.Resources[ref.Resource] != nil && next.Resources[ref.Resource] == nil {
				delete(next.Outputs, o.Name)
				delete(next.OutputTypes, o.Name)
				delete(next.OutputSensitivity, o.Name)
				break
			}
		}
	}
}
