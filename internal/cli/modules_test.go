package cli_test

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

// Modules from a registry and from git through the CLI: kyku init
// installs them under .terraform/modules as OpenTofu does, plan and
// apply run them from there, and a call changed since init is refused
// until kyku init runs again.

// moduleHost is a module registry (service discovery at
// /.well-known/terraform.json, the protocol under /base/modules/v1/)
// and git's smart HTTP (/git/NAME.git) on one TLS server on loopback.
type moduleHost struct {
	t       *testing.T
	srv     *httptest.Server
	gitRoot string
	caFile  string
	// versions of each registry module ("ns/name/system"), each served
	// from the git repository of the module's name at the tag v<version>.
	versions map[string][]string
}

func newModuleHost(t *testing.T) *moduleHost {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("no git here: %v", err)
	}
	h := &moduleHost{t: t, gitRoot: t.TempDir(), versions: map[string][]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/terraform.json", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprint(rw, `{"modules.v1":"/base/modules/v1/"}`)
	})
	mux.HandleFunc("/base/modules/v1/", h.registry)
	mux.Handle("/git/", &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Root: "/git",
		Env:  []string{"GIT_PROJECT_ROOT=" + h.gitRoot, "GIT_HTTP_EXPORT_ALL=1"},
	})
	h.srv = httptest.NewTLSServer(mux)
	t.Cleanup(h.srv.Close)
	h.caFile = filepath.Join(t.TempDir(), "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
	if err := os.WriteFile(h.caFile, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

// host is the server's host:port, as sources name it.
func (h *moduleHost) host() string { return strings.TrimPrefix(h.srv.URL, "https://") }

// registry answers the versions list and, for a download, the module's
// git repository at the version's tag (X-Terraform-Get).
func (h *moduleHost) registry(rw http.ResponseWriter, r *http.Request) {
	rest := strings.Split(strings.TrimPrefix(r.URL.Path, "/base/modules/v1/"), "/")
	if len(rest) < 4 {
		http.NotFound(rw, r)
		return
	}
	vs, ok := h.versions[strings.Join(rest[:3], "/")]
	if !ok {
		http.NotFound(rw, r)
		return
	}
	switch {
	case len(rest) == 4 && rest[3] == "versions":
		var list []map[string]string
		for _, v := range vs {
			list = append(list, map[string]string{"version": v})
		}
		rw.Header().Set("Content-Type", "application/json")
		json.NewEncoder(rw).Encode(map[string]any{"modules": []any{map[string]any{"versions": list}}})
	case len(rest) == 5 && rest[4] == "download":
		rw.Header().Set("X-Terraform-Get", "git::"+h.srv.URL+"/git/"+rest[1]+".git?ref=v"+rest[3])
		rw.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(rw, r)
	}
}

// gitEnv is git's whole environment: trusting the server, nothing of the
// user's configuration.
func (h *moduleHost) gitEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_SSL_CAINFO=" + h.caFile}
}

func (h *moduleHost) git(dir string, args ...string) {
	h.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=kyku", "-c", "user.email=dev@kyku.invalid",
		"-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = h.gitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		h.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// publish makes the bare repository name.git with one commit per tag,
// each holding the files versions gives it (tag → path → text).
func (h *moduleHost) publish(name string, versions map[string]map[string]string, tags ...string) {
	h.t.Helper()
	work := filepath.Join(h.t.TempDir(), name)
	bare := filepath.Join(h.gitRoot, name+".git")
	os.MkdirAll(work, 0o755)
	h.git(work, "init", "-q")
	h.git(h.gitRoot, "init", "-q", "--bare", bare)
	for _, tag := range tags {
		entries, _ := os.ReadDir(work)
		for _, e := range entries {
			if e.Name() != ".git" {
				os.RemoveAll(filepath.Join(work, e.Name()))
			}
		}
		writeFiles(h.t, work, versions[tag])
		h.git(work, "add", "-A")
		h.git(work, "commit", "-q", "-m", tag)
		h.git(work, "tag", tag)
	}
	h.git(work, "push", "-q", bare, "--all")
	h.git(work, "push", "-q", bare, "--tags")
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// kykuWithModules runs kyku with the module host's client and git's
// environment.
func (k *kyku) runWithModules(h *moduleHost, args ...string) (int, string, string) {
	k.t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(k.t.Context(), args, cli.Env{
		Stdout: &out, Stderr: &errOut,
		Getenv:      func(name string) string { return k.env[name] },
		Environ:     h.gitEnv,
		ModulesHTTP: h.srv.Client(),
		Providers:   provider.Registry{"sim": sim.Factory},
		Hostname:    "testhost", PID: 4242,
	})
	return code, out.String(), errOut.String()
}

// netModule is the registry module acme/net/kyku at version v: a network
// named for the version (which one was installed shows in the address)
// and a nested module of its own package.
func netModule(v string) map[string]string {
	return map[string]string{
		"main.tf": `variable "cidr" {
  type = string
}
resource "terraform_data" "v` + strings.ReplaceAll(v, ".", "") + `" {
  input = var.cidr
}
module "sub" {
  source = "./modules/sub"
}
output "where" {
  value = [path.module, module.sub.where]
}
`,
		"modules/sub/main.tf": `resource "terraform_data" "sub" {
  input = "10.200.0.0/16"
}
output "where" {
  value = path.module
}
`,
	}
}

func TestModulesFromRegistryAndGit(t *testing.T) {
	h := newModuleHost(t)
	h.publish("net", map[string]map[string]string{
		"v1.0.0": netModule("1.0.0"), "v1.1.0": netModule("1.1.0"), "v2.0.0": netModule("2.0.0"),
	}, "v1.0.0", "v1.1.0", "v2.0.0")
	h.versions["acme/net/kyku"] = []string{"1.0.0", "1.1.0", "2.0.0"}
	// A git module calling a registry module: nested modules from both.
	tagV1 := map[string]string{"main.tf": `variable "n" {
  type = number
}
resource "terraform_data" "tag" {
  input = "10.${100 + var.n}.0.0/16"
}
module "inner" {
  source  = "HOST/acme/net/kyku"
  version = "1.0.0"
  cidr    = "10.${150 + var.n}.0.0/16"
}
`}
	tagV2 := map[string]string{"main.tf": `variable "n" {
  type = number
}
resource "terraform_data" "tag2" {
  input = "10.99.0.0/16"
}
`}
	for _, f := range []map[string]string{tagV1, tagV2} {
		f["main.tf"] = strings.ReplaceAll(f["main.tf"], "HOST", h.host())
	}
	h.publish("tags", map[string]map[string]string{"v1": tagV1, "v2": tagV2}, "v1", "v2")

	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	root := `module "net" {
  source   = "HOST/acme/net/kyku"
  version  = "~> 1.0"
  for_each = { a = "10.1.0.0/16", b = "10.2.0.0/16" }
  cidr     = each.value
}
module "tag" {
  source = "git::https://HOST/git/tags.git?ref=v1"
  count  = 2
  n      = count.index
}
output "where" {
  value = module.net["a"].where
}
`
	writeRoot := func(text string) {
		writeFiles(t, tf, map[string]string{"main.tf": strings.ReplaceAll(text, "HOST", h.host())})
	}
	writeRoot(root)
	// Through a link, as a checkout often is: modules are named under the
	// directory given, as OpenTofu names them.
	link := filepath.Join(k.dir, "infra")
	if err := os.Symlink(tf, link); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		return k.runWithModules(h, append(args, "-c", link, "--state-dir", filepath.Join(k.dir, ".kyku"))...)
	}

	// Before init: the registry's and git's modules are not installed.
	code, out, errOut := run("plan")
	if code == 0 || !strings.Contains(errOut, "Module not installed") || !strings.Contains(errOut, "main.tf:1:1") {
		t.Fatalf("plan before init: exit %d, want Module not installed at main.tf:1:1\n%s%s", code, out, errOut)
	}

	code, out, errOut = run("init")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"Initializing modules...",
		"Downloading " + h.host() + "/acme/net/kyku 1.1.0 for net...",
		"- net in .terraform/modules/net",
		"- net.sub in .terraform/modules/net/modules/sub",
		"- tag in .terraform/modules/tag",
		"Downloading " + h.host() + "/acme/net/kyku 1.0.0 for tag.inner...",
		"- tag.inner in .terraform/modules/tag.inner",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("init does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(tf, ".terraform", "modules", "modules.json")); err != nil {
		t.Fatalf("init wrote no modules.json: %v", err)
	}

	code, out, errOut = run("apply", "--auto-approve")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		`module.net["a"].terraform_data.v110`, `module.net["b"].terraform_data.v110`,
		`module.net["a"].module.sub.terraform_data.sub`, `module.net["b"].module.sub.terraform_data.sub`,
		`module.tag[0].terraform_data.tag`, `module.tag[1].terraform_data.tag`,
		`module.tag[0].module.inner.terraform_data.v100`, `module.tag[1].module.inner.terraform_data.v100`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apply does not show %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "v200") {
		t.Errorf("apply ran version 2.0.0, which ~> 1.0 does not allow:\n%s", out)
	}
	code, out, errOut = run("output", "--json", "where")
	if want := `[".terraform/modules/net",".terraform/modules/net/modules/sub"]`; code != 0 || strings.TrimSpace(out) != want {
		t.Errorf("output where (path.module): exit %d, want %s\n%s%s", code, want, out, errOut)
	}
	if code, out, errOut = run("plan"); code != 0 || !strings.Contains(out, "No changes") {
		t.Errorf("plan after apply: exit %d, want no changes\n%s%s", code, out, errOut)
	}

	// Calls changed since init: plan says to run kyku init, at the call.
	for _, tc := range []struct{ name, from, to, want string }{
		{"git ref", "tags.git?ref=v1", "tags.git?ref=v2", `main.tf:8:12: Module source has changed: The source address was changed from "git::https://` + h.host() + `/git/tags.git?ref=v1" to "git::https://` + h.host() + `/git/tags.git?ref=v2" since this module was installed. Run "kyku init" to install all modules required by this configuration.`},
		{"registry version", `"~> 1.0"`, `"~> 2.0"`, `main.tf:2:14: Module version requirements have changed: The version requirements have changed since this module was installed and the installed version (1.1.0) is no longer acceptable. Run "kyku init"`},
		{"registry source", "acme/net/kyku", "acme/vpc/kyku", `main.tf:2:14: Module source has changed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeRoot(strings.Replace(root, tc.from, tc.to, 1))
			code, out, errOut := run("plan")
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Errorf("plan: exit %d, want %q\n%s%s", code, tc.want, out, errOut)
			}
		})
	}

	// A manifest that cannot be read is said once, whatever calls need it.
	manifest := filepath.Join(tf, ".terraform", "modules", "modules.json")
	good, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	writeRoot(root)
	if err := os.WriteFile(manifest, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run("plan")
	if code == 0 || strings.Count(errOut, "Failed to read modules manifest file") != 1 {
		t.Errorf("plan with a broken modules.json: exit %d, want its error once\n%s%s", code, out, errOut)
	}
	if err := os.WriteFile(manifest, good, 0o644); err != nil {
		t.Fatal(err)
	}

	// kyku init installs the changed call; plan runs its new version.
	writeRoot(strings.Replace(root, "tags.git?ref=v1", "tags.git?ref=v2", 1))
	if code, out, errOut = run("init"); code != 0 || !strings.Contains(out, "- tag in .terraform/modules/tag") {
		t.Fatalf("init again: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run("plan")
	if code != 0 || !strings.Contains(out, "module.tag[0].terraform_data.tag2") || !strings.Contains(out, "module.tag[1].module.inner.terraform_data.v100") {
		t.Errorf("plan after init of ref v2: exit %d, want tag2 created and the inner module gone\n%s%s", code, out, errOut)
	}
}

// TestModulesEarlyEvaluated: a call's source and version read variables
// and locals, as OpenTofu (1.8 and later) evaluates them before anything
// is installed: kyku init installs what they say with the values given
// (--var, TF_VAR_name), plan runs it with the same values, and a value
// that changes what a call says asks for kyku init again.
func TestModulesEarlyEvaluated(t *testing.T) {
	h := newModuleHost(t)
	h.publish("net", map[string]map[string]string{
		"v1.0.0": netModule("1.0.0"), "v1.1.0": netModule("1.1.0"), "v2.0.0": netModule("2.0.0"),
	}, "v1.0.0", "v1.1.0", "v2.0.0")
	h.versions["acme/net/kyku"] = []string{"1.0.0", "1.1.0", "2.0.0"}
	h.publish("tags", map[string]map[string]string{
		"v1": {"main.tf": `resource "terraform_data" "tag1" {
  input = "one"
}
`},
		"v2": {"main.tf": `resource "terraform_data" "tag2" {
  input = "two"
}
`},
	}, "v1", "v2")

	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": strings.ReplaceAll(`variable "net_version" {
  type    = string
  default = "~> 1.0"
}
variable "tag_ref" {
  type = string
}
locals {
  registry = "HOST/acme/${"net"}/kyku"
}
module "net" {
  source  = local.registry
  version = var.net_version
  cidr    = "10.1.0.0/16"
}
module "tag" {
  source = "git::https://HOST/git/tags.git?ref=${var.tag_ref}"
}
`, "HOST", h.host())})
	run := func(args ...string) (int, string, string) {
		return k.runWithModules(h, append(args, "-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku"))...)
	}

	// No value for what a source reads: refused at the variable and at
	// the call, which is not installed (the other call is).
	code, out, errOut := run("init")
	for _, want := range []string{
		`main.tf:5:1: No value for required variable: The root module input variable "tag_ref" is not set`,
		`main.tf:17:12: Unable to compute static value: module.tag.source depends on var.tag_ref which is not available`,
	} {
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("init without tag_ref: exit %d, want %q\n%s%s", code, want, out, errOut)
		}
	}
	if strings.Contains(out, "tags.git") {
		t.Errorf("init without tag_ref fetched the call reading it:\n%s", out)
	}

	code, out, errOut = run("init", "--var", "tag_ref=v1")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"Downloading git::https://" + h.host() + "/git/tags.git?ref=v1 for tag...", "- tag in .terraform/modules/tag"} {
		if !strings.Contains(out, want) {
			t.Errorf("init does not say %q:\n%s", want, out)
		}
	}
	code, out, errOut = run("plan", "--var", "tag_ref=v1")
	if code != 0 || !strings.Contains(out, "module.tag.terraform_data.tag1") || !strings.Contains(out, "module.net.terraform_data.v110") {
		t.Errorf("plan: exit %d, want the modules init installed\n%s%s", code, out, errOut)
	}
	k.env["TF_VAR_tag_ref"] = "v1"
	if code, out, errOut = run("plan"); code != 0 || !strings.Contains(out, "module.tag.terraform_data.tag1") {
		t.Errorf("plan with TF_VAR_tag_ref: exit %d\n%s%s", code, out, errOut)
	}

	// Values that change what a call says: kyku init again, at the call.
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"source", []string{"--var", "tag_ref=v2"}, `main.tf:17:12: Module source has changed: The source address was changed from "git::https://` + h.host() + `/git/tags.git?ref=v1" to "git::https://` + h.host() + `/git/tags.git?ref=v2" since this module was installed.`},
		{"version", []string{"--var", "net_version=~> 2.0"}, `Module version requirements have changed: The version requirements have changed since this module was installed and the installed version (1.1.0) is no longer acceptable.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(append([]string{"plan"}, tc.args...)...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Errorf("plan %v: exit %d, want %q\n%s%s", tc.args, code, tc.want, out, errOut)
			}
		})
	}
	code, out, errOut = run("init", "--var", "tag_ref=v2")
	if code != 0 {
		t.Fatalf("init with tag_ref=v2: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = run("plan", "--var", "tag_ref=v2"); code != 0 || !strings.Contains(out, "module.tag.terraform_data.tag2") {
		t.Errorf("plan after init with tag_ref=v2: exit %d\n%s%s", code, out, errOut)
	}
}
