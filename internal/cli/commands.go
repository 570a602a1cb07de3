package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/value"
	"github.com/kyku/action/internal/workspace"
)

func cmdValidate(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("validate", env)
	c := common{validating: true}
	c.register(fs, env)
	if err := fs.parseNone(args); err != nil {
		return err
	}
	cfgs, err := c.loadEach(env)
	if err != nil {
		return err
	}
	// What the configured provider cannot carry (a Database on hetzner) is
	// a config error too. A provider that cannot be built here (no
	// credentials) is checked when planning instead.
	var diags diag.Diagnostics
	base, err := configDir(c.config)
	if err != nil {
		return err
	}
	plugins, err := c.plugins(env)
	if err != nil {
		return err
	}
	// Terraform providers are not configured: no credentials needed.
	plugins.ValidateOnly = true
	// Validation reads no state: where state was kept before it followed
	// the configuration (the working directory) is not looked at.
	settings := workspace.Settings{Provider: c.provider, Getenv: env.Getenv, BaseDir: base, NoFormerCheck: true, Plugins: plugins}
	for _, cfg := range cfgs {
		p, perr := workspace.Provider(ctx, cfg, settings, env.Providers)
		var ds diag.Diagnostics
		switch {
		case errors.As(perr, &ds): // a provider's source or lock entry
			diags = append(diags, ds...)
			continue
		case perr != nil && len(cfg.Providers) > 0 && !errors.Is(perr, workspace.ErrNotLocked):
			return perr // Terraform providers could not be installed
		case perr != nil:
			continue
		}
		err := engine.Validate(ctx, p, cfg)
		workspace.Release(p)
		if err != nil {
			if !errors.As(err, &ds) {
				return err
			}
			diags = append(diags, ds...)
		}
	}
	if err := dedupe(diags).Err(); err != nil {
		return err
	}
	for _, cfg := range cfgs {
		what := "The configuration is valid"
		if cfg.Environment != "" {
			what += " for environment " + cfg.Environment
		}
		fmt.Fprintf(env.Stdout, "%s: %s, %s.\n", what, countText(cfg), noun.Count(len(cfg.Outputs), "output"))
	}
	return nil
}

// loadEach reads the configuration for -e, or, without -e, for each
// environment it declares (a Terraform configuration: for -e alone).
func (c *common) loadEach(env *Env) ([]*config.Config, error) {
	if err := c.checkEnv(); err != nil {
		return nil, err
	}
	if c.terraform() {
		cfg, err := c.loadTerraform(env)
		if err != nil {
			return nil, err
		}
		return []*config.Config{cfg}, nil
	}
	if err := c.noVarFiles(); err != nil {
		return nil, err
	}
	files, err := config.ReadFiles(c.config)
	if err != nil {
		return nil, err
	}
	if err := c.checkDeclared(files); err != nil {
		return nil, err
	}
	var cfgs []*config.Config
	if c.env != "" {
		cfg, err := config.ParseEnv(files, c.inputs(env))
		if err != nil {
			return nil, err
		}
		cfgs = []*config.Config{cfg}
	} else if cfgs, err = config.ParseEach(files, c.inputs(env)); err != nil {
		return nil, err
	}
	for _, cfg := range cfgs {
		env.secrets.Learn(cfg, nil)
	}
	return cfgs, nil
}

// dedupe drops repeated diagnostics (the same problem in two environments).
func dedupe(ds diag.Diagnostics) diag.Diagnostics {
	seen := map[string]bool{}
	var out diag.Diagnostics
	for _, d := range ds {
		if !seen[d.String()] {
			seen[d.String()] = true
			out = append(out, d)
		}
	}
	return out
}

func cmdPlan(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("plan", env)
	var c common
	c.register(fs, env)
	out := fs.String("out", "", "save the plan to `FILE` (apply it with kyku apply --plan FILE)")
	asJSON := fs.Bool("json", false, "print the plan as JSON (same as --format json)")
	format := fs.String("format", "text", "the output `FORMAT`: text, json, or mermaid (the picture of the change, as in the PR comment)")
	policyDir := fs.String("policy", "", "check the plan against the Rego policies (*.rego) in `DIR`; a denial exits 1")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when there are no changes, 2 when there are (an output's among them), 1 on error")
	destroy := fs.Bool("destroy", false, "plan to destroy everything in state")
	allowAll := fs.Bool("allow-destroy-all", false, "allow a plan that destroys every resource because the configuration has none")
	showUnchanged := fs.Bool("show-unchanged", false, showUnchangedUsage)
	var targeting targeting
	targeting.register(fs, "plan")
	var replaces listFlags
	fs.Var(&replaces, "replace", "replace the resource (or instance) `NAME` although nothing forces it, e.g. a broken VM (repeatable; Terraform's -replace)")
	refreshFlag := fs.String("refresh", "changed", refreshUsage)
	if err := fs.parseNone(args); err != nil {
		return err
	}
	refresh, err := engine.ParseRefreshMode(*refreshFlag)
	if err != nil {
		return err
	}
	targets, exclude, err := targeting.resolve()
	if err != nil {
		return err
	}
	if *destroy && (targeting.given() || len(replaces) > 0) {
		return fmt.Errorf("--destroy plans to destroy everything in state: it cannot be given with --target, --exclude or --replace")
	}
	c.targets = targets
	if *asJSON {
		*format = "json"
	}
	if *format != "text" && *format != "json" && *format != "mermaid" {
		return fmt.Errorf("unknown plan format %q (want text, json or mermaid)", *format)
	}
	var policies PolicySet
	if *policyDir != "" {
		if env.Policies == nil {
			return errPoliciesNotLinked
		}
		var err error
		if policies, err = env.Policies(*policyDir); err != nil {
			return err
		}
	}
	c.readAhead = "plan"
	cfg, err := c.load(env)
	if err != nil {
		return err
	}
	ws, err := c.open(ctx, env, cfg, "plan", nil)
	if err != nil {
		return err
	}
	defer ws.Close()
	if cfg, err = c.complete(ctx, env, ws, cfg); err != nil {
		return err
	}
	var p *plan.Plan
	if *destroy {
		p, err = ws.Engine.PlanDestroy(ctx)
	} else {
		p, err = ws.Engine.PlanWith(ctx, cfg, engine.PlanOptions{Targets: targets, Exclude: exclude, Replace: replaces, AllowDestroyAll: *allowAll, Timestamp: c.planTime, Refresh: refresh})
	}
	if err != nil {
		return destroyAllHint(err, c.config)
	}
	if *out != "" {
		data, err := plan.Encode(p)
		if err != nil {
			return err
		}
		if err := writeFile(*out, data); err != nil {
			return err
		}
	}
	switch *format {
	case "json":
		err = render.PlanJSON(env.Stdout, p, render.JSONOptions{})
	case "mermaid":
		_, err = fmt.Fprint(env.Stdout, render.PlanMermaid(p))
	default:
		err = render.PlanText(env.Stdout, p, render.TextOptions{Color: colorOn(env), ShowNoOp: *showUnchanged})
		if err == nil && !*destroy {
			fmt.Fprintf(env.Stdout, "\nThe configuration has %s, counted as kyku validate counts them.\n", countText(cfg))
		}
		if err == nil && *out != "" {
			fmt.Fprintf(env.Stdout, "\nSaved the plan to %s. Apply exactly it with: kyku apply --plan %s\n", *out, *out)
		}
	}
	if err != nil {
		return err
	}
	if policies != nil {
		// Machine-readable output stays alone on stdout.
		w := env.Stdout
		if *format != "text" {
			w = env.Stderr
		}
		env.secrets.Learn(nil, p)
		if err := policies.Check(ctx, w, p, env.secrets.Known()); err != nil {
			return err
		}
	}
	if *detailed && (p.HasChanges() || len(p.OutputChanges) > 0) {
		// An output's change is a change (OpenTofu's -detailed-exitcode):
		// applying the plan records it.
		return exitCode(exitChanges)
	}
	return nil
}

// showUnchangedUsage is the help of plan's and apply's --show-unchanged.
const refreshUsage = "what the plan reads from the cloud, `MODE`: changed (what the change touches), all (every object, as Terraform's plan), none (nothing, as Terraform's -refresh=false)"

const showUnchangedUsage = "list each unchanged resource in the plan (by default one line counts them)"

func cmdApply(ctx context.Context, env *Env, args []string) error {
	return applyOrDestroy(ctx, env, "apply", args)
}

func cmdDestroy(ctx context.Context, env *Env, args []string) error {
	return applyOrDestroy(ctx, env, "destroy", args)
}

func applyOrDestroy(ctx context.Context, env *Env, op string, args []string) error {
	fs := newFlags(op, env)
	var c common
	c.register(fs, env)
	auto := fs.Bool("auto-approve", false, "apply without asking for confirmation")
	showUnchanged := fs.Bool("show-unchanged", false, showUnchangedUsage)
	planFile := ""
	allowAll := false
	var replaces, forget listFlags
	var targeting targeting
	fs.Var(&forget, "forget-interrupted", "drop the intent of an interrupted create of `NAME` with the "+op+": no object was made there (repeatable; see docs/terraform-state.md)")
	if op == "apply" {
		fs.StringVar(&planFile, "plan", "", "apply the saved plan in `FILE`: it must verify, and planning its configuration again against the current state must give the same changes")
		targeting.register(fs, "apply")
		fs.Var(&replaces, "replace", "replace the resource (or instance) `NAME` although nothing forces it (repeatable; Terraform's -replace)")
		fs.BoolVar(&allowAll, "allow-destroy-all", false, "allow a plan that destroys every resource because the configuration has none")
	}
	refreshFlag := "changed"
	if op == "apply" {
		fs.StringVar(&refreshFlag, "refresh", "changed", refreshUsage)
	}
	suppressForget := false
	if op == "destroy" {
		fs.BoolVar(&suppressForget, "suppress-forget-errors", false, "exit 0 when the destroy forgot objects whose lifecycle says destroy = false (left in the cloud), as tofu destroy -suppress-forget-errors")
	}
	if op == "apply" {
		pos, err := fs.parse(args)
		if err != nil {
			return err
		}
		if planFile, err = positionalPlan(fs, pos, planFile); err != nil {
			return err
		}
	} else if err := fs.parseNone(args); err != nil {
		return err
	}
	refresh, err := engine.ParseRefreshMode(refreshFlag)
	if err != nil {
		return err
	}
	targets, exclude, err := targeting.resolve()
	if err != nil {
		return err
	}
	var (
		cfg   *config.Config
		saved *plan.Plan
	)
	configGiven := flagGiven(fs, "c") || flagGiven(fs, "config")
	c.readAhead = op
	if planFile != "" {
		if saved, err = readPlan(planFile); err != nil {
			return err
		}
		env.secrets.Learn(nil, saved)
		c.planTime = saved.CreatedAt // what its plantimestamp() read
		if saved.Config == nil && !saved.Destroy {
			return fmt.Errorf("%s: the plan has no embedded config (a redacted artifact?); use the saved plan from the backend or plan again", planFile)
		}
		// A destroy plan embeds no config: the backend comes from -c.
		if targeting.given() {
			return fmt.Errorf("--target and --exclude plan: they cannot be given with --plan (plan with them, then apply that plan)")
		}
		if len(replaces) > 0 {
			return fmt.Errorf("--replace plans: it cannot be given with --plan (plan with --replace, then apply that plan)")
		}
		if len(forget) > 0 {
			return fmt.Errorf("--forget-interrupted cannot be given with --plan: apply without a saved plan (a plan refuses the address until its intent is dropped)")
		}
		if !flagGiven(fs, "e") && !flagGiven(fs, "env") {
			if err := envname.Check(saved.Environment); err != nil {
				return fmt.Errorf("%s: %w", planFile, err)
			}
			c.env, c.envFrom = saved.Environment, planFile
		}
		switch {
		case configGiven || saved.Config == nil:
			if cfg, err = c.load(env); err != nil {
				return err
			}
		case saved.Config.Terraform:
			if cfg, err = c.load(env); err != nil {
				return fmt.Errorf("%s was planned from a Terraform configuration, which apply reads again (give it with -c DIR and the same variables): %w", planFile, err)
			}
		case len(saved.WriteOnly) > 0:
			// The file keeps no write-only values: the configuration it
			// was planned from gives them again.
			if cfg, err = c.load(env); err != nil {
				return fmt.Errorf("%s leaves out the values of write-only attributes (%s), which apply takes from the configuration it was planned from: %w",
					planFile, strings.Join(saved.WriteOnlyLeftOut(), ", "), err)
			}
		}
	} else if cfg, err = c.load(env); err != nil {
		return err
	}
	openCfg := cfg
	if openCfg == nil {
		openCfg = saved.Config
	}
	hooked := &hook{}
	ws, err := c.open(ctx, env, openCfg, op, hooked)
	if err != nil {
		return err
	}
	defer ws.Close()
	if cfg != nil && op == "apply" {
		c.targets = targets
		if saved != nil {
			c.targets = saved.Targets
		}
		if cfg, err = c.complete(ctx, env, ws, cfg); err != nil {
			return err
		}
	}
	// The plan is shown after the engine checked it (a stale saved plan is
	// refused before anything is printed), then confirmed, unless saved.
	opts := engine.ApplyOptions{AutoApprove: *auto, Targets: targets, Exclude: exclude, Replace: replaces, AllowDestroyAll: allowAll, ForgetInterrupted: forget, Timestamp: c.planTime, Refresh: refresh, Confirm: func(p *plan.Plan) (bool, error) {
		if saved != nil {
			fmt.Fprintf(env.Stdout, "%s verified: planned again against the current state, it makes the changes it lists.\n\n", planFile)
		}
		if err := render.PlanText(env.Stdout, p, render.TextOptions{Color: colorOn(env), ShowNoOp: *showUnchanged}); err != nil {
			return false, err
		}
		// A saved plan was approved when it was saved: applying it asks
		// nothing (as terraform apply PLANFILE does).
		if *auto || saved != nil {
			fmt.Fprintln(env.Stdout)
		} else if ok, err := confirm(env, op); err != nil || !ok {
			return ok, err
		}
		env.secrets.Learn(nil, p)
		view := progress.NewView(env.Stdout, env.StdoutIsTerminal, progress.Options{
			NoColor: !colorOn(env), Total: changes(p), Secrets: env.secrets,
		})
		hooked.start(view)
		env.notices.attach(view)
		return true, nil
	}}
	var res *engine.Result
	if op == "destroy" {
		res, err = ws.Engine.Destroy(ctx, opts)
	} else {
		res, err = ws.Engine.Apply(ctx, cfg, opts, saved)
	}
	env.notices.closeView() // the view's final frame, then later notices on stderr
	if errors.Is(err, engine.ErrNotConfirmed) {
		if op == "destroy" {
			fmt.Fprintln(env.Stdout, "Destroy cancelled.")
		} else {
			fmt.Fprintln(env.Stdout, "Apply cancelled.")
		}
		return exitCode(exitError)
	}
	if res != nil {
		env.secrets.Learn(nil, res.Plan)
		summarize(env, op, res)
	}
	if err != nil && saved != nil && engine.IsStale(err) {
		return fmt.Errorf("%s: %w", planFile, err)
	}
	if err != nil {
		return destroyAllHint(err, c.config)
	}
	if cfg != nil && cfg.Terraform && len(res.Failed) > 0 {
		return failedAt(cfg, res)
	}
	if err := res.Err(); err != nil {
		return err
	}
	if left := engine.LeftInCloud(res.Plan); op == "destroy" && len(left) > 0 && !suppressForget {
		// OpenTofu's words and exit status: the objects cost on.
		return fmt.Errorf("destroy was successful but left behind forgotten instances (%s): their lifecycle says destroy = false, so they were dropped from state and continue to exist in the cloud, where they may continue to incur charges. To suppress this error, give --suppress-forget-errors", strings.Join(left, ", "))
	}
	return nil
}

// failedAt is what a Terraform configuration's failed changes say, as
// OpenTofu says an apply's errors: each at its resource's block (with its
// source line), one already positioned (a condition) as it is.
func failedAt(cfg *config.Config, res *engine.Result) error {
	var ds diag.Diagnostics
	for _, f := range res.Failed {
		var positioned diag.Diagnostics
		if errors.As(f.Err, &positioned) {
			ds = append(ds, positioned...)
			continue
		}
		var at diag.Pos
		if r := cfg.Resource(f.Name); r != nil {
			at = r.Pos
		}
		ds.Add(at, "%s %s: %v", f.Action, f.Name, f.Err)
	}
	return ds
}

// destroyAllHint says, for a plan refused because it destroys everything
// (the configuration has none), which configuration that is and which word
// lets it through.
func destroyAllHint(err error, cfgPath string) error {
	var da *engine.DestroyAllError
	if !errors.As(err, &da) {
		return err
	}
	return fmt.Errorf("refusing to destroy %s in state: the configuration (%s) has no resources (empty or truncated?); "+
		"nothing was changed. If that is what you want, run kyku destroy, or plan and apply with --allow-destroy-all", da.Every(), cfgPath)
}

// hook forwards engine events to the progress view, once apply started.
type hook struct {
	mu   sync.Mutex
	view progress.View
}

func (h *hook) start(v progress.View) {
	h.mu.Lock()
	h.view = v
	h.mu.Unlock()
}

func (h *hook) Event(e progress.Event) {
	h.mu.Lock()
	v := h.view
	h.mu.Unlock()
	if v != nil {
		v.Event(e)
	}
}

// changes counts the changes of p that do something.
func changes(p *plan.Plan) int {
	n := 0
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			n++
		}
	}
	return n
}

func confirm(env *Env, op string) (bool, error) {
	fmt.Fprintf(env.Stdout, "\nDo you want to %s? Only 'yes' will be accepted: ", op)
	line, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(env.Stdout)
		return false, nil
	}
	fmt.Fprintln(env.Stdout)
	return strings.TrimSpace(line) == "yes", nil
}

// summarize prints what an apply or destroy did, its errors scrubbed of
// the secrets the command knows.
func summarize(env *Env, op string, r *engine.Result) {
	w := env.Stdout
	secrets := env.secrets.Known()
	if !r.Applied {
		if r.Plan != nil && !r.Plan.HasChanges() {
			fmt.Fprintln(w, "No changes. Infrastructure matches the configuration.")
		}
	} else {
		verb := "Apply"
		if op == "destroy" {
			verb = "Destroy"
		}
		state := "complete"
		if len(r.Failed) > 0 || r.Interrupted {
			state = "incomplete"
		}
		written := fmt.Sprintf("state serial %d → %d, backup %s", r.SerialBefore, r.SerialAfter, r.BackupKey)
		if r.BackupKey == "" {
			written = fmt.Sprintf("nothing changed: state serial %d, no backup", r.SerialBefore)
		}
		fmt.Fprintf(w, "%s %s: %d succeeded, %d failed, %d skipped (%s).\n",
			verb, state, len(r.Succeeded), len(r.Failed), len(r.Skipped), written)
		for _, f := range r.Failed {
			fmt.Fprintf(w, "  ✗ %s %s %s: %v\n", f.Action, f.Type, value.QuoteName(f.Name), secrets.Error(f.Err))
		}
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "  ⊘ %s %s %s skipped: %v\n", s.Action, s.Type, value.QuoteName(s.Name), secrets.Error(s.Err))
		}
		if r.Interrupted {
			fmt.Fprintln(w, "Interrupted: changes that had started finished and were saved; run apply again to continue.")
		}
	}
	for _, warning := range r.Warnings {
		fmt.Fprintln(w, secrets.Scrub("Warning: "+warning))
	}
	if len(r.Outputs) > 0 && op == "apply" {
		fmt.Fprintln(w, "\nOutputs:")
		var cfg *config.Config
		if r.Plan != nil {
			cfg = r.Plan.Config
		}
		printOutputs(env, r.Outputs, cfg.SensitiveOutputs())
	}
}

func cmdRefresh(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("refresh", env)
	var c common
	c.register(fs, env)
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when nothing drifted, 2 when something did, 1 on error")
	reportOnly := fs.Bool("report-only", false, "report drift without updating the state")
	asJSON := fs.Bool("json", false, "print drift as JSON")
	if err := fs.parseNone(args); err != nil {
		return err
	}
	c.readAhead = "refresh"
	cfg, err := c.load(env)
	if err != nil {
		return err
	}
	ws, err := c.open(ctx, env, cfg, "refresh", nil)
	if err != nil {
		return err
	}
	defer ws.Close()
	if cfg, err = c.complete(ctx, env, ws, cfg); err != nil {
		return err
	}
	res, err := ws.Engine.Refresh(ctx, engine.RefreshOptions{WriteState: !*reportOnly, Config: cfg})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(driftJSON(res)); err != nil {
			return err
		}
	} else {
		printDrift(env, res)
	}
	if *detailed && res.HasDrift() {
		return exitCode(exitChanges)
	}
	return nil
}

func printDrift(env *Env, res *engine.RefreshResult) {
	w := env.Stdout
	if !res.HasDrift() {
		fmt.Fprintf(w, "No drift: %s %s the state.\n", noun.Count(res.Checked, "resource"), verb(res.Checked, "match", "matches"))
		return
	}
	fmt.Fprintf(w, "Drift: %d of %s %s from the state.\n\n", len(res.Drift), noun.Count(res.Checked, "resource"), verb(len(res.Drift), "differ", "differs"))
	for _, d := range res.Drift {
		if d.Gone {
			fmt.Fprintf(w, "  - %s %q (id %s): gone from the cloud\n", d.Type, d.Name, d.ProviderID)
			continue
		}
		fmt.Fprintf(w, "  ~ %s %q (id %s)\n", d.Type, d.Name, d.ProviderID)
		for _, pc := range d.Properties {
			fmt.Fprintf(w, "      %s: %s → %s\n", pc.Path, shown(pc.Old, pc.Sensitive), shown(pc.New, pc.Sensitive))
		}
	}
	if res.Written {
		fmt.Fprintf(w, "\nState updated (serial %d → %d, backup %s).\n", res.SerialBefore, res.SerialAfter, res.BackupKey)
	}
}

func shown(v any, sensitive bool) string {
	if sensitive {
		return plan.Masked
	}
	return value.Text(v)
}

func driftJSON(res *engine.RefreshResult) any {
	type prop struct {
		Path    string `json:"path"`
		InState any    `json:"inState"`
		InCloud any    `json:"inCloud"`
	}
	type res1 struct {
		Type       string `json:"type"`
		Name       string `json:"name"`
		ProviderID string `json:"providerId"`
		Gone       bool   `json:"gone,omitempty"`
		Properties []prop `json:"properties,omitempty"`
	}
	out := struct {
		Drift   bool   `json:"drift"`
		Checked int    `json:"checked"`
		Items   []res1 `json:"resources"`
	}{Drift: res.HasDrift(), Checked: res.Checked, Items: []res1{}}
	for _, d := range res.Drift {
		r := res1{Type: d.Type, Name: d.Name, ProviderID: d.ProviderID, Gone: d.Gone}
		for _, pc := range d.Properties {
			old, new := pc.Old, pc.New
			if pc.Sensitive {
				old, new = plan.Masked, plan.Masked
			}
			r.Properties = append(r.Properties, prop{pc.Path, old, new})
		}
		out.Items = append(out.Items, r)
	}
	return out
}

func cmdGraph(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("graph", env)
	var c common
	c.register(fs, env)
	format := fs.String("format", "dot", "the output `FORMAT`: dot or mermaid")
	if err := fs.parseNone(args); err != nil {
		return err
	}
	if *format != "dot" && *format != "mermaid" {
		return fmt.Errorf("unknown graph format %q (want dot or mermaid)", *format)
	}
	cfg, err := c.load(env)
	if err != nil {
		return err
	}
	s, err := c.settings(env, "graph")
	if err != nil {
		return err
	}
	// The graph needs the provider (zones for auto-subnets), not the state.
	p, err := workspace.Provider(ctx, cfg, s, env.Providers)
	if err != nil {
		return err
	}
	defer workspace.Release(p)
	g, levels, err := engine.New(p, nil, s.Engine).Graph(ctx, cfg)
	if err != nil {
		return err
	}
	if *format == "mermaid" {
		fmt.Fprint(env.Stdout, g.Mermaid(levels))
	} else {
		fmt.Fprint(env.Stdout, g.DOT(levels))
	}
	return nil
}

func readPlan(path string) (*plan.Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	return plan.Decode(path, data)
}

func writeFile(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
