package settings

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/kyku/action/internal/permission"
	"github.com/kyku/action/internal/review"
)

// Path is where the settings live in a repository (read from the default
// branch only: a pull request must not loosen its own apply rules).
const Path = ".kyku/config.yaml"

// DefaultConfig is the single project's config path without a settings file.
const DefaultConfig = "kyku.yaml"

// Execution says where jobs run.
type Execution int

const (
	InProcess Execution = iota // the bot plans and applies itself
	Actions                    // the bot dispatches the user's Kyku workflow
)

func (e Execution) String() string {
	if e == Actions {
		return "actions"
	}
	return "in-process"
}

// Settings are a repository's bot settings.
type Settings struct {
	Execution       Execution
	Workflow        string // workflow file dispatched when Execution is Actions
	RequireApproval bool
	// RequiredApprovals is how many approvals must count (default 1).
	RequiredApprovals int
	ApplyPermission   permission.Level
	// PlanPermission is what `/kyku plan` needs (default write).
	PlanPermission permission.Level
	// ApproverPermission is what a reviewer needs for an approval to count
	// (default write).
	ApproverPermission permission.Level
	Apply              review.ApplyMode // comment (default), merge or both
	Comment            string           // sticky | new | off
	AllowForkPRs       bool             // plan and apply pull requests from forks (default false)
	// TerraformRoots plans the Terraform roots a pull request touches,
	// found as Atlantis finds them (package tfroots), one project each.
	TerraformRoots bool
	// NewRoots lets a pull request add a Terraform root (terraform-new-roots:
	// allow; refuse by default): its own backend is planned, and only its
	// merge applies it (review.NewRootRef).
	NewRoots bool
	Drift    Drift
	Projects []Project
	// ConcurrentApplies (the default; concurrent-applies: false turns it
	// off) runs the jobs of different pull requests on one project and
	// environment at once: on a state with leases
	// (docs/concurrent-applies.md) their applies wait only for the objects
	// they touch; a job on a state without leases is queued again behind
	// the environment's jobs, holding no worker, and runs one at a time.
	// Off: every job of a project and environment runs one at a time.
	ConcurrentApplies bool
	// PolicyOwners may override a policy denial by approving the head
	// (logins, and teams as "org/team-slug").
	PolicyOwners []string
	// Promotion orders environments: an apply to one waits until every
	// earlier one applied the same head commit; a merge applies a
	// project's environments in this order, stopping at the first that
	// is not applied.
	Promotion []string
	// FromFile is set when the settings came from Path (not the defaults).
	FromFile bool
}

// Drift says what the bot's scheduled drift check does in this repository.
type Drift struct {
	// Enabled: check every project and environment for drift and keep a
	// drift issue (default true).
	Enabled bool
	// WriteState: save the refreshed state (default false: report only).
	WriteState bool
}

// Project is one Kyku configuration in the repository.
type Project struct {
	Name         string   // "" for the single default project
	Config       string   // a file, or a directory of *.yaml/*.yml files
	Environments []string // at least one; "" is the default environment
	Autoplan     []string // globs over changed files ("**" spans directories)
}

// Target is one project in one environment: the unit of a job.
type Target struct {
	Project Project
	Env     string
}

// Label is "<project>/<env>", dropping empty parts ("default" when both are).
func (t Target) Label() string {
	var parts []string
	if t.Project.Name != "" {
		parts = append(parts, t.Project.Name)
	}
	if t.Env != "" {
		parts = append(parts, t.Env)
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, "/")
}

// MaxRequiredApprovals bounds required-approvals.
const MaxRequiredApprovals = 10

// Defaults without a settings file: one project, kyku.yaml at the root, the
// default environment, one approval required (by a reviewer with write
// permission), write permission to plan and to apply, apply on comment,
// sticky comments, in-process execution, forks not planned, drift checked
// and reported (state not written).
func Defaults() *Settings {
	return &Settings{
		RequireApproval:    true,
		RequiredApprovals:  1,
		PlanPermission:     permission.Write,
		ApproverPermission: permission.Write,
		ApplyPermission:    permission.Write,
		Apply:              review.ApplyOnComment,
		Comment:            "sticky",
		Workflow:           "kyku.yml",
		Drift:              Drift{Enabled: true},
		Projects:           []Project{defaultProject("", DefaultConfig)},
		ConcurrentApplies:  true,
	}
}

func defaultProject(name, config string) Project {
	return Project{Name: name, Config: config, Environments: []string{""}, Autoplan: defaultAutoplan(config)}
}

// defaultAutoplan triggers on the config file itself, or on everything
// under a config directory.
func defaultAutoplan(config string) []string {
	if isFile(config) {
		return []string{config}
	}
	if config == "." || config == "" {
		return []string{"**/*.yaml", "**/*.yml"}
	}
	return []string{strings.TrimSuffix(config, "/") + "/**"}
}

func isFile(p string) bool {
	ext := path.Ext(p)
	return ext == ".yaml" || ext == ".yml"
}

// Targets lists every project in every environment, in file order.
func (s *Settings) Targets() []Target {
	var out []Target
	for _, p := range s.Projects {
		for _, e := range p.Environments {
			out = append(out, Target{Project: p, Env: e})
		}
	}
	return out
}

// Touched lists the targets whose project's autoplan globs match one of
// the changed files.
func (s *Settings) Touched(files []string) []Target {
	var out []Target
	for _, t := range s.Targets() {
		if t.Project.Matches(files) {
			out = append(out, t)
		}
	}
	return out
}

// Matches reports whether one of files matches one of p's autoplan globs.
func (p Project) Matches(files []string) bool {
	for _, f := range files {
		for _, g := range p.Autoplan {
			if Match(g, f) {
				return true
			}
		}
	}
	return false
}

// ErrNoConfig is wrapped by ConfigFiles when the tree holds no
// configuration for the project.
var ErrNoConfig = errors.New("no configuration")

// ConfigFiles picks the project's config files out of a source tree (paths
// relative to the repository root): the file itself, or the *.yaml and
// *.yml files directly in the directory, in name order.
func (p Project) ConfigFiles(tree map[string][]byte) ([]string, error) {
	if isFile(p.Config) {
		if _, ok := tree[p.Config]; !ok {
			return nil, fmt.Errorf("config file %s not found: %w", p.Config, ErrNoConfig)
		}
		return []string{p.Config}, nil
	}
	dir := strings.Trim(p.Config, "/")
	var out []string
	for name := range tree {
		d := path.Dir(name)
		if (d == dir || (dir == "" && d == ".")) && isFile(name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no *.yaml or *.yml files in %s: %w", p.Config, ErrNoConfig)
	}
	slices.Sort(out)
	return out, nil
}

// Match reports whether name matches the slash-separated glob pattern
// (doublestar's syntax: "*", "?", "[…]" within a segment, "**" across any
// number of segments, including none, "{a,b}" alternatives). A bad pattern
// matches nothing; Parse refuses one.
func Match(pattern, name string) bool {
	ok, err := doublestar.Match(pattern, name)
	return err == nil && ok
}

var (
	nameRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$`)
	})
	wfRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9_.-]+\.ya?ml$`)
	})
	// ownerRE is a login, or an organisation and a team slug.
	ownerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9][A-Za-z0-9_.-]{0,99})?$`)
	})
)
