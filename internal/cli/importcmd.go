package cli

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/value"
)

// cmdImport is kyku import NAME PROVIDER_ID: read the object from the
// cloud and record it in state as NAME (a resource or instance of the
// configuration for -e).
func cmdImport(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("import", env)
	var c common
	c.register(fs, env)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("import needs NAME and PROVIDER_ID (e.g. kyku import 'web[0]' 12345), got %d argument(s)", len(pos))
	}
	cfg, err := c.load(env)
	if err != nil {
		return err
	}
	ws, err := c.open(ctx, env, cfg, "import", nil)
	if err != nil {
		return err
	}
	defer ws.Close()
	if cfg, err = c.complete(ctx, env, ws, cfg); err != nil {
		return err
	}
	res, err := ws.Engine.Import(ctx, cfg, pos[0], pos[1])
	if err != nil {
		return err
	}
	// A Terraform provider's resources have no cloud name of Kyku's.
	named := ""
	if res.CloudName != "" {
		named = ", cloud name " + res.CloudName
	}
	fmt.Fprintf(env.Stdout, "Imported %s %s (id %s%s) into state (serial %d → %d, backup %s).\n",
		res.Type, res.Names[0], res.ProviderID, named, res.SerialBefore, res.SerialAfter, res.BackupKey)
	fmt.Fprintln(env.Stdout, "Run kyku plan to see whether it matches the configuration.")
	return nil
}

// stateRepair runs kyku state list, show, mv and rm through an engine on the
// configured backend (no provider: nothing in the cloud is touched).
func stateRepair(ctx context.Context, env *Env, e *engine.Engine, pos []string, id string, terraform bool) error {
	switch {
	case pos[0] == "list":
		return stateList(ctx, env, e, pos[1:], id, terraform)
	case pos[0] == "show" && len(pos) == 2:
		return stateShow(ctx, env.Stdout, e, pos[1])
	case pos[0] == "mv" && len(pos) == 3:
		res, err := e.StateMove(ctx, pos[1], pos[2])
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Moved %s to %s in state (serial %d → %d, backup %s); the cloud is unchanged.\n",
			pos[1], strings.Join(res.Names, ", "), res.SerialBefore, res.SerialAfter, res.BackupKey)
		return nil
	case pos[0] == "rm" && len(pos) >= 2:
		res, err := e.StateRemove(ctx, pos[1:]...)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Removed %s from state (serial %d → %d, backup %s); the cloud objects stay.\n",
			strings.Join(res.Names, ", "), res.SerialBefore, res.SerialAfter, res.BackupKey)
		return nil
	}
	return fmt.Errorf("state %s: wrong arguments %q (want list [ADDRESS…], show NAME, mv FROM TO, rm NAME…)", pos[0], pos[1:])
}

// stateList lists the objects in state, or those filters select (as tofu
// state list's addresses: an instance, a resource's instances, a module's
// everything), with id those whose provider ID is id. A Terraform
// configuration's are listed as tofu state lists them, an address a line
// (the root module's first, then each module's), for the scripts that
// read them; Kyku's with their types and IDs.
func stateList(ctx context.Context, env *Env, e *engine.Engine, filters []string, id string, terraform bool) error {
	st, err := e.ReadState(ctx)
	if err != nil {
		return err
	}
	if st == nil || len(st.Resources) == 0 {
		if len(filters) > 0 {
			return fmt.Errorf("state list: the state holds no %s: it is empty", strings.Join(filters, ", "))
		}
		fmt.Fprintln(env.Stdout, "No resources in state.")
		return nil
	}
	names := st.Names()
	if len(filters) > 0 {
		want := map[string]bool{}
		for _, f := range filters {
			match, err := engine.StateMatches(st, f)
			if err != nil {
				return fmt.Errorf("state list: %w", err)
			}
			for _, n := range match {
				want[n] = true
			}
		}
		names = slices.DeleteFunc(names, func(n string) bool { return !want[n] })
	}
	if id != "" {
		names = slices.DeleteFunc(names, func(n string) bool { return st.Resources[n].ProviderID != id })
	}
	if terraform {
		slices.SortStableFunc(names, tofuOrder)
		for _, n := range names {
			fmt.Fprintln(env.Stdout, n)
		}
		return nil
	}
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		r := st.Resources[n]
		fmt.Fprintf(env.Stdout, "%-*s  %-13s  %s\n", width, n, r.Type, r.ProviderID)
	}
	return nil
}

// tofuOrder orders Terraform addresses as tofu state list does: by
// module instance, the shallower first, then step by step, then by
// address within the module.
func tofuOrder(a, b string) int {
	am, ar := value.SplitModule(a)
	bm, br := value.SplitModule(b)
	as, bs := moduleSteps(am), moduleSteps(bm)
	return cmp.Or(cmp.Compare(len(as), len(bs)), slices.CompareFunc(as, bs, value.CompareNames), value.CompareNames(ar, br))
}

// moduleSteps are a module instance path's steps (net["a"], sub); none
// for the root module.
func moduleSteps(path string) []string {
	if path == "" {
		return nil
	}
	var steps []string
	for i, seg := range value.Segments(path) {
		if i%2 == 1 { // module, NAME, module, NAME: the names
			steps = append(steps, seg)
		}
	}
	return steps
}
