package builtin_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/builtin"
)

// fakeStates is a StateReader with function fields.
type fakeStates struct {
	read func(builtin.RemoteState) (builtin.RemoteOutputs, error)
	got  []builtin.RemoteState
}

func (f *fakeStates) ReadOutputs(_ context.Context, q builtin.RemoteState) (builtin.RemoteOutputs, error) {
	f.got = append(f.got, q)
	return f.read(q)
}

// TestReadRemoteState: outputs are the state's root outputs over the
// defaults; outputs is sensitive when any output the state holds is (or
// the state does not say); the arguments come back as given.
func TestReadRemoteState(t *testing.T) {
	state := builtin.RemoteOutputs{
		Values:    map[string]any{"vpc_id": "vpc-1", "region": "eu-west", "db_password": "hunter2"},
		Sensitive: map[string]bool{"vpc_id": false, "region": false, "db_password": true},
	}
	plain := builtin.RemoteOutputs{Values: map[string]any{"vpc_id": "vpc-1"}, Sensitive: map[string]bool{"vpc_id": false}}
	cases := []struct {
		name          string
		props         map[string]any
		state         builtin.RemoteOutputs
		want          map[string]any
		wantSensitive []string
		wantQuery     builtin.RemoteState
	}{
		{"outputs over defaults, a sensitive one masks outputs",
			map[string]any{"backend": "local", "config": map[string]any{"path": "n.tfstate"}, "defaults": map[string]any{"region": "eu-central", "zone": "a"}},
			state,
			map[string]any{"backend": "local", "config": map[string]any{"path": "n.tfstate"}, "defaults": map[string]any{"region": "eu-central", "zone": "a"},
				"outputs": map[string]any{"vpc_id": "vpc-1", "region": "eu-west", "db_password": "hunter2", "zone": "a"}},
			[]string{"outputs"}, builtin.RemoteState{Backend: "local", Config: map[string]any{"path": "n.tfstate"}}},
		{"no sensitive output: outputs not sensitive",
			map[string]any{"backend": "s3", "workspace": "prod", "config": map[string]any{"bucket": "b", "key": "k"}},
			plain,
			map[string]any{"backend": "s3", "workspace": "prod", "config": map[string]any{"bucket": "b", "key": "k"}, "outputs": map[string]any{"vpc_id": "vpc-1"}},
			nil, builtin.RemoteState{Backend: "s3", Workspace: "prod", Config: map[string]any{"bucket": "b", "key": "k"}}},
		{"sensitivity not recorded: outputs sensitive",
			map[string]any{"backend": "gcs"},
			builtin.RemoteOutputs{Values: map[string]any{"vpc_id": "vpc-1"}},
			map[string]any{"backend": "gcs", "outputs": map[string]any{"vpc_id": "vpc-1"}},
			[]string{"outputs"}, builtin.RemoteState{Backend: "gcs"}},
		{"_local is local, as in OpenTofu",
			map[string]any{"backend": "_local"},
			builtin.RemoteOutputs{},
			map[string]any{"backend": "_local", "outputs": map[string]any{}},
			nil, builtin.RemoteState{Backend: "local"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := &fakeStates{read: func(builtin.RemoteState) (builtin.RemoteOutputs, error) { return tc.state, nil }}
			p := builtin.New(ids()).WithStates(fs)
			got, sensitive, err := p.ReadData(t.Context(), "terraform_remote_state", tc.props)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSensitive, sensitive); diff != "" {
				t.Errorf("sensitive (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]builtin.RemoteState{tc.wantQuery}, fs.got); diff != "" {
				t.Errorf("state read (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadRemoteStateErrors: a state that is not there, a reader's
// refusal, and no reader at all are errors naming what failed.
func TestReadRemoteStateErrors(t *testing.T) {
	refused := errors.New(`backend "s3": role_arn: assuming a role is not supported`)
	for _, tc := range []struct {
		name    string
		p       *builtin.Provider
		wantErr error
	}{
		{"no state", builtin.New(ids()).WithStates(&fakeStates{read: func(builtin.RemoteState) (builtin.RemoteOutputs, error) {
			return builtin.RemoteOutputs{}, builtin.ErrNoState
		}}), builtin.ErrNoState},
		{"refused", builtin.New(ids()).WithStates(&fakeStates{read: func(builtin.RemoteState) (builtin.RemoteOutputs, error) {
			return builtin.RemoteOutputs{}, refused
		}}), refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.p.ReadData(t.Context(), "terraform_remote_state", map[string]any{"backend": "s3"})
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
	if _, _, err := builtin.New(ids()).ReadData(t.Context(), "terraform_remote_state", map[string]any{"backend": "local"}); err == nil {
		t.Error("read without a StateReader: no error")
	}
	if _, _, err := builtin.New(ids()).ReadData(t.Context(), "terraform_other", nil); !errors.Is(err, provider.ErrNotSupported) {
		t.Errorf("another data source: err = %v, want ErrNotSupported", err)
	}
}

// TestPlanRemoteState: read during apply, outputs unknown and sensitive.
func TestPlanRemoteState(t *testing.T) {
	p := builtin.New(ids())
	props := map[string]any{"backend": "local", "config": map[string]any{"path": unknown}}
	got, sensitive, err := p.PlanData(t.Context(), "terraform_remote_state", props)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"backend": "local", "config": map[string]any{"path": unknown}, "outputs": unknown}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"outputs"}, sensitive); diff != "" {
		t.Errorf("sensitive (-want +got):\n%s", diff)
	}
}

// TestValidateRemoteState: OpenTofu's schema of terraform_remote_state.
func TestValidateRemoteState(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]any
		want  []provider.Refusal
	}{
		{"valid", map[string]any{"backend": "local", "config": map[string]any{"path": "x"}, "defaults": map[string]any{}, "workspace": "w"}, nil},
		{"unknown values pass", map[string]any{"backend": unknown, "config": unknown}, nil},
		{"backend missing", map[string]any{"config": map[string]any{}},
			[]provider.Refusal{{Resource: "r", Path: "backend", Reason: `The argument "backend" is required, but no definition was found.`}}},
		{"config not an object", map[string]any{"backend": "local", "config": "x"},
			[]provider.Refusal{{Resource: "r", Path: "config", Reason: `Invalid value for "config": an object is required.`}}},
		{"defaults not an object", map[string]any{"backend": "local", "defaults": []any{"x"}},
			[]provider.Refusal{{Resource: "r", Path: "defaults", Reason: `Invalid value for "defaults": an object is required.`}}},
		{"outputs set", map[string]any{"backend": "local", "outputs": map[string]any{}},
			[]provider.Refusal{{Resource: "r", Path: "outputs", Reason: `"outputs" attribute is read-only`}}},
		{"unknown argument", map[string]any{"backend": "local", "bucket": "b"},
			[]provider.Refusal{{Resource: "r", Path: "bucket", Reason: `an argument named "bucket" is not expected here`}}},
	}
	p := builtin.New(ids())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.ValidateConfigs(t.Context(), []provider.Desired{{Name: "r", Type: "terraform_remote_state", Properties: tc.props, Data: true}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("refusals (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadRemoteStateChecksArguments: at read, with every value known,
// what validation let pass while unknown is checked; nothing is read.
func TestReadRemoteStateChecksArguments(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props map[string]any
		want  string
	}{
		{"no backend", map[string]any{"config": map[string]any{}}, `backend: The argument "backend" is required`},
		{"empty backend", map[string]any{"backend": ""}, "backend: a backend type is required"},
		{"config a string", map[string]any{"backend": "local", "config": "x"}, `config: Invalid value for "config"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := &fakeStates{read: func(builtin.RemoteState) (builtin.RemoteOutputs, error) { return builtin.RemoteOutputs{}, nil }}
			_, _, err := builtin.New(ids()).WithStates(fs).ReadData(t.Context(), "terraform_remote_state", tc.props)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			if len(fs.got) > 0 {
				t.Errorf("read %+v", fs.got)
			}
		})
	}
}
