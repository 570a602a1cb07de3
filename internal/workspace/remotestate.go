package workspace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/kyku/action/internal/lang/funcs"
	"github.com/kyku/action/internal/provider/builtin"
)

// RemoteStates reads the states terraform_remote_state names, through
// the backends a Terraform root's own state is kept in
// (OpenTerraformBackend), read only: no lock, no write. The arguments
// come from a configuration a pull request can change, so a local
// backend's path and workspace_dir are confined to the repository of the
// root (as the file functions are), and credentials are only the
// environment's (OpenTerraformBackend refuses them in arguments).
type RemoteStates struct {
	dir string
	s   Settings
}

var _ builtin.StateReader = (*RemoteStates)(nil)

// NewRemoteStates reads states for the root module in dir, with s's
// environment (Getenv), clock and timeouts.
func NewRemoteStates(dir string, s Settings) *RemoteStates {
	s.StateDir = "" // --state-dir is where this root's state is, not another's
	// A role handed for the root's own state is not one for the states
	// it reads: those are read with the environment's credentials only.
	if s.AWS != nil {
		s.AWS = s.AWS.Default()
	}
	return &RemoteStates{dir: dir, s: s}
}

// ReadOutputs reads the root outputs of the state q names.
func (r *RemoteStates) ReadOutputs(ctx context.Context, q builtin.RemoteState) (builtin.RemoteOutputs, error) {
	dir, err := filepath.Abs(r.dir)
	if err != nil {
		return builtin.RemoteOutputs{}, fmt.Errorf("the root module's directory: %w", err)
	}
	if q.Backend == "local" {
		if err := confineLocal(dir, q.Config); err != nil {
			return builtin.RemoteOutputs{}, err
		}
	}
	if q.Backend == "gcs" {
		if err := confineGCSEndpoint(q.Config); err != nil {
			return builtin.RemoteOutputs{}, err
		}
	}
	s := r.s
	s.Env = q.Workspace
	if s.Env == "default" {
		s.Env = ""
	}
	b, err := OpenTerraformBackend(ctx, &TerraformState{Type: q.Backend, Args: q.Config, Dir: dir}, s)
	if err != nil {
		return builtin.RemoteOutputs{}, err
	}
	f, err := b.Read(ctx)
	if err != nil {
		return builtin.RemoteOutputs{}, err
	}
	if f == nil {
		return builtin.RemoteOutputs{}, builtin.ErrNoState
	}
	return builtin.RemoteOutputs{Values: f.Outputs, Sensitive: f.OutputSensitivity}, nil
}

// confineGCSEndpoint refuses a gcs storage_custom_endpoint given without
// an access_token beside it: the environment's Google credentials (a
// bearer token, sent as it is) would go to an address a pull request
// chose.
func confineGCSEndpoint(args map[string]any) error {
	_, endpoint := args["storage_custom_endpoint"]
	_, token := args["access_token"]
	if endpoint && !token {
		return errors.New("storage_custom_endpoint: a terraform_remote_state config names an endpoint only with its own access_token (this machine's Google credentials, a bearer token, would go to that address)")
	}
	return nil
}

// confineLocal refuses a local backend's path or workspace_dir that
// leads out of the repository of dir.
func confineLocal(dir string, args map[string]any) error {
	within := funcs.Repository(dir)
	for _, name := range []string{"path", "workspace_dir"} {
		p, ok := args[name].(string)
		if !ok || p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := funcs.Confine(within, filepath.Clean(p)); err != nil {
			if errors.Is(err, funcs.ErrOutside) {
				return fmt.Errorf(`backend "local": %s %q is outside the configuration's repository: a configuration may read only its own states`, name, args[name])
			}
			return fmt.Errorf(`backend "local": %s: %w`, name, err)
		}
	}
	return nil
}
