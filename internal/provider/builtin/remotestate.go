package builtin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// terraform_remote_state, as OpenTofu 1.12 serves it: backend (string,
// required), config (an object: the backend's arguments), workspace
// (string; "default" when null), defaults (an object) and outputs
// (computed: the other state's root outputs over defaults). The state
// is read through a StateReader, read only: no lock, no write.

const remoteStateType = "terraform_remote_state"

// RemoteState is what a terraform_remote_state asks to read.
type RemoteState struct {
	Backend   string         // "local", "s3", "gcs" or "http"
	Config    map[string]any // the backend's arguments
	Workspace string         // "" for the default workspace
}

// RemoteOutputs are another state's root outputs and, by name, whether
// each was sensitive (nil: not recorded, every one is taken as sensitive).
type RemoteOutputs struct {
	Values    map[string]any
	Sensitive map[string]bool
}

// StateReader reads another root's state, without lock or write.
// ErrNoState: the workspace has no state.
type StateReader interface {
	ReadOutputs(ctx context.Context, q RemoteState) (RemoteOutputs, error)
}

// ErrNoState is a StateReader's answer for a workspace without a state.
var ErrNoState = errors.New("no stored state was found for the given workspace in the given backend")

// errNoReader is the answer where nothing reads states (a YAML run).
var errNoReader = errors.New("reading another configuration's state is not available here")

// remoteArgs are terraform_remote_state's arguments.
var remoteArgs = []string{"backend", "config", "defaults", "workspace"}

// remoteAttrs are terraform_remote_state's attributes: its arguments
// and outputs.
var remoteAttrs = append(slices.Clone(remoteArgs), "outputs")

// validateRemoteState refuses what OpenTofu's ValidateDataResourceConfig
// refuses of terraform_remote_state: a missing backend, an argument its
// schema lacks, outputs set (computed), and config or defaults that are
// not objects.
func validateRemoteState(d provider.Desired) []provider.Refusal {
	var out []provider.Refusal
	refuse := func(path, format string, args ...any) {
		out = append(out, provider.Refusal{Resource: d.Name, Path: path, Reason: fmt.Sprintf(format, args...)})
	}
	if d.Properties["backend"] == nil {
		refuse("backend", "The argument %q is required, but no definition was found.", "backend")
	}
	for _, name := range slices.Sorted(maps.Keys(d.Properties)) {
		v := d.Properties[name]
		if name != "outputs" && (value.HasUnknown(v) || len(value.Refs(v)) > 0) {
			continue // checked once known, when read
		}
		switch name {
		case "backend", "workspace":
			if _, ok := v.(string); !ok && v != nil {
				refuse(name, "Invalid value for %q: a string is required.", name)
			}
		case "config", "defaults":
			if _, ok := v.(map[string]any); !ok && v != nil {
				refuse(name, "Invalid value for %q: an object is required.", name)
			}
		case "outputs":
			if v != nil {
				refuse(name, "%q attribute is read-only", name)
			}
		default:
			refuse(name, "an argument named %q is not expected here", name)
		}
	}
	return out
}

// readRemoteState reads the outputs of the state props name: defaults
// first, the state's outputs over them. outputs is sensitive when any
// output the state holds is (or the state does not say).
func (p *Provider) readRemoteState(ctx context.Context, props map[string]any) (map[string]any, []string, error) {
	if refused := validateRemoteState(provider.Desired{Type: remoteStateType, Properties: props, Data: true}); len(refused) > 0 {
		return nil, nil, fmt.Errorf("%s: %s", refused[0].Path, refused[0].Reason)
	}
	q := RemoteState{}
	q.Backend, _ = props["backend"].(string)
	q.Config, _ = props["config"].(map[string]any)
	q.Workspace, _ = props["workspace"].(string)
	if q.Backend == "" {
		return nil, nil, errors.New(`backend: a backend type is required ("local", "s3", "gcs" or "http")`)
	}
	if q.Backend == "_local" { // OpenTofu's old name, still accepted
		q.Backend = "local"
	}
	if p.states == nil {
		return nil, nil, errNoReader
	}
	got, err := p.states.ReadOutputs(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("read the remote state: %w", err)
	}
	outputs := map[string]any{}
	if d, ok := props["defaults"].(map[string]any); ok {
		maps.Copy(outputs, d)
	}
	var sensitive []string
	for name, v := range got.Values {
		outputs[name] = v
		if s, known := got.Sensitive[name]; s || !known {
			sensitive = []string{"outputs"}
		}
	}
	vals := remoteConfig(props)
	vals["outputs"] = outputs
	return vals, sensitive, nil
}

// planRemoteState is what the plan knows of a terraform_remote_state
// read during apply: its arguments, outputs unknown (and sensitive, as
// it may be: nothing is known of it yet).
func planRemoteState(props map[string]any) (map[string]any, []string) {
	vals := remoteConfig(props)
	vals["outputs"] = value.Unknown
	return vals, []string{"outputs"}
}

// remoteConfig are props' arguments, null ones left out.
func remoteConfig(props map[string]any) map[string]any {
	vals := map[string]any{}
	for _, name := range remoteArgs {
		if v, ok := props[name]; ok && v != nil {
			vals[name] = v
		}
	}
	return vals
}
