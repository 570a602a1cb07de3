package kyku

import (
	"fmt"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// ApplyResult is the outcome of an apply.
type ApplyResult struct {
	Plan         *Plan // what was applied
	Applied      bool  // changes were attempted (false: nothing to do)
	Succeeded    []ChangeResult
	Failed       []ChangeResult
	Skipped      []ChangeResult // a dependency failed, or the context was cancelled first
	Interrupted  bool           // the context was cancelled before every change started
	SerialBefore int64
	SerialAfter  int64
	BackupKey    string // the backup of the state the apply replaced ("": nothing changed, nothing written)
	Outputs      map[string]any
	Duration     time.Duration
}

// DestroyResult is the outcome of a destroy.
type DestroyResult = ApplyResult

// ChangeResult is the outcome of one change.
type ChangeResult struct {
	Action     Action
	Type, Name string
	ProviderID string
	Err        error // the failure, or why it was skipped
}

// Err summarises a failed or interrupted apply, or returns nil. The
// changes that succeeded stay applied and recorded in the state.
func (r *ApplyResult) Err() error {
	switch {
	case len(r.Failed) > 0:
		return fmt.Errorf("apply failed: %d succeeded, %d failed, %d skipped: %s %q: %w",
			len(r.Succeeded), len(r.Failed), len(r.Skipped), r.Failed[0].Action, r.Failed[0].Name, r.Failed[0].Err)
	case r.Interrupted:
		return fmt.Errorf("apply interrupted: %d succeeded, %d not started", len(r.Succeeded), len(r.Skipped))
	}
	return nil
}

func publicResult(r *engine.Result) *ApplyResult {
	if r == nil {
		return nil
	}
	out := &ApplyResult{
		Applied: r.Applied, Interrupted: r.Interrupted, SerialBefore: r.SerialBefore, SerialAfter: r.SerialAfter,
		BackupKey: r.BackupKey, Outputs: value.CopyMap(r.Outputs), Duration: r.Duration,
		Succeeded: publicChanges(r.Succeeded), Failed: publicChanges(r.Failed), Skipped: publicChanges(r.Skipped),
	}
	if r.Plan != nil {
		out.Plan = publicPlan(r.Plan)
	}
	return out
}

func publicChanges(rs []engine.ChangeResult) []ChangeResult {
	if len(rs) == 0 {
		return nil
	}
	out := make([]ChangeResult, len(rs))
	for i, r := range rs {
		out[i] = ChangeResult{Action: Action(r.Action.String()), Type: r.Type, Name: r.Name, ProviderID: r.ProviderID, Err: r.Err}
	}
	return out
}

// RefreshResult is the outcome of a refresh.
type RefreshResult struct {
	Drift        []Drift // sorted by name
	Checked      int     // resources read
	Written      bool    // the state was updated
	BackupKey    string
	SerialBefore int64
	SerialAfter  int64
}

// HasDrift reports whether anything drifted.
func (r *RefreshResult) HasDrift() bool { return len(r.Drift) > 0 }

// Drift is one resource whose cloud object differs from the state.
type Drift struct {
	Type, Name, ProviderID string
	Gone                   bool             // deleted outside Kyku
	Properties             []PropertyChange // Old: the state's value, New: the cloud's
}

func publicRefresh(r *engine.RefreshResult) *RefreshResult {
	out := &RefreshResult{Checked: r.Checked, Written: r.Written, BackupKey: r.BackupKey, SerialBefore: r.SerialBefore, SerialAfter: r.SerialAfter}
	for _, d := range r.Drift {
		out.Drift = append(out.Drift, Drift{Type: d.Type, Name: d.Name, ProviderID: d.ProviderID, Gone: d.Gone, Properties: publicProps(d.Properties)})
	}
	return out
}

// StateFile is the state of one environment: what Kyku manages and the
// cloud's IDs for it.
type StateFile struct {
	Metadata  StateMetadata
	Resources map[string]StateResource
	Outputs   map[string]any
}

// StateMetadata identifies a state's history: Lineage never changes after
// the first write, Serial rises with every write.
type StateMetadata struct {
	Version     int
	Prefix      string // the deploy prefix
	Lineage     string
	Serial      int64
	Environment string
}

// StateResource is the last known state of one managed resource.
type StateResource struct {
	Name         string
	Type         string
	CloudName    string
	ProviderID   string
	Config       map[string]any // the resolved properties last applied (sensitive ones included)
	Outputs      map[string]any
	Dependencies []string
	Protect      bool
}

func publicState(st *state.File) *StateFile {
	if st == nil {
		return nil
	}
	m := st.Metadata
	out := &StateFile{
		Metadata:  StateMetadata{Version: m.Version, Prefix: m.Prefix, Lineage: m.Lineage, Serial: m.Serial, Environment: m.Environment},
		Resources: make(map[string]StateResource, len(st.Resources)),
		Outputs:   value.CopyMap(st.Outputs),
	}
	for n, r := range st.Resources {
		out.Resources[n] = StateResource{
			Name: r.Name, Type: r.Type, CloudName: r.CloudName, ProviderID: r.ProviderID,
			Config: value.CopyMap(r.Config), Outputs: value.CopyMap(r.Outputs),
			Dependencies: append([]string(nil), r.Dependencies...), Protect: r.Protect,
		}
	}
	return out
}
