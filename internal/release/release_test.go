package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// testVersion is the version the host build is stamped with.
const testVersion = "v9.8.7"

var (
	hostOnce sync.Once
	hostDir  string
	hostErr  error
)

// hostRelease runs the release build script for the host platform, once
// per test process, and returns the directory holding its assets.
func hostRelease(t *testing.T) string {
	t.Helper()
	hostOnce.Do(func() {
		hostDir, hostErr = os.MkdirTemp("", "kyku-release-")
		if hostErr != nil {
			return
		}
		cmd := exec.Command("bash", filepath.Join(root, ".github/release/build.sh"), testVersion, hostDir, runtime.GOOS+"/"+runtime.GOARCH)
		if out, err := cmd.CombinedOutput(); err != nil {
			hostErr = fmt.Errorf("build.sh: %v\n%s", err, out)
		}
	})
	if hostErr != nil {
		t.Fatal(hostErr)
	}
	return hostDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if hostDir != "" {
		os.RemoveAll(hostDir)
	}
	os.Exit(code)
}

// checksums is a checksums.txt (sha256sum's format) for files.
func checksums(files map[string][]byte) []byte {
	var b bytes.Buffer
	for name, data := range files {
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	return b.Bytes()
}

// releaseServer serves releases as GitHub does, under a non-empty base
// path: BASE/download/TAG/NAME and BASE/latest/download/NAME (the release
// named latest). It returns BASE.
func releaseServer(t *testing.T, releases map[string]map[string][]byte) string {
	t.Helper()
	const base = "/owner/kyku/releases"
	mux := http.NewServeMux()
	mux.HandleFunc(base+"/", func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, base+"/")
		var tag, name string
		if rest, ok := strings.CutPrefix(p, "latest/download/"); ok {
			tag, name = "latest", rest
		} else if rest, ok := strings.CutPrefix(p, "download/"); ok {
			tag, name, _ = strings.Cut(rest, "/")
			if tag == "latest" { // a tag named latest is another thing
				tag = ""
			}
		}
		data, ok := releases[tag][name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + base
}
