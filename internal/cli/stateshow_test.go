package cli_test

import (
	"testing"
)

// TestStateShow: kyku state show prints one resource of a Kyku state as
// tofu state show lays one out, its properties and outputs in HCL's
// syntax, a sensitive one (web's userData) masked; a name not in the
// state is refused naming the closest one.
func TestStateShow(t *testing.T) {
	k := newKyku(t, cfg)
	if code, out, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	var all string
	for _, name := range []string{"net", "web"} {
		code, out, errOut := k.run("", "state", "show", name)
		if code != 0 {
			t.Fatalf("show %s: exit %d\n%s%s", name, code, out, errOut)
		}
		all += out
	}
	golden(t, "state-show.golden", all)
	code, _, errOut := k.run("", "state", "show", "nett")
	if want := "kyku: state show: \"nett\" is not in state (did you mean \"net\"?)\n"; code != 1 || errOut != want {
		t.Errorf("show nett: exit %d, %q; want 1, %q", code, errOut, want)
	}
}
