package tfcorpus_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfcorpus"
)

func init() { planKyku = planWithCLI }

// planWithCLI plans a run as a user would: `kyku init`, then `kyku plan
// --json` with -c the run's directory, -e default, the entry's arguments
// and environment, and the state OpenTofu left after step 1 (read by
// Kyku's mapping of a Terraform state) as the state it starts from.
func planWithCLI(ctx context.Context, r tfcorpus.Run) ([]byte, []tfcorpus.Diagnostic, error) {
	if r.PriorState != nil {
		if err := writePriorState(r.PriorState, r.Workdir); err != nil {
			return nil, nil, err
		}
	}
	env := map[string]string{"KYKU_PLUGIN_MIRROR": r.Mirror, "NO_COLOR": "1", "USER": "tfcorpus"}
	for _, kv := range r.Env {
		name, val, _ := strings.Cut(kv, "=")
		env[name] = val
	}
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		args = append(args, "-c", r.Workdir)
		code := cli.Run(ctx, args, cli.Env{
			Stdout: &out, Stderr: &errOut,
			Getenv:    func(k string) string { return env[k] },
			Providers: provider.Registry{"sim": sim.Factory},
			Hostname:  "tfcorpus", PID: 4242,
		})
		return code, out.String(), errOut.String()
	}
	var args, vars []string // vars: what init takes too
	for _, a := range r.Args {
		a = absVarFile(a, r.Workdir)
		args = append(args, a)
		if strings.HasPrefix(a, "-var") {
			vars = append(vars, a)
		}
	}
	if code, _, errOut := run(append([]string{"init"}, vars...)...); code != 0 {
		return nil, refusal(errOut, r), nil
	}
	code, out, errOut := run(append([]string{"plan", "--json", "-e", "default"}, args...)...)
	if code != 0 {
		return nil, refusal(errOut, r), nil
	}
	return []byte(out), nil, nil
}

// refusal is what kyku's errors say: its diagnostics about files of the
// run's directory, or, when it names none, its first line as the summary
// of one without a position (a provider it could not install), the
// run's directories in it named as the corpus names them.
func refusal(stderr string, r tfcorpus.Run) []tfcorpus.Diagnostic {
	stderr = strings.ReplaceAll(stderr, r.Mirror, "MIRROR")
	stderr = strings.ReplaceAll(stderr, r.Workdir+string(filepath.Separator), "")
	stderr = strings.ReplaceAll(stderr, r.Workdir, tfcorpus.WorkdirPlaceholder)
	if ds := diagnostics(stderr, r.Workdir); len(ds) > 0 {
		return ds
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(stderr, "kyku: "), "\n")
	return []tfcorpus.Diagnostic{{Summary: first}}
}

// writePriorState puts OpenTofu's state file where its local backend
// keeps it, terraform.tfstate in workdir, where Kyku reads a Terraform
// root's state as OpenTofu does (the plan is run with -e default).
func writePriorState(data []byte, workdir string) error {
	if err := os.WriteFile(local.TerraformConfig{Dir: workdir}.StatePath("default"), data, 0o644); err != nil {
		return fmt.Errorf("write %s as terraform.tfstate: %w", tfcorpus.Step1State, err)
	}
	return nil
}

// absVarFile makes a -var-file argument's relative path absolute against
// dir, where OpenTofu ran.
func absVarFile(arg, dir string) string {
	for _, flag := range []string{"-var-file=", "--var-file="} {
		if path, ok := strings.CutPrefix(arg, flag); ok && !filepath.IsAbs(path) {
			return flag + filepath.Join(dir, path)
		}
	}
	return arg
}

// diagLine is the first line of a diagnostic as kyku prints it:
// FILE:LINE:COL: SUMMARY[: DETAIL].
var diagLine = regexp.MustCompile(`^(\S+?):(\d+):(\d+): (.*)$`)

// diagnostics reads the errors kyku printed about files of dir (named
// relative to it): each one's file, line and summary (its message up to
// ": ").
func diagnostics(stderr, dir string) []tfcorpus.Diagnostic {
	var out []tfcorpus.Diagnostic
	for _, line := range strings.Split(stderr, "\n") {
		m := diagLine.FindStringSubmatch(strings.TrimPrefix(line, "kyku: "))
		if m == nil {
			continue
		}
		file := m[1]
		if _, err := os.Stat(filepath.Join(dir, file)); filepath.IsAbs(file) || err != nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		summary, detail, _ := strings.Cut(m[4], ": ")
		out = append(out, tfcorpus.Diagnostic{Filename: filepath.ToSlash(file), Line: n, Column: col, Summary: summary, Detail: detail})
	}
	return out
}
