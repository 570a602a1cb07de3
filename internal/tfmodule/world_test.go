package tfmodule

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// world is what module sources point at in tests, on one TLS server on
// loopback: a module registry under /base/ (service discovery names
// /base/modules/v1/), archives under /files/, and git's smart HTTP under
// /git/ (git http-backend serving the bare repositories in gitRoot).
type world struct {
	t       *testing.T
	srv     *httptest.Server
	gitRoot string
	caFile  string // the server's certificate, for git

	mu        sync.Mutex
	modules   map[string]*published // "ns/name/system"
	files     map[string][]byte     // path under /files/ → body
	pages     map[string]http.Header
	redirects map[string]string // path → where it redirects
	requests  []string          // method and path of every request
	auth      map[string]string // path → Authorization sent
}

// published is a registry module and how its download answer is given.
type published struct {
	versions []string
	// answer: "header" (204 and X-Terraform-Get), "json" (a location in
	// the body), "json-empty" (200, an empty location, the header),
	// "direct" / "direct-creds" (the registry serves the package).
	answer string
	// location is the package's address for a version.
	location func(v string) string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, gitRoot: t.TempDir(), modules: map[string]*published{}, files: map[string][]byte{},
		pages: map[string]http.Header{}, redirects: map[string]string{}, auth: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/terraform.json", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprint(rw, `{"modules.v1":"/base/modules/v1/","providers.v1":"/base/providers/v1/"}`)
	})
	mux.HandleFunc("/base/modules/v1/", w.registry)
	mux.HandleFunc("/files/", func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		b, ok := w.files[strings.TrimPrefix(r.URL.Path, "/files/")]
		w.mu.Unlock()
		if !ok {
			http.NotFound(rw, r)
			return
		}
		rw.Write(b)
	})
	mux.HandleFunc("/pages/", func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		h, ok := w.pages[r.URL.Path]
		w.mu.Unlock()
		if !ok || r.URL.Query().Get("terraform-get") != "1" {
			http.NotFound(rw, r)
			return
		}
		for k, v := range h {
			if k != "Body" {
				rw.Header()[k] = v
			}
		}
		fmt.Fprint(rw, h.Get("Body"))
	})
	exec, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("no git here: %v", err)
	}
	mux.Handle("/git/", &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(exec)), "git-http-backend"),
		Root: "/git",
		Env:  []string{"GIT_PROJECT_ROOT=" + w.gitRoot, "GIT_HTTP_EXPORT_ALL=1"},
	})
	w.srv = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.requests = append(w.requests, r.Method+" "+r.URL.Path)
		if a := r.Header.Get("Authorization"); a != "" {
			w.auth[r.URL.Path] = a
		}
		to, redirect := w.redirects[r.URL.Path]
		w.mu.Unlock()
		if redirect {
			http.Redirect(rw, r, to+r.URL.RequestURI(), http.StatusFound)
			return
		}
		mux.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.srv.Close)
	w.caFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
	if err := os.WriteFile(w.caFile, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// host is the server's host:port, as sources name it.
func (w *world) host() string { return strings.TrimPrefix(w.srv.URL, "https://") }

func (w *world) registry(rw http.ResponseWriter, r *http.Request) {
	rest := strings.Split(strings.TrimPrefix(r.URL.Path, "/base/modules/v1/"), "/")
	if len(rest) < 4 {
		http.NotFound(rw, r)
		return
	}
	w.mu.Lock()
	m, ok := w.modules[strings.Join(rest[:3], "/")]
	w.mu.Unlock()
	if !ok {
		http.NotFound(rw, r)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	if len(rest) == 4 && rest[3] == "versions" {
		var vs []map[string]string
		for _, v := range m.versions {
			vs = append(vs, map[string]string{"version": v})
		}
		json.NewEncoder(rw).Encode(map[string]any{"modules": []any{map[string]any{"versions": vs}}})
		return
	}
	if len(rest) != 5 || rest[4] != "download" {
		http.NotFound(rw, r)
		return
	}
	loc := m.location(rest[3])
	switch m.answer {
	case "header":
		rw.Header().Set("X-Terraform-Get", loc)
		rw.WriteHeader(http.StatusNoContent)
	case "json":
		json.NewEncoder(rw).Encode(map[string]string{"location": loc})
	case "json-empty":
		rw.Header().Set("X-Terraform-Get", loc)
		fmt.Fprint(rw, `{}`)
	case "direct", "direct-creds":
		json.NewEncoder(rw).Encode(map[string]any{"location": loc, "use_registry_credentials": m.answer == "direct-creds"})
	}
}

// publish puts a module on the registry.
func (w *world) publish(addr string, m *published) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.modules[addr] = m
}

// file serves b at /files/name and returns its URL.
func (w *world) file(name string, b []byte) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files[name] = b
	return w.srv.URL + "/files/" + name
}

// page serves, at /pages/name?terraform-get=1, an answer with header h
// (its "Body" is the body) and returns the page's URL.
func (w *world) page(name string, h http.Header) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pages["/pages/"+name] = h
	return w.srv.URL + "/pages/" + name
}

// requested is the requests made so far, and forgets them.
func (w *world) requested() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.requests
	w.requests = nil
	return r
}

// installer installs from this world: its client, git trusting its
// certificate, nothing else of the environment.
func (w *world) installer() *Installer {
	return &Installer{HTTP: w.srv.Client(), Git: Git{Env: w.gitEnv()}}
}

func (w *world) gitEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + w.t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_SSL_CAINFO=" + w.caFile,
	}
}

// git runs git for building test repositories.
func (w *world) git(dir string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=kyku", "-c", "user.email=dev@kyku.invalid",
		"-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(w.gitEnv(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo is a bare repository name.git in gitRoot, built from a work tree.
type repo struct {
	w    *world
	work string
	bare string
	name string
}

func (w *world) repo(name string) *repo {
	r := &repo{w: w, work: filepath.Join(w.t.TempDir(), name), bare: filepath.Join(w.gitRoot, name+".git"), name: name}
	os.MkdirAll(r.work, 0o755)
	w.git(r.work, "init", "-q")
	w.git(w.gitRoot, "init", "-q", "--bare", r.bare)
	w.git(r.work, "remote", "add", "origin", r.bare)
	return r
}

// commit writes files (path → content; "" removes it; "->target" is a
// symbolic link) and commits them on the current branch, tagging the
// commit with tags; it pushes everything and returns the commit.
func (r *repo) commit(files map[string]string, tags ...string) string {
	for p, c := range files {
		full := filepath.Join(r.work, filepath.FromSlash(p))
		os.RemoveAll(full)
		if c == "" {
			continue
		}
		os.MkdirAll(filepath.Dir(full), 0o755)
		if to, ok := strings.CutPrefix(c, "->"); ok {
			if err := os.Symlink(to, full); err != nil {
				r.w.t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			r.w.t.Fatal(err)
		}
	}
	r.w.git(r.work, "add", "-A")
	r.w.git(r.work, "commit", "-q", "--allow-empty", "-m", "change")
	for _, tag := range tags {
		r.w.git(r.work, "tag", tag)
	}
	r.w.git(r.work, "push", "-q", "--all", "origin")
	r.w.git(r.work, "push", "-q", "--tags", "origin")
	return r.w.git(r.work, "rev-parse", "HEAD")
}

// url is the repository's https URL.
func (r *repo) url() string { return r.w.srv.URL + "/git/" + r.name + ".git" }

// tarGz packs files (path → content; "->target" a link) as a gzipped tar.
func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, p := range sortedKeys(files) {
		c := files[p]
		h := &tar.Header{Name: p, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(c))}
		if to, ok := strings.CutPrefix(c, "->"); ok {
			h = &tar.Header{Name: p, Mode: 0o777, Typeflag: tar.TypeSymlink, Linkname: to}
			c = ""
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(c))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// zipOf packs files (path → content; "->target" a link) as a zip.
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range sortedKeys(files) {
		c := files[p]
		h := &zip.FileHeader{Name: p, Method: zip.Deflate}
		h.SetMode(0o644)
		if to, ok := strings.CutPrefix(c, "->"); ok {
			h.SetMode(os.ModeSymlink | 0o777)
			c = to
		}
		f, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(c))
	}
	zw.Close()
	return buf.Bytes()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeTree writes files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if to, ok := strings.CutPrefix(c, "->"); ok {
			if err := os.Symlink(to, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// messages is diags as "Summary: Detail" lines, warnings too ("warning: …").
func messages(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		m := d.Summary + ": " + d.Detail
		if d.Severity == hcl.DiagWarning {
			m = "warning: " + m
		}
		out = append(out, m)
	}
	return out
}

// oneError fails unless diags hold exactly one error containing want.
func oneError(t *testing.T, diags hcl.Diagnostics, want string) {
	t.Helper()
	var errs []string
	for _, m := range messages(diags) {
		if !strings.HasPrefix(m, "warning: ") {
			errs = append(errs, m)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], want) {
		t.Fatalf("errors:\n%s\nwant one containing %q", strings.Join(errs, "\n"), want)
	}
}

// noErrors fails on any error.
func noErrors(t *testing.T, diags hcl.Diagnostics) {
	t.Helper()
	if diags.HasErrors() {
		t.Fatalf("errors:\n%s", strings.Join(messages(diags), "\n"))
	}
}
