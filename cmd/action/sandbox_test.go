package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// The runner's commands sandbox.sh uses, faked: each records its call in
// $FAKE_STATE/calls. FAKE_UID is the user (sudo runs its command as 0);
// $FAKE_STATE/restrict holds the AppArmor setting (absent: no such key);
// apt-get install puts bwrap on PATH.
var sandboxFakes = map[string]string{
	"id": `[[ $1 == -u ]] && echo "${FAKE_UID:-1001}"`,
	"sudo": `echo "sudo $*" >>"$FAKE_STATE/calls"
if [[ -n ${FAKE_SUDO_PASSWORD:-} ]]; then echo "sudo: a password is required" >&2; exit 1; fi
[[ $1 == -n ]] && shift
FAKE_UID=0 "$@"`,
	"apt-get": `echo "apt-get $*" >>"$FAKE_STATE/calls"
[[ ${FAKE_UID:-1001} == 0 ]] || { echo "E: are you root?" >&2; exit 100; }
case $1 in
update) : >"$FAKE_STATE/updated" ;;
install)
	if [[ -n ${FAKE_APT_STALE:-} && ! -e $FAKE_STATE/updated ]]; then echo "E: Failed to fetch bubblewrap: 404 Not Found" >&2; exit 100; fi
	cp "$FAKE_STATE/bwrap" "$FAKE_BIN/bwrap" ;;
esac`,
	"sysctl": `echo "sysctl $*" >>"$FAKE_STATE/calls"
case $1 in
-n) [[ -e $FAKE_STATE/restrict ]] || { echo "sysctl: cannot stat /proc/sys/kernel/…: No such file or directory" >&2; exit 1; }
	echo "$(<"$FAKE_STATE/restrict")" ;;
-w) [[ ${FAKE_UID:-1001} == 0 ]] || { echo "sysctl: permission denied" >&2; exit 1; }
	echo "${2#*=}" >"$FAKE_STATE/restrict"; echo "$2" ;;
esac`,
}

// fakeBwrap fails as bubblewrap does where the kernel restricts the
// user namespaces of a user other than root, and as bubblewrap before 0.8
// does with FAKE_BWRAP_OLD.
const fakeBwrap = `echo "bwrap $*" >>"$FAKE_STATE/calls"
if [[ $1 == --version ]]; then echo "bubblewrap 0.9.0"; exit 0; fi
if [[ -n ${FAKE_BWRAP_OLD:-} && " $* " == *" --disable-userns "* ]]; then echo "bwrap: Unknown option --disable-userns" >&2; exit 1; fi
if [[ ${FAKE_UID:-1001} != 0 && -e $FAKE_STATE/restrict && $(<"$FAKE_STATE/restrict") == 1 ]]; then
	echo "bwrap: setting up uid map: Permission denied" >&2; exit 1
fi`

// TestSandboxScript: sandbox.sh installs bubblewrap where it is missing,
// lifts the AppArmor restriction of user namespaces on a GitHub-hosted
// runner, does nothing where all is there, and otherwise warns what the
// run will refuse and why; it ends with one line saying whether bwrap
// works, and never fails the step.
func TestSandboxScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	// Read here, so that the test cache knows the script.
	if _, err := os.ReadFile("sandbox.sh"); err != nil {
		t.Fatal(err)
	}
	const (
		read      = "sysctl -n kernel.apparmor_restrict_unprivileged_userns"
		lift      = "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
		checkUser = "bwrap --unshare-all --unshare-user --disable-userns --die-with-parent --ro-bind / / true"
		checkRoot = "bwrap --unshare-all --die-with-parent --ro-bind / / true"
		install   = "apt-get install -y -qq bubblewrap"
		works     = "kyku: the provider sandbox works on this runner (bubblewrap 0.9.0)"
		refusesPR = "This run refuses the Terraform providers of a configuration a pull request may have written"
	)
	tests := []struct {
		name      string
		uid       string
		bwrap     bool   // installed
		restrict  string // the AppArmor setting; "": no such key
		env       []string
		wantCalls []string
		wantLog   []string // substrings
		warns     bool
		restrictd string // the setting after
	}{
		{
			name: "all there: nothing done", bwrap: true, restrict: "0",
			wantCalls: []string{read, checkUser, "bwrap --version"},
			wantLog:   []string{works}, restrictd: "0",
		},
		{
			name: "no AppArmor", bwrap: true,
			wantCalls: []string{read, checkUser, "bwrap --version"},
			wantLog:   []string{works},
		},
		{
			name: "bwrap missing: installed", restrict: "0",
			wantCalls: []string{"sudo -n true", "sudo -n " + install, install, read, checkUser, "bwrap --version"},
			wantLog:   []string{"kyku: installing bubblewrap for the provider sandbox", works}, restrictd: "0",
		},
		{
			name: "stale package lists: updated, then installed", restrict: "0", env: []string{"FAKE_APT_STALE=1"},
			wantCalls: []string{"sudo -n true", "sudo -n " + install, install, "sudo -n apt-get update -qq", "apt-get update -qq",
				"sudo -n " + install, install, read, checkUser, "bwrap --version"},
			wantLog: []string{works}, restrictd: "0",
		},
		{
			name: "restriction lifted on a GitHub-hosted runner", bwrap: true, restrict: "1",
			wantCalls: []string{read, "sudo -n true", "sudo -n " + lift, lift, checkUser, "bwrap --version"},
			wantLog: []string{"kyku: lifted Ubuntu's AppArmor restriction of unprivileged user namespaces on this GitHub-hosted runner" +
				" (sysctl -w kernel.apparmor_restrict_unprivileged_userns=0), which the provider sandbox needs", works},
			restrictd: "0",
		},
		{
			name: "bwrap missing and the restriction on: both done", restrict: "1",
			wantCalls: []string{"sudo -n true", "sudo -n " + install, install, read, "sudo -n true", "sudo -n " + lift, lift, checkUser, "bwrap --version"},
			wantLog:   []string{"installing bubblewrap", "lifted", works}, restrictd: "0",
		},
		{
			name: "sudo asks for a password: bwrap not installed", restrict: "0", env: []string{"FAKE_SUDO_PASSWORD=1"},
			wantCalls: []string{"sudo -n true"},
			wantLog: []string{"::warning::Kyku's provider sandbox cannot run on this runner: bubblewrap is not installed, and sudo here asks for a password, " +
				"so it cannot be installed; install bubblewrap (0.8 or later) in an earlier step. " + refusesPR},
			warns: true, restrictd: "0",
		},
		{
			name: "sudo asks for a password: restriction left", bwrap: true, restrict: "1",
			env:       []string{"FAKE_SUDO_PASSWORD=1", "KYKU_PROVIDER_SANDBOX=always"},
			wantCalls: []string{read, "sudo -n true", checkUser},
			wantLog: []string{"::warning::Kyku's provider sandbox cannot run on this runner: kernel.apparmor_restrict_unprivileged_userns=1 restricts the user namespaces " +
				"bubblewrap makes, and sudo here asks for a password, so it cannot be lifted; bwrap fails (bwrap: setting up uid map: Permission denied). " +
				"This run refuses every Terraform provider (input provider-sandbox: always)."},
			warns: true, restrictd: "1",
		},
		{
			name: "restriction left on a self-hosted runner", bwrap: true, restrict: "1", env: []string{"RUNNER_ENVIRONMENT=self-hosted"},
			wantCalls: []string{read, checkUser},
			wantLog:   []string{"::warning::", "Kyku lifts it only on GitHub-hosted runners (run sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 on this one", refusesPR},
			warns:     true, restrictd: "1",
		},
		{
			name: "root: apt-get without sudo, no user namespace needed", uid: "0", restrict: "1",
			wantCalls: []string{install, checkRoot, "bwrap --version"},
			wantLog:   []string{works}, restrictd: "1",
		},
		{
			name: "bubblewrap too old", bwrap: true, restrict: "0", env: []string{"FAKE_BWRAP_OLD=1"},
			wantCalls: []string{read, checkUser},
			wantLog:   []string{"::warning::Kyku's provider sandbox cannot run on this runner: bwrap fails (bwrap: Unknown option --disable-userns): Kyku needs bubblewrap 0.8 or later. " + refusesPR},
			warns:     true, restrictd: "0",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin, state, tools := filepath.Join(dir, "bin"), filepath.Join(dir, "state"), filepath.Join(dir, "tools")
			for _, d := range []string{bin, state, tools} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// The fakes' own tools, and nothing else of the host's.
			for _, tool := range []string{"cp"} {
				p, err := exec.LookPath(tool)
				if err != nil {
					t.Skip(tool + " not found")
				}
				if err := os.Symlink(p, filepath.Join(tools, tool)); err != nil {
					t.Fatal(err)
				}
			}
			write := func(p, body string) {
				t.Helper()
				if err := os.WriteFile(p, []byte("#!"+bash+"\n"+body+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, body := range sandboxFakes {
				write(filepath.Join(bin, name), body)
			}
			write(filepath.Join(state, "bwrap"), fakeBwrap)
			if tc.bwrap {
				write(filepath.Join(bin, "bwrap"), fakeBwrap)
			}
			if tc.restrict != "" {
				if err := os.WriteFile(filepath.Join(state, "restrict"), []byte(tc.restrict+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			uid := tc.uid
			if uid == "" {
				uid = "1001"
			}
			cmd := exec.Command(bash, "sandbox.sh")
			cmd.Env = append([]string{
				"PATH=" + bin + ":" + tools, "FAKE_STATE=" + state, "FAKE_BIN=" + bin, "FAKE_UID=" + uid,
				"RUNNER_ENVIRONMENT=github-hosted",
			}, tc.env...)
			out, err := cmd.CombinedOutput()
			log := string(out)
			if err != nil {
				t.Fatalf("sandbox.sh failed the step: %v\n%s", err, log)
			}
			calls, err := os.ReadFile(filepath.Join(state, "calls"))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantCalls, strings.Split(strings.TrimSuffix(string(calls), "\n"), "\n")); diff != "" {
				t.Errorf("calls (-want +got):\n%s\nlog:\n%s", diff, log)
			}
			for _, want := range tc.wantLog {
				if !strings.Contains(log, want) {
					t.Errorf("the log lacks %q:\n%s", want, log)
				}
			}
			verdicts := strings.Count(log, "::warning::") + strings.Count(log, "kyku: the provider sandbox works")
			if verdicts != 1 || strings.Contains(log, "::warning::") != tc.warns {
				t.Errorf("want one line saying whether the sandbox works (a warning: %v):\n%s", tc.warns, log)
			}
			got, err := os.ReadFile(filepath.Join(state, "restrict"))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if g := strings.TrimSpace(string(got)); g != tc.restrictd {
				t.Errorf("the AppArmor setting is %q after, want %q", g, tc.restrictd)
			}
		})
	}
}

// TestActionYMLReadiesTheSandbox: action.yml runs sandbox.sh before kyku
// whenever the cache step finds a lock file and provider-sandbox is not
// off, and passes it the input.
func TestActionYMLReadiesTheSandbox(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Runs struct {
			Steps []struct {
				ID, Name, If, Uses, Run string
				Env                     map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	sandbox, kyku, lockIf := -1, -1, ""
	for i, s := range a.Runs.Steps {
		switch {
		case strings.Contains(s.Run, "/cmd/action/sandbox.sh"):
			sandbox = i
		case s.ID == "kyku":
			kyku = i
		case strings.HasPrefix(s.Uses, "actions/cache@"):
			lockIf = s.If
		}
	}
	if sandbox < 0 || kyku < 0 || sandbox > kyku {
		t.Fatalf("action.yml runs sandbox.sh at step %d, kyku at step %d: want sandbox.sh before kyku", sandbox, kyku)
	}
	s := a.Runs.Steps[sandbox]
	lock, ok := strings.CutPrefix(lockIf, "${{ ")
	if !ok || !strings.Contains(lock, ".kyku.lock.hcl") {
		t.Fatalf("the cache step's condition %q does not look for a lock file", lockIf)
	}
	if want := "${{ inputs.provider-sandbox != 'off' && " + lock; s.If != want {
		t.Errorf("the sandbox step runs if %q, want %q", s.If, want)
	}
	if got := s.Env["KYKU_PROVIDER_SANDBOX"]; got != "${{ inputs.provider-sandbox }}" {
		t.Errorf("the sandbox step's KYKU_PROVIDER_SANDBOX is %q", got)
	}
	if s.Run != `bash "$GITHUB_ACTION_PATH/cmd/action/sandbox.sh"` {
		t.Errorf("the sandbox step runs %q", s.Run)
	}
}
