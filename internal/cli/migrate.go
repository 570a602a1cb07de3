package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/workspace"
)

// kyku migrate check DIR…: the proof before switching a Terraform
// estate to Kyku. For each root and workspace it reads the state where
// OpenTofu keeps it (no lock taken, nothing written: readOnlyState) and
// plans the configuration against it. It prints a table (migratetable.go)
// and exits 0 only when every root plans no changes, 2 when some plan
// changes, 1 when some could not be planned.

func cmdMigrate(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("migrate", env)
	var c common
	c.register(fs, env)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || pos[0] != "check" {
		return errors.New("migrate needs a subcommand: check DIR… (plan each Terraform root against its state, reading only)")
	}
	roots := pos[1:]
	if len(roots) == 0 {
		return errors.New("migrate check needs at least one directory of .tf files")
	}
	if flagGiven(fs, "c") || flagGiven(fs, "config") {
		return errors.New("migrate check takes its roots as arguments (migrate check DIR…), not -c")
	}
	var rows []checkRow
	for _, dir := range roots {
		rows = append(rows, checkRoot(ctx, env, c, dir)...)
	}
	if err := writeCheckTable(env.Stdout, rows, env.secrets.Known().Scrub); err != nil {
		return err
	}
	return checkExit(rows)
}

// checkRoot checks every workspace of the root in dir: -e's alone when
// given, else (the local backend) the default one and each in
// terraform.tfstate.d, or (another backend) the default one.
func checkRoot(ctx context.Context, env *Env, c common, dir string) []checkRow {
	c.config, c.tf = dir, nil
	if !tfconfig.IsConfigDir(dir) {
		return []checkRow{{Root: dir, Workspace: cmp.Or(c.env, "default"), Err: fmt.Errorf("%s: no .tf, .tf.json or .tofu files", dir)}}
	}
	workspaces := []string{c.env}
	if c.env == "" {
		ws, err := c.localWorkspaces(env)
		if err != nil {
			return []checkRow{{Root: dir, Workspace: "default", Err: err}}
		}
		workspaces = ws
	}
	var rows []checkRow
	for _, ws := range workspaces {
		c.env, c.tf = ws, nil
		rows = append(rows, checkOne(ctx, env, c))
	}
	return rows
}

// localWorkspaces are the workspaces of a local backend's root that have
// a state: the default one (also when none has), then the others by name.
func (c *common) localWorkspaces(env *Env) ([]string, error) {
	if _, err := c.loadTerraform(env); err != nil {
		return nil, err
	}
	ts, err := c.terraformState()
	if err != nil {
		return nil, err
	}
	if ts.Type != "" && ts.Type != "local" {
		return []string{""}, nil
	}
	base := ts.Dir
	if c.stateDir != "" {
		base = c.stateDir
	}
	wsDir, _ := ts.Args["workspace_dir"].(string)
	if wsDir == "" {
		wsDir = "terraform.tfstate.d"
	}
	entries, err := os.ReadDir(filepath.Join(base, wsDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	var named []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(base, wsDir, e.Name(), "terraform.tfstate")); e.IsDir() && err == nil {
			named = append(named, e.Name())
		}
	}
	slices.Sort(named)
	path, _ := ts.Args["path"].(string)
	if path == "" {
		path = "terraform.tfstate"
	}
	if _, err := os.Stat(filepath.Join(base, path)); err == nil || len(named) == 0 {
		named = append([]string{""}, named...)
	}
	return named, nil
}

// checkOne plans one root's workspace against its state, read only.
func checkOne(ctx context.Context, env *Env, c common) checkRow {
	row := checkRow{Root: c.config, Workspace: cmp.Or(c.env, "default")}
	cfg, err := c.load(env)
	if err != nil {
		row.Err = err
		return row
	}
	s, err := c.settings(env, "migrate check")
	if err != nil {
		row.Err = err
		return row
	}
	b, err := workspace.OpenTerraformBackend(ctx, s.Terraform, s)
	if err != nil {
		row.Err = err
		return row
	}
	ro := readOnlyState{b}
	st, err := ro.Read(ctx)
	if err != nil {
		row.Err = err
		return row
	}
	if st != nil {
		row.Resources = len(st.Resources)
	}
	p, err := workspace.Provider(ctx, cfg, s, env.Providers)
	if err != nil {
		row.Err = err
		return row
	}
	defer workspace.Release(p)
	opts := s.Engine
	opts.Env = s.Env
	ws := &workspace.Workspace{Engine: engine.New(p, ro, opts), Provider: p, Backend: ro}
	if cfg, err = c.complete(ctx, env, ws, cfg); err != nil {
		row.Err = err
		return row
	}
	pl, err := ws.Engine.Plan(ctx, cfg)
	if err != nil {
		row.Err = err
		return row
	}
	env.secrets.Learn(nil, pl)
	row.Plan = pl
	return row
}

// checkExit is the exit for the rows: 0 when every one plans no
// changes, 1 when one failed, else 2.
func checkExit(rows []checkRow) error {
	code := exitOK
	for _, r := range rows {
		switch {
		case r.Err != nil:
			return exitCode(exitError)
		case r.Plan.HasChanges():
			code = exitChanges
		}
	}
	if code != exitOK {
		return exitCode(code)
	}
	return nil
}

// checkRow is one root's workspace: its plan, or why there is none.
type checkRow struct {
	Root, Workspace string
	Resources       int // in its state
	Plan            *plan.Plan
	Err             error
}

// errorLine is err on one line: a diagnostic list's first, with how many
// more there are.
func errorLine(err error) string {
	var ds diag.Diagnostics
	if errors.As(err, &ds) && len(ds) > 0 {
		ds.Sort()
		first := ds[0]
		first.Source = ""
		s := firstLine(first.String())
		if len(ds) > 1 {
			s += fmt.Sprintf(" (and %d more)", len(ds)-1)
		}
		return s
	}
	return firstLine(err.Error())
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
