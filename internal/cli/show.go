package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/render"
)

// cmdShow is kyku show [PLANFILE], as tofu show: a saved plan as kyku
// plan printed it (--json: as plan --json); without one, every object in
// state as kyku state show prints it.
func cmdShow(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("show", env)
	var c common
	c.register(fs, env)
	asJSON := fs.Bool("json", false, "print the saved plan as JSON, as kyku plan --json does")
	showUnchanged := fs.Bool("show-unchanged", false, showUnchangedUsage)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return fmt.Errorf("show takes at most a saved plan's file, got %q", pos)
	case len(pos) == 1:
		p, err := readPlan(pos[0])
		if err != nil {
			return err
		}
		env.secrets.Learn(nil, p)
		if *asJSON {
			return render.PlanJSON(env.Stdout, p, render.JSONOptions{})
		}
		return render.PlanText(env.Stdout, p, render.TextOptions{Color: colorOn(env), ShowNoOp: *showUnchanged})
	case *asJSON:
		return fmt.Errorf("show --json prints a saved plan (kyku show --json PLANFILE); the state as JSON is kyku state pull")
	}
	b, err := c.openBackend(ctx, env, "show")
	if err != nil {
		return err
	}
	e, err := c.stateEngine(env, b, "show")
	if err != nil {
		return err
	}
	return showState(ctx, env.Stdout, e)
}

// showState writes every object of e's state as stateShow writes one.
func showState(ctx context.Context, w io.Writer, e *engine.Engine) error {
	st, err := e.ReadState(ctx)
	if err != nil {
		return err
	}
	if st == nil || len(st.Resources) == 0 {
		_, err := fmt.Fprintln(w, "The state is empty: no resources.")
		return err
	}
	for i, name := range st.Names() {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := stateShow(ctx, w, e, name); err != nil {
			return err
		}
	}
	return nil
}
