package cli_test

import (
	"strings"
	"testing"
)

// TestShowUnchanged: plan and apply count the unchanged resources on one
// line; --show-unchanged lists each.
func TestShowUnchanged(t *testing.T) {
	k := newKyku(t, cfg)
	if code, out, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	k.write(strings.Replace(cfg, "cidr: 10.0.0.0/16 }", "cidr: 10.0.0.0/16, tags: { env: prod } }", 1))
	const count = "  ✓ 2 unchanged resources not shown; --show-unchanged lists them\n"
	tests := []struct {
		name   string
		args   []string
		listed bool
	}{
		{"plan", []string{"plan"}, false},
		{"plan --show-unchanged", []string{"plan", "--show-unchanged"}, true},
		{"apply", []string{"apply"}, false},
		{"apply --show-unchanged", []string{"apply", "--show-unchanged"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, out, errOut := k.run("no\n", tt.args...)
			if !strings.Contains(out, `~ update Vpc "net"`) {
				t.Fatalf("no update shown:\n%s%s", out, errOut)
			}
			if got := strings.Contains(out, count); got == tt.listed {
				t.Errorf("count line shown %v, want %v:\n%s", got, !tt.listed, out)
			}
			for _, l := range []string{`  ✓ no-op SecurityGroup "sg"`, `  ✓ no-op Vm "web"`} {
				if got := strings.Contains(out, l); got != tt.listed {
					t.Errorf("%q shown %v, want %v:\n%s", l, got, tt.listed, out)
				}
			}
		})
	}
}
