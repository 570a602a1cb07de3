package builtin

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/suggest"
	"github.com/kyku/action/internal/value"
)

// Name is the local name, and the prefix of the types, of the built-in
// provider; Source is its address, as OpenTofu records it in state.
const (
	Name   = "terraform"
	Source = "terraform.io/builtin/terraform"
)

// dataType is the one resource type served.
const dataType = "terraform_data"

// Provider is OpenTofu's built-in provider.
type Provider struct {
	newID  func() (string, error)
	states StateReader
}

var _ provider.Provider = (*Provider)(nil)

// New returns the provider; newID gives the ID of every object it
// creates (RandomUUID where nothing else is wanted).
func New(newID func() (string, error)) *Provider { return &Provider{newID: newID} }

// WithStates has p read terraform_remote_state through r; without it, a
// terraform_remote_state cannot be read.
func (p *Provider) WithStates(r StateReader) *Provider {
	p.states = r
	return p
}

// RandomUUID is a random UUID written as OpenTofu writes terraform_data's
// IDs: 16 random bytes as 8-4-4-4-12 hexadecimal digits.
func RandomUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate an ID: %w", err)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

func (p *Provider) Name() string { return Name }

// Schema: every type keeps its own state, as a Terraform provider's.
func (p *Provider) Schema(string) provider.TypeSchema {
	return provider.TypeSchema{Provider: Name, OwnState: true}
}

func (p *Provider) OwnType(context.Context, string) (string, error) { return "", nil }

// WriteOnly: terraform_data has no write-only attribute.
func (p *Provider) WriteOnly(context.Context, string) ([]string, error) { return nil, nil }

// Empties is nil: terraform_data's attributes are written null by the
// state itself (tfstate's builtinDynamic).
func (p *Provider) Empties(string) map[string]any { return nil }

// AttributeType: id is a string; input, output and triggers_replace are
// of any type (nil), as terraform_remote_state's are; any other attribute
// is none of theirs (provider.ErrNoAttribute). The whole object
// (value.AllAttrs) is an object of them all.
func (p *Provider) AttributeType(_ context.Context, typ string, data bool, attr string, path []value.Step) (any, error) {
	known := attrs
	if data {
		known = remoteAttrs
	}
	if attr == value.AllAttrs { // the whole object: every attribute, of any type
		types := make(map[string]any, len(known))
		for _, a := range known {
			types[a] = "dynamic"
		}
		return []any{"object", types}, nil
	}
	if !slices.Contains(known, attr) {
		return nil, fmt.Errorf("%s has no attribute %q: %w", typ, attr, provider.ErrNoAttribute)
	}
	if typ == dataType && !data && attr == "id" && len(path) == 0 {
		return "string", nil
	}
	return nil, nil
}

// CheckResources refuses nothing: ValidateConfigs checks the schema.
func (p *Provider) CheckResources([]provider.Desired) []provider.Refusal { return nil }

// CheckName refuses nothing: the objects have no cloud names of Kyku's.
func (p *Provider) CheckName(string, string) error { return nil }

// ValidID is true: any ID is the provider's to keep.
func (p *Provider) ValidID(string, string) bool { return true }

// CheckCloud refuses nothing: there is no cloud.
func (p *Provider) CheckCloud(context.Context, []provider.Desired) ([]provider.Refusal, error) {
	return nil, nil
}

// ValidateConfigs refuses what OpenTofu refuses of the built-in
// provider's resources: a type it does not have, an argument its schema
// lacks, and id or output set (read-only); terraform_remote_state as
// validateRemoteState says.
func (p *Provider) ValidateConfigs(_ context.Context, rs []provider.Desired) ([]provider.Refusal, error) {
	var out []provider.Refusal
	for _, d := range rs {
		switch {
		case d.Data && d.Type == remoteStateType:
			out = append(out, validateRemoteState(d)...)
			continue
		case d.Data:
			out = append(out, provider.Refusal{Resource: d.Name, Reason: fmt.Sprintf("OpenTofu's built-in provider has no data source %q", d.Type)})
			continue
		case d.Type != dataType:
			out = append(out, provider.Refusal{Resource: d.Name, Reason: fmt.Sprintf("OpenTofu's built-in provider has no resource type %q", d.Type)})
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(d.Properties)) {
			switch name {
			case "input", "triggers_replace":
			case "id", "output":
				if d.Properties[name] != nil {
					out = append(out, provider.Refusal{Resource: d.Name, Path: name, Reason: fmt.Sprintf("%q attribute is read-only", name),
						Summary: fmt.Sprintf("%q attribute is read-only", name)})
				}
			default:
				out = append(out, provider.Refusal{Resource: d.Name, Path: name, Reason: fmt.Sprintf("an argument named %q is not expected here", name),
					Summary: "Unsupported argument", Detail: fmt.Sprintf("An argument named %q is not expected here.%s", name, suggest.Terraform(name, []string{"input", "triggers_replace"}))})
			}
		}
	}
	return out, nil
}

// CheckReads refuses nothing: terraform_data and terraform_remote_state
// are read as OpenTofu reads them.
func (p *Provider) CheckReads(context.Context, []provider.Desired, map[string]any) ([]provider.Refusal, error) {
	return nil, nil
}

// ReadMany reads nothing: the engine reads each object with ReadStored.
func (p *Provider) ReadMany(context.Context, string, []provider.Ref) (map[provider.Ref]provider.Object, error) {
	return nil, nil
}

var errNeedsState = errors.New("a terraform_data object is read and deleted with what state keeps of it")

// Read needs what state keeps of the object: the engine calls ReadStored.
func (p *Provider) Read(context.Context, string, string) (provider.Object, error) {
	return provider.Object{}, errNeedsState
}

// Delete needs what state keeps of the object: the engine calls
// DeleteStored.
func (p *Provider) Delete(context.Context, string, string) error { return errNeedsState }

// DeleteStored has nothing to delete: the object lives in state alone.
func (p *Provider) DeleteStored(_ context.Context, typ, _ string, _ provider.Stored, _ *provider.Planned) error {
	return checkType(typ)
}

// Rename leaves the object as it is: state moves alone.
func (p *Provider) Rename(_ context.Context, id string, r provider.Resource) (provider.Object, error) {
	return provider.Object{ID: id, CloudName: r.CloudName}, nil
}

// Lookup: objects are not found by cloud name.
func (p *Provider) Lookup(_ context.Context, typ, name string) (provider.Object, error) {
	return provider.Object{}, provider.NotFound(typ + " " + name)
}

// Zones: there are no auto-subnets.
func (p *Provider) Zones(context.Context) ([]string, error) { return nil, nil }

// ReadData reads terraform_remote_state: the other state's outputs.
func (p *Provider) ReadData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	if typ != remoteStateType {
		return nil, nil, fmt.Errorf("data source %s: %w", typ, provider.ErrNotSupported)
	}
	return p.readRemoteState(ctx, props)
}

// PlanData: terraform_remote_state read during apply, its outputs unknown.
func (p *Provider) PlanData(_ context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	if typ != remoteStateType {
		return nil, nil, fmt.Errorf("data source %s: %w", typ, provider.ErrNotSupported)
	}
	vals, sensitive := planRemoteState(props)
	return vals, sensitive, nil
}

// Stop: calls end at once; there is nothing in flight.
func (p *Provider) Stop(context.Context) error { return nil }

// Close: nothing is held.
func (p *Provider) Close() error { return nil }

// checkType refuses a type other than terraform_data.
func checkType(typ string) error {
	if typ != dataType {
		return fmt.Errorf("OpenTofu's built-in provider has no resource type %q", typ)
	}
	return nil
}

// KeepsAnswers: terraform_data makes no cloud object; no journal keeper
// keeps its creates' answers.
func (p *Provider) KeepsAnswers(string) bool { return false }

// Answered: the built-in provider keeps no create's answer (KeepsAnswers).
func (p *Provider) Answered(_ context.Context, typ string, _ []byte) (provider.Object, error) {
	return provider.Object{}, fmt.Errorf("the built-in provider keeps no answer of a create of %s: %w", typ, provider.ErrNotSupported)
}
