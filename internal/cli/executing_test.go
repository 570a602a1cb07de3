package cli_test

import "testing"

// TestApplySaysWhenItsChangesRun: an apply's changes run between the
// engine's Executing call and its end (Env.Executing, which runs them on
// one P in a Terraform run); a plan runs none.
func TestApplySaysWhenItsChangesRun(t *testing.T) {
	k := newKyku(t, cfg)
	var calls, dones int
	k.executing = func() func() {
		calls++
		return func() { dones++ }
	}
	if code, out, errOut := k.run("", "plan"); code != 0 || calls != 0 {
		t.Fatalf("plan: exit %d, Executing called %d times (want none)\n%s%s", code, calls, out, errOut)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if calls != 1 || dones != 1 {
		t.Errorf("apply: Executing called %d times, its end %d; want once each", calls, dones)
	}
}
