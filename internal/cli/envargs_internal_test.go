package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShellWords: TF_CLI_ARGS is split as a POSIX shell splits words,
// nothing expanded.
func TestShellWords(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  -a   -b=1 ", []string{"-a", "-b=1"}},
		{`-var 'name=two words'`, []string{"-var", "name=two words"}},
		{`-var "x=\"q\" \$HOME \n"`, []string{"-var", `x="q" $HOME \n`}},
		{`a\ b c''d ""`, []string{"a b", "cd", ""}},
		{`-var=$HOME`, []string{"-var=$HOME"}},
	} {
		got, err := shellWords(tt.in)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`'open`, `"open`, `trailing\`} {
		if _, err := shellWords(bad); err == nil {
			t.Errorf("shellWords(%q): no error", bad)
		}
	}
}

// TestEnvArgsPlacement: the command's own variable's arguments come
// first after its name, then TF_CLI_ARGS's, then the command line's; a
// state subcommand's variable is TF_CLI_ARGS_state_<sub>.
func TestEnvArgsPlacement(t *testing.T) {
	env := map[string]string{"TF_CLI_ARGS": "-g", "TF_CLI_ARGS_plan": "-p", "TF_CLI_ARGS_state_list": "-s"}
	getenv := func(k string) string { return env[k] }
	got, from, err := envArgs(getenv, []string{"plan", "-c", "x"})
	if err != nil || !cmp.Equal(got, []string{"plan", "-p", "-g", "-c", "x"}) || !cmp.Equal(from, []string{"TF_CLI_ARGS", "TF_CLI_ARGS_plan"}) {
		t.Errorf("plan: %q from %q (%v)", got, from, err)
	}
	got, _, _ = envArgs(getenv, []string{"state", "list", "module.a"})
	if !cmp.Equal(got, []string{"state", "list", "-s", "-g", "module.a"}) {
		t.Errorf("state list: %q", got)
	}
}
