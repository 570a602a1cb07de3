package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestForceUnlockAsksFirst: force-unlock asks before it removes a lock, as
// Terraform does: only "yes" goes on; any other answer cancels; no input at
// all (CI) refuses, saying how to go on; --force does not ask. A token
// that is not the lock's is refused without revealing the lock's, asked
// or not. Whatever is refused leaves the lock held.
func TestForceUnlockAsksFirst(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stdin     string
		args      []string
		wrong     bool // name a token that is not the lock's
		wantCode  int
		wantOut   []string
		wantErr   string
		wantAsked bool
	}{
		{"yes removes it", "yes\n", nil, false, 0, []string{"Lock TOKEN removed from local "}, "", true},
		{"no cancels", "no\n", nil, false, 1, []string{"Force-unlock cancelled."}, "", true},
		{"an answer that is not exactly yes cancels", "y\n", nil, false, 1, []string{"Force-unlock cancelled."}, "", true},
		{"no input refuses (CI)", "", nil, false, 1, nil, "kyku: force-unlock: nobody answered the confirmation (no input); the lock is kept. Run it with --force to remove the lock without asking\n", true},
		{"--force does not ask", "", []string{"--force"}, false, 0, []string{"Lock TOKEN removed from local "}, "", false},
		{"-force does not ask", "", []string{"-force"}, false, 0, []string{"Lock TOKEN removed from local "}, "", false},
		{"a wrong token is refused after yes", "yes\n", nil, true, 1, nil, "that is not the token of the lock held (held by alice@ci-7", true},
		{"a wrong token is refused with --force", "", []string{"--force"}, true, 1, nil, "that is not the token of the lock held (held by alice@ci-7", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKyku(t, cfg)
			stateDir := filepath.Join(k.dir, ".kyku")
			since := time.Now().UTC()
			holder := local.New(stateDir, "", local.Options{Now: func() time.Time { return since }, Hostname: "ci-7", PID: 77})
			l, err := holder.Lock(t.Context(), statemgr.LockInfo{Operation: "apply", Who: "alice@ci-7"})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock(t.Context())
			token, named := l.Info().ID, l.Info().ID
			if tc.wrong {
				named = statemgr.NewLockID()
			}
			code, out, errOut := k.run(tc.stdin, append(append([]string{"force-unlock"}, tc.args...), named)...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.wantCode, out, errOut)
			}
			if asked := strings.Contains(out, "Do you really want to force-unlock?"); asked != tc.wantAsked {
				t.Errorf("asked: %v, want %v\nstdout %s", asked, tc.wantAsked, out)
			}
			for _, want := range tc.wantOut {
				if want = strings.ReplaceAll(want, "TOKEN", token); !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, tc.wantErr) || (tc.wantErr == "" && errOut != "") {
				t.Errorf("stderr %q, want it to say %q", errOut, tc.wantErr)
			}
			if tc.wrong && strings.Contains(out+errOut, token) {
				t.Errorf("a wrong token was answered with the lock's token %s:\n%s%s", token, out, errOut)
			}
			_, statErr := os.Stat(filepath.Join(stateDir, ".kyku.lock"))
			if removed := os.IsNotExist(statErr); removed != (tc.wantCode == 0) {
				t.Errorf("lock removed: %v, want %v", removed, tc.wantCode == 0)
			}
		})
	}
}

// TestForceUnlockQuestion: the question as the user reads it.
func TestForceUnlockQuestion(t *testing.T) {
	k := newKyku(t, cfg)
	holder := local.New(filepath.Join(k.dir, ".kyku"), "", local.Options{Hostname: "ci-7", PID: 77})
	l, err := holder.Lock(t.Context(), statemgr.LockInfo{Operation: "apply", Who: "alice@ci-7"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(t.Context())
	_, out, _ := k.run("no\n", "force-unlock", l.Info().ID)
	golden(t, "force-unlock.golden", strings.ReplaceAll(out, k.dir, "DIR"))
}
