package tfmodule

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/hostcreds"
)

// registryRoot is a root calling kyku/app/test on w's registry with
// constraint (none when "-").
func registryRoot(t *testing.T, w *world, source, constraint string) string {
	t.Helper()
	root := t.TempDir()
	body := `source = "` + source + `"`
	if constraint != "-" {
		body += "\n  version = \"" + constraint + `"`
	}
	writeTree(t, root, map[string]string{"main.tf": "module \"app\" {\n  " + body + "\n}\n"})
	return root
}

// TestRegistryVersions: the newest version the constraint allows, a
// pre-release only when named exactly (OpenTofu's rule), and OpenTofu's
// errors when none fits; a listed string that is no version is a
// warning.
func TestRegistryVersions(t *testing.T) {
	for _, tc := range []struct {
		constraint string
		want       string // the version installed, or the error
	}{
		{"-", "2.0.0"},
		{"~> 1.0", "1.2.0"},
		{"1.0.0", "1.0.0"},
		{"1.3.0-beta1", "1.3.0-beta1"},
		{"= 1.3.0-beta1", "1.3.0-beta1"},
		{"v1.3.0-beta1", "1.3.0-beta1"},
		{">= 1.3.0-beta1", "2.0.0"},
		{">= 1.3.0-beta1, < 2.0.0", `Unresolvable module version constraint: There is no available version of module "HOST/kyku/app/test" (`},
		{"~> 3.0", `Unresolvable module version constraint: There is no available version of module "HOST/kyku/app/test" (ROOT/main.tf:1) which matches the given version constraint. The newest available version is 2.0.0.`},
		{">= 3.0.0-beta", `Unresolvable module version constraint: There is no available version of module "HOST/kyku/app/test" (ROOT/main.tf:1) which matches the given version constraint. The newest available version is 2.0.0.`},
		{"3.0.0-rc1", "3.0.0-rc1"},
		{"nonsense", "Invalid version constraint: This string does not use correct version constraint syntax."},
	} {
		t.Run(tc.constraint, func(t *testing.T) {
			w := newWorld(t)
			w.publish("kyku/app/test", &published{versions: []string{"1.0.0", "1.2.0", "1.3.0-beta1", "2.0.0", "3.0.0-rc1", "latest"}, answer: "header",
				location: func(v string) string {
					return w.file("app-"+v+".zip", zipOf(t, map[string]string{"main.tf": "", "VERSION": v}))
				}})
			root := registryRoot(t, w, w.host()+"/kyku/app/test", tc.constraint)
			mods, diags := w.installer().Install(t.Context(), root, false)
			if strings.Contains(tc.want, ":") {
				oneError(t, diags, strings.NewReplacer("HOST", w.host(), "ROOT", root).Replace(tc.want))
				return
			}
			noErrors(t, diags)
			if mods[0].Version != tc.want {
				t.Errorf("installed %s, want %s", mods[0].Version, tc.want)
			}
			if b, _ := os.ReadFile(filepath.Join(mods[0].Dir, "VERSION")); string(b) != tc.want {
				t.Errorf("the package installed is %s's", b)
			}
			if diff := cmp.Diff([]string{`warning: Invalid response from remote module registry: The registry at ` + w.host() +
				` returned an invalid version string "latest" for module "app" (` + filepath.Join(root, "main.tf") + `:1), which Kyku ignored.`}, messages(diags)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRegistryAnswers: every form of download answer OpenTofu 1.12
// takes, a //subdir of the package, and the token: sent to the registry's
// API, and with a package it serves itself only when it asks for it.
func TestRegistryAnswers(t *testing.T) {
	for _, tc := range []struct {
		answer    string
		relative  bool // the location relative to the answer
		source    string
		wantDir   string // the module's directory, relative to root
		wantCreds bool   // the package's request carried the token
	}{
		{answer: "header", wantDir: ".terraform/modules/app"},
		{answer: "header", relative: true, wantDir: ".terraform/modules/app"},
		{answer: "json", wantDir: ".terraform/modules/app"},
		{answer: "json-empty", wantDir: ".terraform/modules/app"},
		{answer: "direct", wantDir: ".terraform/modules/app"},
		{answer: "direct-creds", wantDir: ".terraform/modules/app", wantCreds: true},
		{answer: "direct", source: "//modules/sub", wantDir: ".terraform/modules/app/modules/sub"},
		{answer: "header", source: "//modules/sub", wantDir: ".terraform/modules/app/modules/sub"},
	} {
		name := tc.answer + tc.source
		if tc.relative {
			name += " relative"
		}
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			pkg := tarGz(t, map[string]string{"main.tf": "", "modules/sub/main.tf": ""})
			w.file("app.tgz", pkg)
			w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: tc.answer, location: func(string) string {
				if tc.relative || strings.HasPrefix(tc.answer, "direct") {
					return "/files/app.tgz"
				}
				return w.srv.URL + "/files/app.tgz"
			}})
			root := registryRoot(t, w, w.host()+"/kyku/app/test"+tc.source, "1.0.0")
			in := w.installer()
			in.Credentials = hostcreds.New(hostcreds.Sources{Environ: []string{hostcreds.EnvName(w.host()) + "=s3cret"}})
			mods, diags := in.Install(t.Context(), root, false)
			noErrors(t, diags)
			if got := w.rel(t, root, mods[0].Dir); got != tc.wantDir {
				t.Errorf("the module is in %s, want %s", got, tc.wantDir)
			}
			if w.auth["/base/modules/v1/kyku/app/test/versions"] != "Bearer s3cret" {
				t.Error("the versions request carried no token")
			}
			if got := w.auth["/files/app.tgz"] != ""; got != tc.wantCreds {
				t.Errorf("the package's request carried the token: %v, want %v", got, tc.wantCreds)
			}
		})
	}
}

// rel is dir relative to root.
func (w *world) rel(t *testing.T, root, dir string) string {
	r, _ := realPath(root)
	rel, err := filepath.Rel(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

// TestRegistryRefusals: what a registry answers is fetched over https
// only, its API answers from its own host, and a module it does not have
// is OpenTofu's "Module not found".
func TestRegistryRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(w *world)
		want  string
	}{
		{"not on the registry", func(w *world) {}, `Module not found: Module kyku/app/test ("app" from `},
		{"a location over http", func(w *world) {
			w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: "header",
				location: func(string) string { return "http://" + w.host() + "/files/app.zip" }})
		}, "plain http lets anyone on the way change it; use https"},
		{"a direct package over http", func(w *world) {
			w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: "direct",
				location: func(string) string { return "http://" + w.host() + "/files/app.zip" }})
		}, "Kyku fetches modules over https only"},
		{"a location that is a local path", func(w *world) {
			w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: "json",
				location: func(string) string { return "file:///etc" }})
		}, "file:///etc: a registry's or a server's answer may not name a path on this machine"},
		{"a location that is another registry module", func(w *world) {
			w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}, answer: "json",
				location: func(string) string { return "kyku/other/test" }})
		}, `registry returned invalid package location "kyku/other/test": must be a direct remote package address`},
		{"the versions list redirected to another host", func(w *world) {
			w.publish("kyku/app/test", &published{versions: []string{"1.0.0"}})
			w.redirects["/base/modules/v1/kyku/app/test/versions"] = strings.Replace(w.srv.URL, "127.0.0.1", "localhost", 1)
		}, "another host: the registry's answers must come from the host asked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.file("app.zip", zipOf(t, map[string]string{"main.tf": ""}))
			tc.setup(w)
			root := registryRoot(t, w, w.host()+"/kyku/app/test", "1.0.0")
			_, diags := w.installer().Install(t.Context(), root, false)
			oneError(t, diags, tc.want)
			if _, err := os.Stat(filepath.Join(root, ".terraform/modules/app")); err == nil {
				t.Error("something was installed")
			}
		})
	}
}

// TestRegistryDiscoveryOverHTTP: a registry whose discovery document
// names its module API on plain http is refused.
func TestRegistryDiscoveryOverHTTP(t *testing.T) {
	w := newWorld(t)
	r := &registry{http: w.srv.Client()}
	r.services = nil
	srv := w.srv.Config.Handler
	w.srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/.well-known/terraform.json" {
			rw.Header().Set("Content-Type", "application/json")
			rw.Write([]byte(`{"modules.v1":"http://` + w.host() + `/base/modules/v1/"}`))
			return
		}
		srv.ServeHTTP(rw, req)
	})
	_, err := r.baseURL(t.Context(), w.host())
	if err == nil || !strings.Contains(err.Error(), "Kyku fetches modules over https only") {
		t.Fatalf("baseURL: %v, want https refused", err)
	}
}
