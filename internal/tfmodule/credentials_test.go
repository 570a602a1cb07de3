package tfmodule

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kyku/action/internal/hostcreds"
)

const testToken = "s3cr3t-registry-token"

// private makes w's registry (discovery and API) answer 401 to a request
// without "Bearer <testToken>", as a private registry does.
func private(w *world) {
	inner := w.srv.Config.Handler
	w.srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if (r.URL.Path == "/.well-known/terraform.json" || strings.HasPrefix(r.URL.Path, "/base/")) &&
			r.Header.Get("Authorization") != "Bearer "+testToken {
			http.Error(rw, "unauthorized", http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(rw, r)
	})
}

// elsewhere is a second host: it serves files and records what
// Authorization each request carried.
type elsewhere struct {
	srv   *httptest.Server
	mu    sync.Mutex
	auth  []string // "path: Authorization" of every request
	files map[string][]byte
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{files: map[string][]byte{}}
	e.srv = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.auth = append(e.auth, r.URL.Path+": "+r.Header.Get("Authorization"))
		b, ok := e.files[r.URL.Path]
		e.mu.Unlock()
		if !ok {
			http.NotFound(rw, r)
			return
		}
		rw.Write(b)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// noTokenArrived fails when any request to e carried an Authorization
// header, or none came at all.
func (e *elsewhere) noTokenArrived(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.auth) == 0 {
		t.Fatal("no request reached the other host")
	}
	for _, a := range e.auth {
		if !strings.HasSuffix(a, ": ") {
			t.Errorf("the other host received a token: %s", a)
		}
	}
}

func TestPrivateRegistryModule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		token string // the TF_TOKEN_ variable's value ("" none)
		// setup publishes kyku/app/test; other is a second host.
		setup   func(t *testing.T, w *world, other *elsewhere)
		want    string // the error, "" none
		checkOn bool   // the other host must have been asked, without the token
	}{
		{name: "without a token", want: "discover the services of "},
		{name: "with a wrong token", token: "wrong-token-value", want: "401 Unauthorized"},
		{name: "with the token", token: testToken},
		{name: "a package the registry serves on another host", token: testToken, checkOn: true,
			setup: func(t *testing.T, w *world, other *elsewhere) {
				other.files["/app.tgz"] = tarGz(t, map[string]string{"main.tf": ""})
				w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: "direct-creds",
					location: func(string) string { return other.srv.URL + "/app.tgz" }})
			}},
		{name: "a package on the registry's host redirected to another host", token: testToken, checkOn: true,
			setup: func(t *testing.T, w *world, other *elsewhere) {
				other.files["/files/app.tgz"] = tarGz(t, map[string]string{"main.tf": ""})
				w.redirects["/files/app.tgz"] = other.srv.URL
				w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: "direct-creds",
					location: func(string) string { return "/files/app.tgz" }})
			}},
		{name: "a location on another host", token: testToken, checkOn: true,
			setup: func(t *testing.T, w *world, other *elsewhere) {
				other.files["/app.tgz"] = tarGz(t, map[string]string{"main.tf": ""})
				w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: "json",
					location: func(string) string { return other.srv.URL + "/app.tgz" }})
			}},
		{name: "a module registry service on another host", token: testToken, checkOn: true,
			setup: func(t *testing.T, w *world, other *elsewhere) {
				inner := w.srv.Config.Handler
				w.srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/.well-known/terraform.json" {
						rw.Header().Set("Content-Type", "application/json")
						rw.Write([]byte(`{"modules.v1":"` + other.srv.URL + `/base/modules/v1/"}`))
						return
					}
					inner.ServeHTTP(rw, r)
				})
			}, want: "cannot be found in the module registry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			other := newElsewhere(t)
			w.file("app.tgz", tarGz(t, map[string]string{"main.tf": ""}))
			w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: "direct-creds",
				location: func(string) string { return "/files/app.tgz" }})
			if tc.setup != nil {
				tc.setup(t, w, other)
			}
			private(w)
			root := registryRoot(t, w, w.host()+"/kyku/app/test", "1.0.0")
			in := w.installer()
			var environ []string
			if tc.token != "" {
				environ = append(environ, hostcreds.EnvName(w.host())+"="+tc.token)
			}
			// The other host has a token of its own: the registry's
			// requests must not carry it there either.
			environ = append(environ, hostcreds.EnvName(strings.TrimPrefix(other.srv.URL, "https://"))+"=other-host-token")
			in.Credentials = hostcreds.New(hostcreds.Sources{Environ: environ})
			mods, diags := in.Install(t.Context(), root, false)
			if tc.want != "" {
				oneError(t, diags, tc.want)
			} else {
				noErrors(t, diags)
				if len(mods) != 1 {
					t.Fatalf("installed %d modules, want 1", len(mods))
				}
			}
			for _, m := range messages(diags) {
				if tc.token != "" && strings.Contains(m, tc.token) {
					t.Errorf("an error shows the token: %s", m)
				}
			}
			manifest, err := os.ReadFile(filepath.Join(root, ".terraform/modules/modules.json"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(manifest), testToken) {
				t.Errorf("the manifest holds the token:\n%s", manifest)
			}
			if tc.checkOn {
				other.noTokenArrived(t)
			}
		})
	}
}
