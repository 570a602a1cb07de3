package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// plan --refresh says what the plan reads: after an apply, nothing by
// default, every object with all; the line under the summary says so; a
// mode it does not know is refused by name.
func TestPlanRefreshFlag(t *testing.T) {
	k := newKyku(t, cfg)
	c := filepath.Join(k.dir, "kyku.yaml")
	k.ok("apply", "-c", c, "--auto-approve")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "-c", c}, "Read 0 of 3 objects from the cloud; 3 unchanged since their last apply (--refresh=all reads every one)."},
		{[]string{"plan", "-c", c, "--refresh=all"}, "Read all 3 objects from the cloud (--refresh=all)."},
		{[]string{"plan", "-c", c, "--refresh=none"}, "Read none of 3 objects from the cloud (--refresh=none): planned against state."},
		{[]string{"plan", "-c", c, "--json"}, `"read": false`},
	} {
		t.Run(strings.Join(tc.args[3:], " "), func(t *testing.T) {
			if out := k.ok(tc.args...); !strings.Contains(out, tc.want) {
				t.Errorf("kyku %s:\n%s\nwant the line: %s", strings.Join(tc.args, " "), out, tc.want)
			}
		})
	}
	code, _, stderr := k.run("", "plan", "-c", c, "--refresh=some")
	if code != 1 || !strings.Contains(stderr, "--refresh=some: want changed, all or none") {
		t.Errorf("--refresh=some: exit %d, %s", code, stderr)
	}
}
