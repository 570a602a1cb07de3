package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kyku/action/internal/diag"
)

// Dir is where a repository keeps its policies, read from the default
// branch only.
const Dir = ".kyku/policies"

// Package is the Rego package whose deny and warn rules are read.
const Package = "kyku"

// DefaultTimeout bounds one evaluation when the caller gives none.
const DefaultTimeout = 10 * time.Second

// MaxModuleBytes bounds one policy file; a bigger one is refused (a
// diagnostic at the file), not parsed.
const MaxModuleBytes = 1 << 20

// MaxMessages bounds how many messages of each kind are kept; the count of
// the others is in Result.MoreDeny / MoreWarn.
const MaxMessages = 100

// MaxMessageBytes bounds one message (cut, with "…").
const MaxMessageBytes = 1000

// Module is one policy file: its path (as the user sees it, e.g.
// ".kyku/policies/ssh.rego") and its Rego source.
type Module struct {
	Name string
	Data []byte
}

// Set is the policies that judge a plan. The zero Set (or nil) has none.
type Set struct {
	Modules []Module // sorted by Name
	// Ref says where the policies were read from (a branch or a commit),
	// for people.
	Ref string
}

// Empty reports whether there is no policy to evaluate.
func (s *Set) Empty() bool { return s == nil || len(s.Modules) == 0 }

// Files are the policy files' names, sorted.
func (s *Set) Files() []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s.Modules))
	for i, m := range s.Modules {
		out[i] = m.Name
	}
	return out
}

// FromTree picks the policies out of a source tree (repository path →
// contents): the *.rego files under Dir, at any depth, except the
// *_test.rego files that `opa test` reads.
func FromTree(tree map[string][]byte, ref string) *Set {
	s := &Set{Ref: ref}
	for name, data := range tree {
		if isPolicyFile(name) && strings.HasPrefix(name, Dir+"/") {
			s.Modules = append(s.Modules, Module{Name: name, Data: data})
		}
	}
	slices.SortFunc(s.Modules, func(a, b Module) int { return strings.Compare(a.Name, b.Name) })
	return s
}

// LoadDir reads the *.rego files under dir (at any depth, except
// *_test.rego), named by their path joined to dir as given. A missing
// directory is an error: a policy check asked for must not pass silently.
func LoadDir(dir string) (*Set, error) {
	s := &Set{Ref: dir}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !isPolicyFile(p) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s.Modules = append(s.Modules, Module{Name: filepath.ToSlash(p), Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load policies from %s: %w", dir, err)
	}
	if len(s.Modules) == 0 {
		return nil, fmt.Errorf("load policies from %s: no *.rego files", dir)
	}
	slices.SortFunc(s.Modules, func(a, b Module) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

func isPolicyFile(name string) bool {
	base := path.Base(filepath.ToSlash(name))
	return strings.HasSuffix(base, ".rego") && !strings.HasSuffix(base, "_test.rego")
}

// Result is what the policies said about one plan.
type Result struct {
	Deny []string // sorted, each cut at MaxMessageBytes
	Warn []string
	// MoreDeny and MoreWarn count the messages beyond MaxMessages that are
	// not listed.
	MoreDeny, MoreWarn int
	Files              []string // the policy files evaluated
}

// Denied reports whether any deny rule fired.
func (r *Result) Denied() bool { return r != nil && len(r.Deny)+r.MoreDeny > 0 }

// ErrTimeout is wrapped by the error of an evaluation that took longer
// than its bound.
var ErrTimeout = errors.New("policy evaluation timed out")

// Error is a policy problem: the positions (file:line:col) and what is
// wrong. Evaluate returns one for a policy that does not parse or compile,
// fails at run time or takes too long; errors.As finds the
// diag.Diagnostics.
type Error struct {
	Diags   diag.Diagnostics
	timeout bool
}

func (e *Error) Error() string { return e.Diags.Error() }

// Unwrap gives the diagnostics, and ErrTimeout for a timeout.
func (e *Error) Unwrap() []error {
	if e.timeout {
		return []error{e.Diags, ErrTimeout}
	}
	return []error{e.Diags}
}
