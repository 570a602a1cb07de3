package tfroots

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/tfconfig"
)

// A pull request writes its roots' files, but where a root's state is
// — the backend block, the -backend-config files it names, the states
// its terraform_remote_state data sources read — is the default
// branch's to say: otherwise a pull request could point its plan and
// its apply at a state of its choosing (another team's bucket, a file of
// the runner's), or send the backend's credentials to its own server.
// The front doors open a root's state from the default branch and
// refuse a pull request that changes either.

// BackendChange says, in one line, how head's backend differs from
// base's ("" when it does not). root names the root.
func BackendChange(root string, base, head *tfconfig.BackendArgs) string {
	if base == nil || head == nil {
		return ""
	}
	if base.Type == head.Type && reflect.DeepEqual(base.Args, head.Args) {
		return ""
	}
	var what []string
	if base.Type != head.Type {
		what = append(what, fmt.Sprintf("backend %s instead of %s", typeName(head.Type), typeName(base.Type)))
	} else {
		names := map[string]bool{}
		for k := range base.Args {
			names[k] = true
		}
		for k := range head.Args {
			names[k] = true
		}
		var changed []string
		for _, k := range slices.Sorted(maps.Keys(names)) {
			if !reflect.DeepEqual(base.Args[k], head.Args[k]) {
				changed = append(changed, k)
			}
		}
		what = append(what, "its "+strings.Join(changed, ", "))
	}
	return fmt.Sprintf("%s: the pull request changes where the root's state is (%s); the state's place is the default branch's to say: "+
		"move the state first (tofu init -migrate-state), then merge the change without an apply", root, strings.Join(what, "; "))
}

func typeName(t string) string {
	if t == "" {
		return `"local" (no backend block)`
	}
	return fmt.Sprintf("%q", t)
}

// RemoteStateChanges lists, one line each, the terraform_remote_state
// data sources of head (an expanded root) whose backend, config or
// workspace differ from base's of the same address, or that base lacks:
// a pull request does not choose which states its plan reads.
func RemoteStateChanges(root string, base, head *config.Config) []string {
	if head == nil {
		return nil
	}
	was := map[string]*config.Resource{}
	if base != nil {
		for _, r := range base.Resources {
			if isRemoteState(r) {
				was[r.Name] = r
			}
		}
	}
	var out []string
	for _, r := range head.Resources {
		if !isRemoteState(r) {
			continue
		}
		b, ok := was[r.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: the pull request adds %s, which reads another state: a state a root reads is the default branch's to name (add it in a pull request of its own, planned once merged)", root, r.Name))
		case remoteArgs(b) != remoteArgs(r):
			out = append(out, fmt.Sprintf("%s: the pull request changes which state %s reads (its backend, config or workspace); a state a root reads is the default branch's to name", root, r.Name))
		}
	}
	return out
}

func isRemoteState(r *config.Resource) bool {
	return r.Data && r.Type == "terraform_remote_state"
}

// remoteArgs is the canonical text of what says which state r reads.
func remoteArgs(r *config.Resource) string {
	pick := map[string]any{}
	for _, k := range []string{"backend", "config", "workspace"} {
		pick[k] = r.Properties[k]
	}
	b, err := json.Marshal(pick)
	if err != nil {
		return fmt.Sprintf("%#v", pick) // still compares: never equal to a marshalled one
	}
	return string(b)
}

// Guard refuses, in one line, a pull request whose root head places its
// state elsewhere than trusted (the default branch's) does, or reads
// other states through terraform_remote_state: the Action's and the
// bot's check before a root's state is opened. nil when it does not.
func Guard(trusted, head *Loaded) error {
	if line := BackendChange(head.Root, trusted.Backend, head.Backend); line != "" {
		return errors.New(line)
	}
	if lines := RemoteStateChanges(head.Root, trusted.Config, head.Config); len(lines) > 0 {
		return errors.New(lines[0])
	}
	return nil
}

// GuardedComplete makes cfg, a pull request's root partial
// (config.Config.Pending), whole with what known holds, as
// config.Config.Complete does, under Guard's rule on the states it
// reads: a terraform_remote_state data source its count or for_each
// left out when Guard judged it is refused, at whichever round of the
// expansion shows it, before any data source of that round is read.
func GuardedComplete(ctx context.Context, trusted *Loaded, root string, cfg *config.Config, known func(context.Context) (config.Known, error)) (*config.Config, error) {
	if cfg.Pending == nil {
		return cfg, nil
	}
	check := func(c *config.Config) error {
		if lines := RemoteStateChanges(root, trusted.Config, c); len(lines) > 0 {
			return errors.New(lines[0])
		}
		return nil
	}
	whole, err := cfg.Complete(ctx, func(ctx context.Context) (config.Known, error) {
		k, err := known(ctx)
		if err != nil {
			return nil, err
		}
		return guardedKnown{Known: k, check: check}, nil
	})
	if err != nil {
		return nil, err
	}
	if err := check(whole); err != nil {
		return nil, err
	}
	return whole, nil
}

// guardedKnown reads the data sources of a configuration check allows.
type guardedKnown struct {
	config.Known
	check func(*config.Config) error
}

func (g guardedKnown) ReadData(ctx context.Context, cfg *config.Config) (int, error) {
	if err := g.check(cfg); err != nil {
		return 0, err
	}
	return g.Known.ReadData(ctx, cfg)
}
