package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestFailedApplyThatChangedNothingWritesNothing: an apply whose every
// change failed or was skipped before it changed anything leaves the state
// (its serial) and its backups as they were; one that changed something,
// a move in state included, persists it after a backup of the state it
// replaces.
func TestFailedApplyThatChangedNothingWritesNothing(t *testing.T) {
	const base = `
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
`
	for _, tt := range []struct {
		name, config string
		fail         []sim.FailRule
		changed      bool
		inState      []string // after the apply
	}{
		{"the one change fails", base + `  web: { type: Vm, properties: { image: debian-12, network: "${net}" } }
`, []sim.FailRule{{Op: sim.OpCreate, Type: "Vm", Name: "web"}}, false, []string{"net"}},
		{"a failure skips its dependent", base + `  sg: { type: SecurityGroup, properties: { network: "${net}" } }
  web: { type: Vm, properties: { image: debian-12, network: "${net}", securityGroups: ["${sg}"] } }
`, []sim.FailRule{{Op: sim.OpCreate, Type: "SecurityGroup", Name: "sg"}}, false, []string{"net"}},
		{"an update fails", `
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, tags: { team: web } } }
`, []sim.FailRule{{Op: sim.OpUpdate, Type: "Vpc", Name: "net"}}, false, []string{"net"}},
		{"one change of two succeeds", base + `  web: { type: Vm, properties: { image: debian-12, network: "${net}" } }
  key: { type: SshKey, properties: { publicKey: "ssh-ed25519 AAAA" } }
`, []sim.FailRule{{Op: sim.OpCreate, Type: "Vm", Name: "web"}}, true, []string{"key", "net"}},
		{"a move, then the change fails", `
resources:
  vpc: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  web: { type: Vm, properties: { image: debian-12, network: "${vpc}" } }
moved:
  - { from: net, to: vpc }
`, []sim.FailRule{{Op: sim.OpCreate, Type: "Vm", Name: "web"}}, true, []string{"vpc"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			mustApply(t, w.engine(), parse(t, base))
			backups := func() []statemgr.BackupInfo {
				t.Helper()
				list, err := local.New(w.stateDir, "", local.Options{}).ListBackups(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return list
			}
			before, beforeBackups, serial := w.stateBytes(), backups(), w.state().Metadata.Serial

			w.simOpts.Fail = tt.fail
			res, err := w.engine().Apply(t.Context(), parse(t, tt.config), engine.ApplyOptions{AutoApprove: true}, nil)
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if len(res.Failed) == 0 {
				t.Fatalf("no change failed: %+v", res)
			}
			after := backups()
			if !tt.changed {
				if string(w.stateBytes()) != string(before) {
					t.Errorf("the state changed:\n%s", w.stateBytes())
				}
				if len(after) != len(beforeBackups) || res.BackupKey != "" {
					t.Errorf("backups %d → %d (key %q): a backup of a state left as it was", len(beforeBackups), len(after), res.BackupKey)
				}
				if res.SerialBefore != serial || res.SerialAfter != serial {
					t.Errorf("serial %d → %d reported, state is at %d", res.SerialBefore, res.SerialAfter, serial)
				}
			} else {
				st := w.state()
				if st.Metadata.Serial != serial+1 || res.SerialAfter != serial+1 {
					t.Errorf("serial %d (reported %d), want %d", st.Metadata.Serial, res.SerialAfter, serial+1)
				}
				if len(after) != len(beforeBackups)+1 || res.BackupKey != after[0].Key || after[0].Serial != serial {
					t.Errorf("backups %v (key %q), want a new one of serial %d", after, res.BackupKey, serial)
				}
			}
			if diff := cmp.Diff(tt.inState, w.state().Names()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}

// crashAtBackup fails the backup, as a run killed after its changes were
// journaled but before the state was written would have left things.
type crashAtBackup struct{ statemgr.Backend }

func (crashAtBackup) Backup(context.Context, *state.File) (string, error) {
	return "", errors.New("killed")
}

// TestRecoveredJournalBacksUpTheStateItReplaces: a run that stopped after
// journaling its changes, before writing the state, left the state it
// started from; the next apply folds the journal in, backing that state up
// first.
func TestRecoveredJournalBacksUpTheStateItReplaces(t *testing.T) {
	w := newWorld(t)
	base := `
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
`
	mustApply(t, w.engine(), parse(t, base))
	serial := w.state().Metadata.Serial
	p, err := sim.New(sim.Options{Dir: w.simDir})
	if err != nil {
		t.Fatal(err)
	}
	b := local.New(w.stateDir, "", local.Options{})
	e := engine.New(p, crashAtBackup{b}, engine.Options{DeployPrefix: "test"})
	more := parse(t, base+`  key: { type: SshKey, properties: { publicKey: "ssh-ed25519 AAAA" } }
`)
	if _, err := e.Apply(t.Context(), more, engine.ApplyOptions{AutoApprove: true}, nil); err == nil {
		t.Fatal("apply with a failing backup: no error")
	}
	if got := w.state().Metadata.Serial; got != serial {
		t.Fatalf("state written (serial %d → %d) without a backup", serial, got)
	}
	mustApply(t, w.engine(), more)
	list, err := b.ListBackups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !hasSerial(list, serial) {
		t.Errorf("backups %v: none of serial %d, the state the journal's fold replaced", list, serial)
	}
	if diff := cmp.Diff([]string{"key", "net"}, w.state().Names()); diff != "" {
		t.Errorf("state after the recovery (-want +got):\n%s", diff)
	}
}

func hasSerial(list []statemgr.BackupInfo, serial int64) bool {
	for _, b := range list {
		if b.Serial == serial {
			return true
		}
	}
	return false
}
