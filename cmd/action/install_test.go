package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// release is a fake release's files by name.
type release map[string][]byte

// actionRelease is a release holding body as this runner's kyku-action
// asset and, unless sums is given, its checksums.txt.
func actionRelease(body []byte, sums ...string) release {
	asset := "kyku-action_linux_" + runtime.GOARCH
	sum := sha256.Sum256(body)
	r := release{asset: body, "checksums.txt": []byte(hex.EncodeToString(sum[:]) + "  " + asset + "\n")}
	if len(sums) > 0 {
		r["checksums.txt"] = []byte(sums[0])
	}
	return r
}

// fakeGitHub serves releases (/owner/kyku/releases/download/TAG/NAME) and
// the tags API (/api/repos/owner/kyku/tags, paginated as GitHub does, each
// tag with its commit), under non-empty base paths, and records the
// Authorization header of each API request.
type fakeGitHub struct {
	releases map[string]release
	tags     [][2]string // name, commit
	apiFails bool

	mu   sync.Mutex
	auth []string
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if tag, name, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/owner/kyku/releases/download/"), "/"); ok && strings.HasPrefix(r.URL.Path, "/owner/kyku/releases/download/") {
		if data, ok := f.releases[tag][name]; ok {
			w.Write(data)
			return
		}
		http.NotFound(w, r)
		return
	}
	if r.URL.Path != "/api/repos/owner/kyku/tags" {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if f.apiFails {
		http.Error(w, `{"message": "API rate limit exceeded"}`, http.StatusForbidden)
		return
	}
	perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if perPage <= 0 || perPage > 100 {
		perPage = 30
	}
	if page <= 0 {
		page = 1
	}
	type commit struct {
		SHA string `json:"sha"`
		URL string `json:"url"`
	}
	type tag struct {
		Name       string `json:"name"`
		ZipballURL string `json:"zipball_url"`
		Commit     commit `json:"commit"`
		NodeID     string `json:"node_id"`
	}
	out := []tag{}
	for i := (page - 1) * perPage; i < min(page*perPage, len(f.tags)); i++ {
		out = append(out, tag{f.tags[i][0], "https://example.invalid/zip", commit{f.tags[i][1], "https://example.invalid/commit"}, "MDM6UmVm"})
	}
	data, _ := json.MarshalIndent(out, "", "  ")
	w.Write(data)
}

// TestInstallScript: install.sh downloads the release asset of the
// action's ref (a tag, or a commit a release tag points at) and runs it
// only when it matches the release's checksums.txt; without a release it
// builds the action from source when Go is installed, saying so in a
// ::notice::, and fails naming the ref otherwise; KYKU_ACTION_BINARY
// short-circuits it.
func TestInstallScript(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("install.sh serves linux amd64/arm64 runners")
	}
	const (
		released   = "1111111111111111111111111111111111111111"
		unreleased = "2222222222222222222222222222222222222222"
	)
	body := []byte("#!/bin/sh\necho kyku\n")
	other := []byte("#!/bin/sh\necho other\n")
	// 150 tags: the one released commit's are on the second page.
	var tags [][2]string
	for i := range 148 {
		tags = append(tags, [2]string{fmt.Sprintf("v0.%d.0", i), strings.Repeat("3", 40)})
	}
	tags = append(tags, [2]string{"v1", released}, [2]string{"v1.2.3", released})
	goDir := filepath.Dir(must(exec.LookPath("go")))
	tests := []struct {
		name     string
		ref      string
		releases map[string]release
		tags     [][2]string
		apiFails bool
		env      []string
		withGo   bool
		wantOK   bool
		wantBin  string // "" : the one installed in RUNNER_TEMP
		wantRun  string // what the installed binary prints
		wantLog  string
	}{
		{name: "a tag's release", ref: "v1", releases: map[string]release{"v1": actionRelease(body)},
			wantOK: true, wantRun: "kyku\n", wantLog: "kyku-action v1 (" + runtime.GOARCH + ") from the release\n"},
		{name: "a tag's release with a wrong checksum", ref: "v1", releases: map[string]release{"v1": actionRelease(body, strings.Repeat("0", 64)+"  kyku-action_linux_"+runtime.GOARCH+"\n")},
			withGo: true, wantLog: "::error::kyku-action_linux_" + runtime.GOARCH + " from release v1 does not match its checksums.txt: refusing to run it"},
		{name: "a tag's release whose checksums.txt lacks the asset", ref: "v1", releases: map[string]release{"v1": actionRelease(body, "")},
			withGo: true, wantLog: "does not match its checksums.txt: refusing to run it"},
		{name: "a commit's release: its vX.Y.Z tag, found on the second page", ref: released, tags: tags, wantOK: true,
			releases: map[string]release{"v1.2.3": actionRelease(body), "v1": actionRelease(other)},
			wantRun:  "kyku\n", wantLog: "kyku-action " + released + " (" + runtime.GOARCH + ") from the release v1.2.3 (tag v1.2.3 points at " + released + ")\n"},
		{name: "a commit's release: only the major tag's has assets", ref: released, tags: tags, wantOK: true,
			releases: map[string]release{"v1": actionRelease(other)},
			wantRun:  "other\n", wantLog: "from the release v1 (tag v1 points at " + released + ")"},
		{name: "a commit's release with a wrong checksum", ref: released, tags: tags, withGo: true,
			releases: map[string]release{"v1.2.3": actionRelease(body, strings.Repeat("0", 64)+"  kyku-action_linux_"+runtime.GOARCH+"\n")},
			wantLog:  "::error::kyku-action_linux_" + runtime.GOARCH + " from release v1.2.3 does not match its checksums.txt: refusing to run it"},
		{name: "a commit no tag points at, with Go", ref: unreleased, tags: tags, releases: map[string]release{"v1.2.3": actionRelease(body)},
			withGo: true, wantOK: true, wantRun: "",
			wantLog: "::notice::kyku-action: no release tag points at commit " + unreleased + ": building it from source with Go (slow; pin a released tag such as @v1, or a commit a release was made from)\n"},
		{name: "a commit no tag points at, without Go", ref: unreleased, tags: tags, releases: map[string]release{"v1.2.3": actionRelease(body)},
			wantLog: "::error::kyku-action: no release tag points at commit " + unreleased + ", and no Go toolchain to build it from source: use a released tag (e.g. kyku/action@v1)\n"},
		{name: "the tags API refuses", ref: released, tags: tags, apiFails: true, releases: map[string]release{"v1.2.3": actionRelease(body)},
			wantLog: "::error::kyku-action: could not list owner/kyku's tags to find a release of commit " + released + ", and no Go toolchain"},
		{name: "a branch", ref: "main", releases: map[string]release{"v1": actionRelease(body)},
			wantLog: "::error::kyku-action: no release for ref 'main', and no Go toolchain to build it from source"},
		{name: "KYKU_ACTION_BINARY", ref: "v1", env: []string{"KYKU_ACTION_BINARY=" + binary}, wantOK: true, wantBin: binary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gh := &fakeGitHub{releases: tc.releases, tags: tc.tags, apiFails: tc.apiFails}
			srv := httptest.NewServer(gh)
			defer srv.Close()
			dir := t.TempDir()
			out := filepath.Join(dir, "output")
			path := "/usr/bin:/bin" // no Go: no build fallback
			if tc.withGo {
				path = goDir + ":" + path
			}
			cmd := exec.Command("bash", "install.sh")
			cmd.Env = append([]string{
				"PATH=" + path,
				"RUNNER_TEMP=" + dir, "GITHUB_OUTPUT=" + out, "GITHUB_SERVER_URL=" + srv.URL, "GITHUB_API_URL=" + srv.URL + "/api",
				"KYKU_ACTION_REF=" + tc.ref, "KYKU_ACTION_REPOSITORY=owner/kyku", "KYKU_ACTION_TOKEN=ghs_test",
			}, tc.env...)
			if tc.withGo {
				cmd.Env = append(cmd.Env, goEnv()...)
			}
			log, err := cmd.CombinedOutput()
			if (err == nil) != tc.wantOK || !strings.Contains(string(log), tc.wantLog) {
				t.Fatalf("err %v, want ok=%v and %q in the log:\n%s", err, tc.wantOK, tc.wantLog, log)
			}
			for _, a := range gh.auth {
				if a != "Bearer ghs_test" {
					t.Errorf("the tags API was called with Authorization %q, want the token", a)
				}
			}
			installed := filepath.Join(dir, "kyku-action", "kyku-action")
			if !tc.wantOK {
				if _, err := os.Stat(installed); err == nil {
					t.Error("a binary was installed")
				}
				return
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.wantBin
			if want == "" {
				want = installed
				ran, err := exec.Command(want).Output()
				if tc.wantRun == "" { // built from source: the real kyku-action, which wants a runner
					ran, err = exec.Command(want).CombinedOutput()
					if !strings.Contains(string(ran), "GITHUB_") {
						t.Errorf("the built binary is not kyku-action: %v %q", err, ran)
					}
				} else if err != nil || string(ran) != tc.wantRun {
					t.Errorf("the installed binary: %v %q, want %q", err, ran, tc.wantRun)
				}
			}
			if string(got) != "binary="+want+"\n" {
				t.Errorf("GITHUB_OUTPUT = %q, want binary=%s", got, want)
			}
		})
	}
}

// goEnv is the Go toolchain's environment (its caches), for the build
// fallback.
func goEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "HOME" || strings.HasPrefix(k, "GO") {
			env = append(env, kv)
		}
	}
	return env
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
