package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/golden"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
	"github.com/kyku/action/internal/workspace"
)

// oldLayout writes, in base/.kyku, what an older kyku kept there beside
// the repository's settings: the prod environment's state (written by the
// local backend), a journal, a backup, a saved plan, the sim's cloud and
// a fetched provider; and the settings and a user's file, which stay.
func oldLayout(t *testing.T, base string) {
	t.Helper()
	old := filepath.Join(base, ".kyku")
	b := local.New(old, "prod", local.Options{})
	if _, err := b.Read(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(t.Context(), statemgrtest.NewState("lineage-of-prod", 3, "web"), statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"state.prod.journal":                             "{}\n",
		"backups/state.prod.20250601T060000.000Z.2.json": "{}",
		"plans/prod/pr-7-abc.json":                       "{}",
		"sim/Vm/10000001.json":                           `{"id":"10000001"}`,
		"providers/registry.opentofu.org/hashicorp/null/3.2.4/linux_amd64/terraform-provider-null": "binary",
		"config.yaml":       "execution: actions\n",
		"policies/ssh.rego": "package kyku\n",
		"notes.txt":         "ours\n",
		"../kyku.yaml":      "provider: sim\nresources: {}\n",
	} {
		p := filepath.Join(old, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree is every file under dir (slash-separated relative path → content).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkGolden is golden.Check from the package's directory, wd: the
// tests run in the temporary directory (t.Chdir), so that paths show as
// a user in the repository sees them.
func checkGolden(t *testing.T, wd, name string, g *golden.Sections) {
	t.Helper()
	if err := os.Chdir(wd); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, name, g.String())
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestOldLayoutIsMovedWithOneNotice (issue 42): a repository where an
// older kyku kept local state in .kyku, beside the settings a team
// commits. Its next run moves what Kyku wrote there (state, journal,
// backups, saved plans, the sim's cloud, fetched providers) to
// .kyku-state, byte for byte, with one notice; the settings and the
// user's own file stay. The engine then reads the same state, `git add
// -A` adds the settings and nothing of the state, and the next run says
// nothing.
func TestOldLayoutIsMovedWithOneNotice(t *testing.T) {
	wd, _ := os.Getwd()
	root := t.TempDir()
	t.Chdir(root)
	base := filepath.Join(root, "infra")
	oldLayout(t, base)
	before := tree(t, filepath.Join(base, ".kyku"))
	var notices []string
	open := func() *workspace.Workspace {
		t.Helper()
		ws, err := workspace.Open(t.Context(), mustParse(t, "provider: sim\nresources: {}\n"), workspace.Settings{
			Env: "prod", BaseDir: base, Notify: func(n string) { notices = append(notices, n) },
		}, provider.Registry{"sim": sim.Factory})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		return ws
	}
	ws := open()
	if len(notices) != 1 {
		t.Fatalf("%d notices, want 1: %q", len(notices), notices)
	}
	var g golden.Sections
	g.Add(t, "the notice", notices[0]+"\n")

	kept := map[string]string{}
	for _, k := range []string{"config.yaml", "policies/ssh.rego", "notes.txt"} {
		kept[k] = before[k]
		delete(before, k)
	}
	if d := cmp.Diff(kept, tree(t, filepath.Join(base, ".kyku"))); d != "" {
		t.Errorf(".kyku after the move (-want +got):\n%s", d)
	}
	after := tree(t, filepath.Join(base, ".kyku-state"))
	if !strings.HasSuffix(after[".gitignore"], "*\n") {
		t.Errorf(".kyku-state/.gitignore = %q, want one that ignores everything", after[".gitignore"])
	}
	delete(after, ".gitignore")
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf(".kyku-state is not what .kyku held (-before +after):\n%s", d)
	}
	st, err := ws.Backend.Read(t.Context())
	if err != nil || st == nil || st.Metadata.Lineage != "lineage-of-prod" || st.Metadata.Serial != 3 {
		t.Fatalf("the engine reads %+v, %v; want the moved state", st, err)
	}

	runGit(t, root, "init", "-q")
	runGit(t, root, "add", "-A")
	staged := strings.Fields(runGit(t, root, "diff", "--cached", "--name-only"))
	want := []string{"infra/.kyku/config.yaml", "infra/.kyku/notes.txt", "infra/.kyku/policies/ssh.rego", "infra/kyku.yaml"}
	if d := cmp.Diff(want, staged); d != "" {
		t.Errorf("git add -A staged (-want +got):\n%s", d)
	}

	open()
	if len(notices) != 1 {
		t.Errorf("the next run said %q again", notices[1:])
	}
	checkGolden(t, wd, "layout.md", &g)
}

// TestOldLayoutMovesOnlyWhatIsAtItsDefault: a file moves only when its
// owner is at its default place. A backend whose path is .kyku, a sim
// cloud in KYKU_SIM_DIR and a provider cache of the caller's keep
// theirs where the configuration says.
func TestOldLayoutMovesOnlyWhatIsAtItsDefault(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		s      workspace.Settings
		moved  []string // top-level names moved
	}{
		{"every default", "provider: sim\nresources: {}\n", workspace.Settings{}, []string{"backups", "plans", "providers", "sim", "state.prod.journal", "state.prod.json"}},
		{"backend path .kyku", "provider: sim\nbackend: { type: local, path: .kyku }\nresources: {}\n", workspace.Settings{}, []string{"providers", "sim"}},
		{"the sim's dir from the environment, a provider cache", "provider: sim\nresources: {}\n",
			workspace.Settings{Getenv: func(k string) string {
				if k == sim.EnvDir {
					return "/nonexistent-sim"
				}
				return ""
			}, Plugins: workspace.Plugins{CacheDir: "/nonexistent-cache"}},
			[]string{"backups", "plans", "state.prod.journal", "state.prod.json"}},
		{"an s3 backend and --state-dir", "provider: aws\nbackend: { type: s3, bucket: b, region: eu-west-1 }\nresources: {}\n",
			workspace.Settings{StateDir: "/nonexistent-state", Plugins: workspace.Plugins{CacheDir: "/nonexistent-cache"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			t.Chdir(root)
			base := filepath.Join(root, "infra")
			oldLayout(t, base)
			s := tc.s
			s.Env, s.BaseDir = "prod", base
			var notices []string
			s.Notify = func(n string) { notices = append(notices, n) }
			// The move is the backend's first step; what comes after it
			// (an S3 bucket that does not exist) does not matter here.
			_, _ = workspace.OpenConfigBackend(t.Context(), mustParse(t, tc.config), s)
			entries, _ := os.ReadDir(filepath.Join(base, ".kyku-state"))
			var got []string
			for _, e := range entries {
				if e.Name() != ".gitignore" {
					got = append(got, e.Name())
				}
			}
			if d := cmp.Diff(tc.moved, got); d != "" {
				t.Errorf("moved (-want +got):\n%s", d)
			}
			if (len(notices) == 1) != (len(tc.moved) > 0) || len(notices) > 1 {
				t.Errorf("notices %q for %d moved", notices, len(tc.moved))
			}
		})
	}
}

// TestOldLayoutMoveRefusesWhenBothHoldState: local state in .kyku and in
// .kyku-state (which is current is the user's call): the run refuses with
// one line naming both, and nothing is moved, read or written.
func TestOldLayoutMoveRefusesWhenBothHoldState(t *testing.T) {
	wd, _ := os.Getwd()
	root := t.TempDir()
	t.Chdir(root)
	base := filepath.Join(root, "infra")
	oldLayout(t, base)
	b := local.New(filepath.Join(base, ".kyku-state"), "prod", local.Options{})
	if _, err := b.Read(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(t.Context(), statemgrtest.NewState("lineage-new", 1), statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, base)
	var notices []string
	_, err := workspace.Open(t.Context(), mustParse(t, "provider: sim\nresources: {}\n"), workspace.Settings{
		Env: "prod", BaseDir: base, Notify: func(n string) { notices = append(notices, n) },
	}, provider.Registry{"sim": sim.Factory})
	if !workspace.IsLayoutConflict(err) {
		t.Fatalf("Open: %v, want the conflict", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the refusal is more than one line:\n%s", err)
	}
	if len(notices) != 0 {
		t.Errorf("notices %q although nothing moved", notices)
	}
	if d := cmp.Diff(before, tree(t, base)); d != "" {
		t.Errorf("the refused run changed files (-before +after):\n%s", d)
	}
	var g golden.Sections
	g.Add(t, "both places hold state", err.Error()+"\n")
	checkGolden(t, wd, "layout_conflict.md", &g)
}

// TestOldLayoutIsNotMovedUnderARunningKyku: an older kyku's run holds
// .kyku's lock. The move waits for it up to the lock timeout, then
// refuses, naming the holder, and moves nothing; once that run is done,
// the next run moves.
func TestOldLayoutIsNotMovedUnderARunningKyku(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	base := filepath.Join(root, "infra")
	oldLayout(t, base)
	holder := local.New(filepath.Join(base, ".kyku"), "", local.Options{Hostname: "laptop", PID: os.Getpid()})
	lock, err := holder.Lock(t.Context(), statemgr.LockInfo{Who: "alice@laptop", Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	before := tree(t, base)
	s := workspace.Settings{Env: "prod", BaseDir: base, LockTimeout: 50 * time.Millisecond, PollInterval: 5 * time.Millisecond}
	cfg := mustParse(t, "provider: sim\nresources: {}\n")
	_, err = workspace.OpenConfigBackend(t.Context(), cfg, s)
	var locked *workspace.LayoutLockedError
	if !errors.As(err, &locked) || locked.Holder.Who != "alice@laptop" {
		t.Fatalf("err = %v, want the move refused for alice's lock", err)
	}
	for _, want := range []string{"infra/.kyku was not moved to infra/.kyku-state", "alice@laptop", `operation "apply"`, "is not moved under a running kyku"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %q:\n%s", want, err)
		}
	}
	if d := cmp.Diff(before, tree(t, base)); d != "" {
		t.Errorf("moved under a running kyku (-before +after):\n%s", d)
	}
	if err := lock.Unlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.OpenConfigBackend(t.Context(), cfg, s); err != nil {
		t.Fatalf("after the other run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, ".kyku-state", "state.prod.json")); err != nil {
		t.Errorf("not moved once the lock was released: %v", err)
	}
	if _, ok := tree(t, filepath.Join(base, ".kyku"))[".kyku.lock"]; ok {
		t.Errorf("the move left its lock behind")
	}
}

// TestLocalStateKeepsItselfOutOfGit (issue 42): the first state a local
// backend writes comes with a .gitignore in its directory — the default
// .kyku-state or a path of the configuration's — so `git add -A` adds
// none of it; a directory named .kyku gets none, since the settings a
// team commits live there too.
func TestLocalStateKeepsItselfOutOfGit(t *testing.T) {
	for _, tc := range []struct {
		name, backend string
		staged        []string
	}{
		{"the default", "", []string{"infra/.kyku/config.yaml", "infra/kyku.yaml"}},
		{"a path of its own", "backend: { type: local, path: state }\n", []string{"infra/.kyku/config.yaml", "infra/kyku.yaml"}},
		{"a path named .kyku", "backend: { type: local, path: .kyku }\n", []string{"infra/.kyku/config.yaml", "infra/.kyku/state.prod.json", "infra/kyku.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			base := filepath.Join(root, "infra")
			cfgText := "provider: sim\n" + tc.backend + "resources: {}\n"
			for name, content := range map[string]string{"kyku.yaml": cfgText, ".kyku/config.yaml": "execution: actions\n"} {
				p := filepath.Join(base, name)
				must(t, os.MkdirAll(filepath.Dir(p), 0o755))
				must(t, os.WriteFile(p, []byte(content), 0o644))
			}
			b, err := workspace.OpenConfigBackend(t.Context(), mustParse(t, cfgText), workspace.Settings{Env: "prod", BaseDir: base})
			must(t, err)
			_, err = b.Read(t.Context())
			must(t, err)
			must(t, b.Write(t.Context(), statemgrtest.NewState("lineage", 1), statemgr.WriteOptions{}))
			runGit(t, root, "init", "-q")
			runGit(t, root, "add", "-A")
			staged := strings.Fields(runGit(t, root, "diff", "--cached", "--name-only"))
			if d := cmp.Diff(tc.staged, staged); d != "" {
				t.Errorf("git add -A staged (-want +got):\n%s", d)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
