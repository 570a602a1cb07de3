package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// cmdOutput is kyku output [NAME]: every output, sensitive ones masked
// ("(sensitive)" in text, null in JSON), or one by NAME in clear, as
// terraform output prints them. --json is terraform output -json's shape,
// { name: { value, type, sensitive } }, so that scripts written for it
// read kyku's; --flat is the plain { name: value } map.
//
// Terraform prints sensitive values in clear with -json; kyku does not:
// the JSON of every output is what lands in CI logs and job artifacts, and
// secrets never appear there. A script that needs a secret asks for it by
// name (kyku output --json NAME), which prints it in clear, as terraform
// output NAME does.
func cmdOutput(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("output", env)
	var c common
	c.register(fs, env)
	asJSON := fs.Bool("json", false, "print as JSON: { name: { value, type, sensitive } }, as terraform output -json (sensitive values null); with NAME, the value alone")
	flat := fs.Bool("flat", false, "print every output as one flat JSON object { name: value } (sensitive values null)")
	raw := fs.Bool("raw", false, "with NAME: print its value alone, a string without quotes and no newline, as terraform output -raw (a string, number or bool only)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("output takes at most one name, got %d: %q", len(pos), pos)
	}
	if *flat && len(pos) == 1 {
		return fmt.Errorf("--flat prints every output; for one, run kyku output --json %s", pos[0])
	}
	if *raw && (*asJSON || *flat) {
		return fmt.Errorf("--raw and --%s: choose one", map[bool]string{true: "json", false: "flat"}[*asJSON])
	}
	if *raw && len(pos) == 0 {
		return fmt.Errorf("--raw prints one output: name it (kyku output --raw NAME)")
	}
	c.noPlan = true // what the last apply recorded of what only a plan knows
	cfg, err := c.load(env)
	if err != nil {
		return err
	}
	ws, err := c.open(ctx, env, cfg, "output", nil)
	if err != nil {
		return err
	}
	defer ws.Close()
	if cfg, err = c.complete(ctx, env, ws, cfg); err != nil {
		return err
	}
	sensitive := cfg.SensitiveOutputs()
	var outs, types map[string]any
	if cfg.Terraform {
		// As OpenTofu's output command: what the last apply recorded.
		var recorded map[string]bool
		if outs, types, recorded, err = ws.Engine.RecordedOutputs(ctx); err != nil {
			return err
		}
		for n, s := range recorded {
			sensitive[n] = sensitive[n] || s
		}
	} else if outs, types, err = ws.Engine.Outputs(ctx, cfg); err != nil {
		return err
	}
	if len(pos) == 1 {
		v, ok := outs[pos[0]]
		if !ok {
			return fmt.Errorf("output %q not found (or not known yet: run kyku apply)", pos[0])
		}
		switch {
		case *asJSON:
			return json.NewEncoder(env.Stdout).Encode(v)
		case *raw:
			return rawOutput(env, pos[0], v, types[pos[0]])
		case cfg.Terraform:
			fmt.Fprintln(env.Stdout, hclText(v, types[pos[0]]))
		default:
			fmt.Fprintln(env.Stdout, value.Text(v))
		}
		return nil
	}
	if *asJSON || *flat {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(outputsJSON(outs, types, sensitive, *flat))
	}
	if cfg.Terraform {
		// As tofu output: name = value in HCL's syntax, by name.
		for _, n := range slices.Sorted(maps.Keys(outs)) {
			text := "<sensitive>"
			if !sensitive[n] {
				text = hclText(outs[n], types[n])
			}
			fmt.Fprintf(env.Stdout, "%s = %s\n", n, text)
		}
		return nil
	}
	printOutputs(env, outs, sensitive)
	return nil
}

// rawOutput prints output name's value v (of type typ, nil: v's own) as
// tofu output -raw does: a string as it is, a number or bool as its
// text, with no newline; anything else is an error saying why.
func rawOutput(env *Env, name string, v, typ any) error {
	switch x := value.Normalize(v).(type) {
	case nil:
		return fmt.Errorf("output %q is null, so --raw cannot print it", name)
	case string:
		_, err := io.WriteString(env.Stdout, x)
		return err
	case bool, float64, json.Number:
		_, err := io.WriteString(env.Stdout, hclText(x, nil))
		return err
	}
	if typ == nil {
		typ = value.TypeJSON(v)
	}
	return fmt.Errorf("output %q is of type %s: --raw prints only strings, numbers and bools; use --json for a value of a complex type", name, friendlyType(typ))
}

// outputJSON is one output as terraform output -json prints it.
type outputJSON struct {
	Sensitive bool `json:"sensitive"`
	Type      any  `json:"type"`
	Value     any  `json:"value"`
}

// outputsJSON is every output, Terraform's shape or flat; a sensitive
// output's value is null (its type is not secret and stays). An output's
// type is the one types holds for it (its schema's, recorded by the
// apply), else its value's.
func outputsJSON(outs, types map[string]any, sensitive map[string]bool, flat bool) any {
	if flat {
		m := make(map[string]any, len(outs))
		for n, v := range outs {
			if sensitive[n] {
				v = nil
			}
			m[n] = v
		}
		return m
	}
	m := make(map[string]outputJSON, len(outs))
	for n, v := range outs {
		t, ok := types[n]
		if !ok {
			t = value.TypeJSON(v)
		}
		o := outputJSON{Sensitive: sensitive[n], Type: t, Value: v}
		if o.Sensitive {
			o.Value = nil
		}
		m[n] = o
	}
	return m
}

// printOutputs lists outputs, the sensitive ones (holding a sensitive
// variable's value) masked: kyku output NAME prints one in clear.
func printOutputs(env *Env, outs map[string]any, sensitive map[string]bool) {
	names := make([]string, 0, len(outs))
	for n := range outs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := value.Text(outs[n])
		if sensitive[n] {
			v = plan.Masked
		}
		fmt.Fprintf(env.Stdout, "  %s = %s\n", n, v)
	}
}
