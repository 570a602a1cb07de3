package tfmodule

import (
	"encoding/base64"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a repository with a tag v1.0.0, a later main and a branch
// dev; each commit's WHICH file says which it is, and modules/x is a
// subdirectory.
func gitRepo(w *world) (r *repo, first string) {
	r = w.repo("mod")
	first = r.commit(map[string]string{"main.tf": "", "WHICH": "v1.0.0", "modules/x/main.tf": "", "modules/x/WHICH": "x of v1.0.0"}, "v1.0.0")
	r.commit(map[string]string{"WHICH": "main"})
	w.git(r.work, "checkout", "-q", "-b", "dev")
	r.commit(map[string]string{"WHICH": "dev"})
	w.git(r.work, "checkout", "-q", "main")
	return r, first
}

// installOne installs a root calling source as module "m".
func installOne(t *testing.T, in *Installer, source string) (string, []Module, error) {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"main.tf": `module "m" { source = "` + source + `" }`})
	mods, diags := in.Install(t.Context(), root, false)
	if diags.HasErrors() {
		return root, nil, errors.New(strings.Join(messages(diags), "\n"))
	}
	return root, mods, nil
}

// TestGitRefs: git:: sources over https against a local bare repository
// (git http-backend): a tag, a branch, a commit, the default branch, a
// shallow clone, a //subdir; a ref that is none, or that would be an
// option, is refused.
func TestGitRefs(t *testing.T) {
	w := newWorld(t)
	r, first := gitRepo(w)
	for _, tc := range []struct {
		query string // after the repository's URL
		want  string // WHICH, or "!" and the error
	}{
		{"?ref=v1.0.0", "v1.0.0"},
		{"?ref=dev", "dev"},
		{"?ref=" + first, "v1.0.0"},
		{"", "main"},
		{"?ref=v1.0.0&depth=1", "v1.0.0"},
		{"?depth=1", "main"},
		{"//modules/x?ref=v1.0.0", "x of v1.0.0"},
		{"//modules/*?ref=v1.0.0", "x of v1.0.0"},
		{"?ref=nope", `!invalid ref: "nope"`},
		{"?ref=--upload-pack=touch%20/tmp/pwned", `!invalid ref "--upload-pack=touch /tmp/pwned"`},
		{"?ref=" + first + "&depth=1", "!note that setting 'depth' requires 'ref' to be a branch or tag name"},
		{"?sshkey=" + base64.StdEncoding.EncodeToString([]byte("-----BEGIN OPENSSH PRIVATE KEY-----")), "!the sshkey argument puts a private key in the configuration"},
		{"//modules/y?ref=v1.0.0", `!Failed to expand subdir globs: subdir "modules/y" not found`},
	} {
		t.Run(tc.query, func(t *testing.T) {
			_, mods, err := installOne(t, w.installer(), "git::"+r.url()+tc.query)
			if want, ok := strings.CutPrefix(tc.want, "!"); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Install: %v, want an error containing %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(mods[0].Dir, "WHICH")); string(b) != tc.want {
				t.Errorf("installed %q, want %q", b, tc.want)
			}
		})
	}
}

// TestGitRefusals: git is spoken over https and ssh only, by git itself
// too (a redirect to http, a submodule on the local file system), and a
// repository with a symbolic link out of it is refused.
func TestGitRefusals(t *testing.T) {
	w := newWorld(t)
	r, _ := gitRepo(w)
	plain := httptest.NewServer(w.srv.Config.Handler)
	t.Cleanup(plain.Close)

	withSub := w.repo("withsub")
	withSub.commit(map[string]string{"main.tf": ""})
	w.git(withSub.work, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "file://"+r.bare, "vendor/mod")
	withSub.commit(nil, "v1.0.0")

	linked := w.repo("linked")
	linked.commit(map[string]string{"main.tf": "", "creds": "->/etc/passwd"}, "v1.0.0")

	for _, tc := range []struct {
		name, source, want string
	}{
		{"plain http", "git::http://" + w.host() + "/git/mod.git", "git over http"},
		{"git protocol", "git://" + w.host() + "/mod.git", "git over git"},
		{"a local repository", "git::file://" + r.bare, "git over file"},
		{"a redirect to http", "git::" + r.url() + "?ref=v1.0.0", `Protocol "http" not supported or disabled`},
		{"a submodule on the file system", "git::" + withSub.url() + "?ref=v1.0.0", "transport 'file' not allowed"},
		{"a link out of the repository", "git::" + linked.url() + "?ref=v1.0.0", "symbolic link creds points outside the module package (to /etc/passwd): refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a redirect to http" {
				w.mu.Lock()
				w.redirects["/git/mod.git/info/refs"] = plain.URL
				w.mu.Unlock()
				defer func() { w.mu.Lock(); delete(w.redirects, "/git/mod.git/info/refs"); w.mu.Unlock() }()
			}
			root, _, err := installOne(t, w.installer(), tc.source)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Install: %v, want an error containing %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(root, ".terraform/modules/m")); err == nil {
				t.Error("something was installed")
			}
		})
	}
}

// TestGitSSH: git over ssh, URL-style and scp-like, reaches the host the
// source names (an ssh stand-in that serves the bare repositories).
func TestGitSSH(t *testing.T) {
	w := newWorld(t)
	gitRepo(w)
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	ssh := filepath.Join(dir, "ssh")
	script := "#!/bin/sh\necho \"$1\" >> " + hosts + "\nshift\neval \"set -- $1\"\nexec git upload-pack \"" + w.gitRoot + "/${2#/}\"\n"
	if err := os.WriteFile(ssh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, source := range []string{
		"git::ssh://git@git.kyku.test/mod.git?ref=v1.0.0",
		"git@git.kyku.test:mod.git?ref=v1.0.0",
	} {
		t.Run(source, func(t *testing.T) {
			os.Remove(hosts)
			in := w.installer()
			in.Git.Env = append(in.Git.Env, "GIT_SSH_COMMAND="+ssh, "GIT_SSH_VARIANT=simple")
			_, mods, err := installOne(t, in, source)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(mods[0].Dir, "WHICH")); string(b) != "v1.0.0" {
				t.Errorf("installed %q", b)
			}
			if b, _ := os.ReadFile(hosts); string(b) != "git@git.kyku.test\n" {
				t.Errorf("ssh was asked for %q", b)
			}
			if mods[0].Source != "git::ssh://git@git.kyku.test/mod.git?ref=v1.0.0" {
				t.Errorf("source recorded as %s", mods[0].Source)
			}
		})
	}
}

// TestSamePackageTwice: two calls of one package fetch it once; the
// second is a copy, as OpenTofu's installer does.
func TestSamePackageTwice(t *testing.T) {
	w := newWorld(t)
	r, _ := gitRepo(w)
	root := t.TempDir()
	writeTree(t, root, map[string]string{"main.tf": `
module "a" { source = "git::` + r.url() + `?ref=v1.0.0" }
module "b" { source = "git::` + r.url() + `//modules/x?ref=v1.0.0" }
`})
	w.requested()
	mods, diags := w.installer().Install(t.Context(), root, false)
	noErrors(t, diags)
	fetches := 0
	for _, req := range w.requested() {
		if strings.HasSuffix(req, "/info/refs") {
			fetches++
		}
	}
	if fetches != 1 {
		t.Errorf("the repository was fetched %d times", fetches)
	}
	if b, _ := os.ReadFile(filepath.Join(mods[1].Dir, "WHICH")); string(b) != "x of v1.0.0" {
		t.Errorf("b has %q", b)
	}
}

// TestCredentialsNotShown: a password in a source's URL appears in no
// error and no line of init's.
func TestCredentialsNotShown(t *testing.T) {
	w := newWorld(t)
	for name, source := range map[string]string{
		"git":     "git::https://kyku:s3cret@" + w.host() + "/git/missing.git?ref=v1",
		"archive": "https://kyku:s3cret@" + w.host() + "/files/missing.zip",
		"page":    "https://kyku:s3cret@" + w.host() + "/pages/missing",
	} {
		t.Run(name, func(t *testing.T) {
			var out strings.Builder
			in := w.installer()
			in.Hooks = TextHooks{W: &out}
			_, _, err := installOne(t, in, source)
			if err == nil {
				t.Fatal("installed")
			}
			if strings.Contains(err.Error()+out.String(), "s3cret") {
				t.Errorf("the password shows:\n%s\n%s", err, out.String())
			}
		})
	}
}
