package tfinstall

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kyku/action/internal/hostcreds"
)

const testToken = "s3cr3t-provider-token"

// authLog records the Authorization header each request carried.
type authLog struct {
	mu   sync.Mutex
	seen map[string]string // path → Authorization ("" none)
}

func (l *authLog) record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]string{}
	}
	l.seen[r.URL.Path] = r.Header.Get("Authorization")
}

func (l *authLog) get(path string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a, ok := l.seen[path]
	return a, ok
}

// privately makes reg's discovery and API answer 401 to a request
// without "Bearer <testToken>", as a private registry does, and records
// what every request carried.
func privately(reg *testRegistry, log *authLog) {
	inner := reg.srv.Config.Handler
	reg.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.record(r)
		if (r.URL.Path == "/.well-known/terraform.json" || strings.HasPrefix(r.URL.Path, "/base/v1/")) &&
			r.Header.Get("Authorization") != "Bearer "+testToken {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

func TestPrivateProviderRegistry(t *testing.T) {
	for _, tc := range []struct {
		name          string
		token         string
		redirectFiles bool // the registry redirects its files to another host
		want          string
	}{
		{name: "without a token", want: "requires authentication credentials (set TF_TOKEN_127_0_0_1:"},
		{name: "with a wrong token", token: "wrong-token-value", want: "rejected the given authentication credentials"},
		{name: "with the token", token: testToken},
		{name: "files redirected to another host", token: testToken, redirectFiles: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newTestRegistry(t)
			reg.publish(t, "kyku", "fake", "1.0.0", fakePackage("fake", "1.0.0"))
			var onRegistry, elsewhere authLog
			privately(reg, &onRegistry)
			other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				elsewhere.record(r)
				reg.srv.Config.Handler.ServeHTTP(w, r) // the same files
			}))
			t.Cleanup(other.Close)
			files := "/base/files/kyku/fake/1.0.0/"
			archive := files + fileName("fake", "1.0.0", testPlatform.OS+"_"+testPlatform.Arch)
			if tc.redirectFiles {
				reg.redirects = map[string]string{files + "SHA256SUMS": other.URL, files + "SHA256SUMS.sig": other.URL, archive: other.URL}
			}
			var environ []string
			if tc.token != "" {
				environ = []string{hostcreds.EnvName(reg.host()) + "=" + tc.token}
			}
			client := reg.client()
			client.Credentials = hostcreds.New(hostcreds.Sources{Environ: environ})
			in := &Installer{CacheDir: t.TempDir(), Registry: client, Platform: testPlatform}
			lock := &Lock{}
			_, err := in.Install(t.Context(), []Requirement{{reg.source("kyku", "fake"), mustConstraints(t, ">= 1.0")}}, lock, false)
			if tc.want != "" {
				var ue *UnauthorizedError
				if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ue) {
					t.Fatalf("Install: %v, want an UnauthorizedError containing %q", err, tc.want)
				}
				if tc.token != "" && strings.Contains(err.Error(), tc.token) {
					t.Errorf("the error shows the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"/.well-known/terraform.json", "/base/v1/providers/kyku/fake/versions"} {
				if a, _ := onRegistry.get(p); a != "Bearer "+testToken {
					t.Errorf("%s carried %q, want the token", p, a)
				}
			}
			for _, p := range []string{files + "SHA256SUMS", files + "SHA256SUMS.sig", archive} {
				a, ok := elsewhere.get(p)
				if tc.redirectFiles && (!ok || a != "") {
					t.Errorf("%s on the other host: asked %v, carried %q; want asked, without a token", p, ok, a)
				}
			}
			path := filepath.Join(t.TempDir(), LockFileName)
			if err := WriteLock(path, lock); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); strings.Contains(string(b), testToken) {
				t.Errorf("the lock file holds the token:\n%s", b)
			}
		})
	}
}
