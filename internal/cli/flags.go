package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/kyku/action/internal/suggest"
)

// flagSet is a command's flags. The flag package prints nothing: an unknown
// flag is found before it parses (with a "did you mean"), every error is
// returned for Run to print once, and -h / --help prints the command's
// usage, rendered here with GNU-style --flags, on stdout.
type flagSet struct {
	*flag.FlagSet
	cmd    command
	stdout io.Writer
	from   []string // the environment variables that gave arguments too (Env.argsFrom)
}

func newFlags(name string, env *Env) *flagSet {
	fs := flag.NewFlagSet("kyku "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	c, _ := lookupCommand(name)
	// Every command takes it, as OpenTofu's do (a job's TF_CLI_ARGS often
	// holds it).
	fs.BoolFunc("no-color", "print without colour, as NO_COLOR does (Terraform's -no-color)", func(string) error {
		env.noColor = true
		return nil
	})
	return &flagSet{FlagSet: fs, cmd: c, stdout: env.Stdout, from: env.argsFrom}
}

// helpHint is where a flag error sends the user: the command's help, and
// the environment variables that gave arguments, when any did.
func (fs *flagSet) helpHint() string {
	hint := fmt.Sprintf("run \"kyku %s --help\" for its flags", fs.cmd.name)
	if len(fs.from) > 0 {
		hint += " (arguments from " + strings.Join(fs.from, " and ") + " are read too, as OpenTofu reads them)"
	}
	return hint
}

// shortOf is the one-letter alias of a long flag; longOf the reverse.
func shortOf(name string) string {
	switch name {
	case "config":
		return "c"
	case "env":
		return "e"
	}
	return ""
}

func longOf(short string) string {
	switch short {
	case "c":
		return "config"
	case "e":
		return "env"
	}
	return ""
}

// flagGiven reports whether the flag called name, or its alias, was set on
// the command line.
func flagGiven(fs *flagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name || f.Name == shortOf(name) || f.Name == longOf(name) {
			given = true
		}
	})
	return given
}

// parse parses flags that may be interleaved with positional arguments and
// returns the positional ones.
func (fs *flagSet) parse(args []string) ([]string, error) {
	if err := fs.check(args); err != nil {
		return nil, err
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.usage(fs.stdout)
				return nil, err
			}
			return nil, fmt.Errorf("%w; %s", err, fs.helpHint())
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseNone parses the flags of a command that takes no positional
// arguments and refuses any: a path given as one (kyku plan infra/) would
// otherwise be ignored, and the command would run on kyku.yaml.
func (fs *flagSet) parseNone(args []string) error {
	pos, err := fs.parse(args)
	if err != nil || len(pos) == 0 {
		return err
	}
	return fs.refuseArgs(pos)
}

// refuseArgs is parseNone's refusal of the positional arguments pos,
// saying what to run instead where it can tell.
func (fs *flagSet) refuseArgs(pos []string) error {
	takes := "no arguments"
	if fs.Lookup("plan") != nil {
		takes = "no arguments but a saved plan's file"
	}
	msg := fmt.Sprintf("%s takes %s, got %q", fs.cmd.name, takes, pos)
	if len(pos) == 1 {
		msg = fmt.Sprintf("%s takes %s, got %q", fs.cmd.name, takes, pos[0])
		if _, err := os.Stat(pos[0]); err == nil && fs.Lookup("c") != nil {
			return fmt.Errorf("%s; to use the configuration there, run: kyku %s -c %s", msg, fs.cmd.name, pos[0])
		}
	}
	return fmt.Errorf("%s; run \"kyku %s --help\" for its flags", msg, fs.cmd.name)
}

// positionalPlan is the saved plan kyku apply applies: --plan's FILE
// (planFile), or a FILE given alone, as terraform apply PLANFILE gives it;
// any other argument is refused as parseNone refuses it.
func positionalPlan(fs *flagSet, pos []string, planFile string) (string, error) {
	if len(pos) == 0 {
		return planFile, nil
	}
	if len(pos) == 1 && planFile == "" && !configFileName(pos[0]) {
		if fi, err := os.Stat(pos[0]); err == nil && fi.Mode().IsRegular() {
			return pos[0], nil
		}
	}
	if len(pos) == 1 && planFile != "" {
		return "", fmt.Errorf("%s: a saved plan given twice, --plan %s and %s", fs.cmd.name, planFile, pos[0])
	}
	return "", fs.refuseArgs(pos)
}

// configFileName reports whether name is named as a configuration file
// is (kyku.yaml, a .tf file), not as a saved plan.
func configFileName(name string) bool {
	for _, ext := range []string{".yaml", ".yml", ".tf", ".tofu", ".json"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// check finds the first unknown flag in args the way the flag package reads
// them (-name, --name, -name=value; a non-boolean flag's value may be the
// next argument; "--" ends the flags) and refuses it, naming the closest
// known flag.
func (fs *flagSet) check(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name := strings.TrimPrefix(a[1:], "-")
		name, _, hasValue := strings.Cut(name, "=")
		if name == "" || name == "h" || name == "help" {
			continue // bad syntax and help are the flag package's to report
		}
		f := fs.Lookup(name)
		if f == nil {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			hint := ""
			if best := suggest.Closest(name, names); best != "" {
				hint = " (did you mean " + dashed(best) + "?)"
			}
			if kyku, ok := terraformFlags()[name]; ok {
				hint = " (Terraform's -" + name + ": " + kyku + ")"
			}
			return fmt.Errorf("unknown flag %s%s; %s", dashed(name), hint, fs.helpHint())
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
			i++ // its value
		}
	}
	return nil
}

// terraformFlags say what Kyku has for Terraform flags it does not take
// (built on first use: a command's start allocates nothing).
var terraformFlags = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"refresh-only":        "kyku refresh reads every object and records what drifted",
		"lock":                "kyku always locks the state; --lock-timeout says how long to wait",
		"json":                "kyku plan --json writes the plan as JSON",
		"chdir":               "-c DIR names the configuration's directory",
		"generate-config-out": "kyku writes no configuration: write the resource block the import block names, then plan",
		"destroy":             "kyku destroy, or kyku plan --destroy",
		"state":               "--state-dir DIR keeps the state (terraform.tfstate) in DIR; a backend block names a remote one",
		"state-out":           "kyku writes the state where it read it; --state-dir DIR names that place",
		"backup":              "kyku backs the state up before every apply, beside it (kyku state backups lists them)",
		"migrate-state":       "kyku does not move state between backends: kyku state pull from the old one, kyku state push to the new",
		"force-copy":          "kyku does not move state between backends: kyku state pull from the old one, kyku state push to the new",
	}
})

// dashed is a flag as the help shows it: -c, --config.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// usage prints the command's help: its synopsis, what it does and its
// flags, GNU style (-c, --config PATH).
func (fs *flagSet) usage(w io.Writer) {
	c := fs.cmd
	synopsis := "kyku " + c.name + " [flags]"
	if c.args != "" {
		synopsis += " " + c.args
	}
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", synopsis, c.summary)
	type row struct{ left, usage string }
	var rows []row
	fs.VisitAll(func(f *flag.Flag) {
		if longOf(f.Name) != "" && fs.Lookup(longOf(f.Name)) != nil {
			return // shown with its long form
		}
		left := "    " + dashed(f.Name)
		described := f
		if s := shortOf(f.Name); s != "" && fs.Lookup(s) != nil {
			left = "-" + s + ", " + dashed(f.Name)
			described = fs.Lookup(s) // the long form's usage is "same as -c"
		}
		placeholder, text := flag.UnquoteUsage(described)
		switch placeholder {
		case "":
		case "string":
			left += " STRING"
		case "int":
			left += " N"
		default:
			left += " " + strings.ToUpper(placeholder)
		}
		if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "0s" {
			text += " (default " + d + ")"
		}
		rows = append(rows, row{left, text})
	})
	if len(rows) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool {
		return strings.TrimLeft(rows[i].left, " -") < strings.TrimLeft(rows[j].left, " -")
	})
	width := 0
	for _, r := range rows {
		width = max(width, len(r.left))
	}
	fmt.Fprintln(w, "\nFlags:")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.usage)
	}
}
