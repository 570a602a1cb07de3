package review

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/permission"
)

// Comment modes.
const (
	ModeSticky = "sticky"
	ModeNew    = "new"
	ModeOff    = "off"
)

// DefaultDriftLabel labels the drift issue when Settings.DriftLabel is empty.
const DefaultDriftLabel = "kyku-drift"

// DefaultApplyPermission is the permission /kyku apply needs by default.
const DefaultApplyPermission = permission.Write

// DefaultPlanPermission is the permission /kyku plan needs by default.
const DefaultPlanPermission = permission.Write

// DefaultApproverPermission is the permission a reviewer needs for an
// approval to count, by default.
const DefaultApproverPermission = permission.Write

// MaxRequiredApprovals bounds required-approvals (a typo such as 100 would
// make every apply impossible).
const MaxRequiredApprovals = 10

// withDefaults fills in the documented defaults and checks the closed sets.
func (s Settings) withDefaults() (Settings, error) {
	for _, p := range []struct {
		name string
		v    *permission.Level
		def  permission.Level
	}{
		{"apply permission", &s.ApplyPermission, DefaultApplyPermission},
		{"plan permission", &s.PlanPermission, DefaultPlanPermission},
		{"approver permission", &s.ApproverPermission, DefaultApproverPermission},
	} {
		if *p.v == "" {
			*p.v = p.def
		}
		l, ok := permission.Required(string(*p.v))
		if !ok {
			return s, fmt.Errorf("%s %q is not a permission level (want %s)", p.name, *p.v, strings.Join(permission.Names(), ", "))
		}
		*p.v = l
	}
	switch {
	case s.RequiredApprovals == 0:
		s.RequiredApprovals = 1
	case s.RequiredApprovals < 0 || s.RequiredApprovals > MaxRequiredApprovals:
		return s, fmt.Errorf("required approvals %d is not between 1 and %d", s.RequiredApprovals, MaxRequiredApprovals)
	}
	switch s.CommentMode {
	case "":
		s.CommentMode = ModeSticky
	case ModeSticky, ModeNew, ModeOff:
	default:
		return s, fmt.Errorf("comment mode %q is not known (want sticky, new or off)", s.CommentMode)
	}
	if s.DriftLabel == "" {
		s.DriftLabel = DefaultDriftLabel
	}
	for _, o := range s.PolicyOwners {
		if !ownerRE().MatchString(o) {
			return s, fmt.Errorf("policy owner %q is not a login or an org/team", o)
		}
	}
	if err := envname.Check(s.Environment); err != nil {
		return s, err
	}
	seen := map[string]bool{}
	for _, e := range s.Promotion {
		if e == "" || !envname.Valid(e) || seen[e] {
			return s, fmt.Errorf("promotion: %q is not an environment name, or is listed twice", e)
		}
		seen[e] = true
	}
	return s, nil
}

// ownerRE is a GitHub login, or an organisation and a team slug.
var ownerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9][A-Za-z0-9_.-]{0,99})?$`)
})

// ready fills in the defaults of d and s and checks them: every use case
// starts with it.
func ready(d Deps, s Settings) (Deps, Settings, error) {
	d, err := d.withDefaults()
	if err == nil {
		s, err = s.withDefaults()
	}
	return d, s, err
}

func (d Deps) withDefaults() (Deps, error) {
	if d.GitHub == nil {
		return d, errors.New("review: no GitHub client")
	}
	if d.Open == nil {
		return d, errors.New("review: no workspace opener")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Mask == nil {
		d.Mask = func(string) {}
	}
	return d, nil
}

// trusted returns the trusted config: given, or loaded from the default
// branch. Without either it fails: the backend never comes from a PR.
func (d Deps) trusted(ctx context.Context, given *config.Config) (*config.Config, error) {
	if given != nil {
		return given, nil
	}
	if d.Trusted == nil {
		return nil, errors.New("no trusted (default branch) config to open the backend with")
	}
	cfg, err := d.Trusted(ctx)
	if err != nil {
		return nil, fmt.Errorf("load the default branch's config: %w", err)
	}
	return cfg, nil
}

func (d Deps) open(ctx context.Context, cfg *config.Config, env string) (*Workspace, error) {
	ws, err := d.Open(ctx, cfg, env)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", envName(env), err)
	}
	if ws == nil || ws.Engine == nil || ws.Backend == nil {
		if ws != nil && ws.Close != nil {
			_ = ws.Close() // what it did open (a turn on the state, say) is given back
		}
		return nil, fmt.Errorf("open workspace %s: opener returned no engine or backend", envName(env))
	}
	return ws, nil
}

func envName(env string) string {
	if env == "" {
		return "default"
	}
	return env
}

// sha7 is the short form of a commit SHA.
func sha7(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
