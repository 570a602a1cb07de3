package tfmodule

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of rendered text")

// nested builds the tree of TestInstallNested: a root calling a registry
// module (an archive on another path) that calls a git module whose
// module calls a sibling directory of its repository, and a local one.
func nested(t *testing.T, w *world) (root string) {
	t.Helper()
	net := w.repo("net")
	net.commit(map[string]string{
		"modules/net/main.tf": `module "sub" { source = "../sub" }`,
		"modules/sub/main.tf": `variable "cidr" {}`,
	}, "v1.0.0")
	net.commit(map[string]string{"modules/sub/main.tf": `variable "cidr" { default = "10.1.0.0/16" }`}, "v1.1.0")
	for _, v := range []string{"1.0.0", "1.2.0", "2.0.0"} {
		w.file("app-"+v+".tar.gz", tarGz(t, map[string]string{
			"main.tf": `module "net" { source = "git::` + net.url() + `//modules/net?ref=v1.0.0" }`,
			"VERSION": v,
		}))
	}
	w.publish("kyku/app/test", &published{versions: []string{"1.0.0", "1.2.0", "2.0.0"}, answer: "header",
		location: func(v string) string { return w.srv.URL + "/files/app-" + v + ".tar.gz" }})
	root = t.TempDir()
	writeTree(t, root, map[string]string{
		"main.tf": `
module "app" {
  source  = "` + w.host() + `/kyku/app/test"
  version = "~> 1.0"
}
module "local" { source = "./modules/local" }
`,
		"modules/local/main.tf": `output "x" { value = 1 }`,
	})
	return root
}

// TestInstallNested: a registry module calling a git module calling a
// local one, and a local module, are installed where OpenTofu installs
// them, and modules.json is byte for byte what OpenTofu writes for the
// same tree (testdata/nested/modules.json is written by hand from
// OpenTofu's modsdir and initwd, with HOST for the server: it is the
// oracle, so -update does not rewrite it). init's lines are golden too.
func TestInstallNested(t *testing.T) {
	w := newWorld(t)
	root := nested(t, w)
	var out bytes.Buffer
	out.WriteString(Heading(false) + "\n")
	in := w.installer()
	in.Hooks = TextHooks{W: &out}
	mods, diags := in.Install(t.Context(), root, false)
	noErrors(t, diags)

	got, err := os.ReadFile(ManifestPath(root))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/nested/modules.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.ReplaceAll(string(want), "HOST", w.host()), string(got)); diff != "" {
		t.Errorf("modules.json (-OpenTofu's +Kyku's):\n%s", diff)
	}

	gotText := strings.ReplaceAll(out.String(), w.host(), "HOST")
	golden := "testdata/nested/init.txt"
	if *update {
		os.WriteFile(golden, []byte(gotText), 0o644)
	}
	wantText, _ := os.ReadFile(golden)
	if diff := cmp.Diff(string(wantText), gotText); diff != "" {
		t.Errorf("init's lines (-want +got):\n%s", diff)
	}

	var keys []string
	for _, m := range mods {
		keys = append(keys, m.Key+" "+m.Version)
		if _, err := os.Stat(filepath.Join(m.Dir, "main.tf")); err != nil {
			t.Errorf("module %s: %v", m.Key, err)
		}
	}
	if diff := cmp.Diff([]string{"app 1.2.0", "app.net ", "app.net.sub ", "local "}, keys); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	// The registry module is 1.2.0 (newest under ~> 1.0), the git one v1.0.0.
	if b, _ := os.ReadFile(filepath.Join(root, ".terraform/modules/app/VERSION")); string(b) != "1.2.0" {
		t.Errorf("app's VERSION is %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".terraform/modules/app.net/modules/sub/main.tf")); !strings.Contains(string(b), `variable "cidr" {}`) {
		t.Errorf("app.net.sub is not v1.0.0's: %s", b)
	}

	// OpenTofu's reader takes it back unchanged.
	m, err := ReadManifest(root)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := m.Marshal()
	if diff := cmp.Diff(string(got), string(again)); diff != "" {
		t.Errorf("read and written again (-first +again):\n%s", diff)
	}
}

// TestInstallAgain: an init with nothing changed fetches nothing; a
// changed source is noticed by Check (as plan and validate would) and
// fetched again by the next Install; -upgrade fetches everything.
func TestInstallAgain(t *testing.T) {
	w := newWorld(t)
	root := nested(t, w)
	in := w.installer()
	ctx := t.Context()
	_, diags := in.Install(ctx, root, false)
	noErrors(t, diags)
	w.requested()

	_, diags = in.Install(ctx, root, false)
	noErrors(t, diags)
	if r := w.requested(); len(r) != 0 {
		t.Errorf("the second init made requests: %v", r)
	}
	_, diags = Check(ctx, root, "", nil)
	noErrors(t, diags)

	// The registry module's constraint moves to 2.x.
	main := filepath.Join(root, "main.tf")
	b, _ := os.ReadFile(main)
	os.WriteFile(main, bytes.Replace(b, []byte(`"~> 1.0"`), []byte(`">= 2.0"`), 1), 0o644)
	_, diags = Check(ctx, root, "", nil)
	oneError(t, diags, `Module version requirements have changed: The version requirements have changed since this module was installed and the installed version (1.2.0) is no longer acceptable. Run "kyku init" to install all modules required by this configuration.`)
	_, diags = in.Install(ctx, root, false)
	noErrors(t, diags)
	if b, _ := os.ReadFile(filepath.Join(root, ".terraform/modules/app/VERSION")); string(b) != "2.0.0" {
		t.Errorf("app's VERSION is %q after the constraint changed", b)
	}

	// The local module's source changes.
	b, _ = os.ReadFile(main)
	os.WriteFile(main, bytes.Replace(b, []byte(`"./modules/local"`), []byte(`"./modules/other"`), 1), 0o644)
	writeTree(t, root, map[string]string{"modules/other/main.tf": ""})
	_, diags = Check(ctx, root, "", nil)
	oneError(t, diags, `Module source has changed: The source address was changed from "./modules/local" to "./modules/other" since this module was installed. Run "kyku init"`)
	w.requested()
	mods, diags := in.Install(ctx, root, false)
	noErrors(t, diags)
	if r := w.requested(); len(r) != 0 {
		t.Errorf("installing a changed local module made requests: %v", r)
	}
	if mods[len(mods)-1].Key != "local" || !strings.HasSuffix(mods[len(mods)-1].Dir, "modules/other") {
		t.Errorf("local is in %s", mods[len(mods)-1].Dir)
	}

	// A git module's ref changes.
	appendFile(t, main, `module "direct" { source = "git::`+w.srv.URL+`/git/net.git//modules/sub?ref=v1.0.0" }`)
	_, diags = in.Install(ctx, root, false)
	noErrors(t, diags)
	b, _ = os.ReadFile(main)
	os.WriteFile(main, bytes.Replace(b, []byte("sub?ref=v1.0.0"), []byte("sub?ref=v1.1.0"), 1), 0o644)
	_, diags = Check(ctx, root, "", nil)
	oneError(t, diags, `Module source has changed: The source address was changed from "git::https://`+w.host()+`/git/net.git//modules/sub?ref=v1.0.0" to "git::https://`+w.host()+`/git/net.git//modules/sub?ref=v1.1.0"`)
	_, diags = in.Install(ctx, root, false)
	noErrors(t, diags)
	if b, _ := os.ReadFile(filepath.Join(root, ".terraform/modules/direct/modules/sub/main.tf")); !strings.Contains(string(b), "10.1.0.0/16") {
		t.Errorf("direct is not v1.1.0's: %s", b)
	}

	w.requested()
	_, diags = in.Install(ctx, root, true)
	noErrors(t, diags)
	if r := w.requested(); len(r) == 0 {
		t.Error("-upgrade fetched nothing")
	}
}

// TestCheck: plan and validate refuse, in OpenTofu's words, a module not
// installed, a changed git ref, and a manifest a pull request edited to
// point a module elsewhere.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, root string)
		want   string
	}{
		{"a new call", func(t *testing.T, root string) {
			appendFile(t, filepath.Join(root, "main.tf"), `module "more" { source = "./modules/local" }`)
		}, `Module not installed: This module is not yet installed. Run "kyku init" to install all modules required by this configuration.`},
		{"a changed ref", func(t *testing.T, root string) {
			p := filepath.Join(root, ".terraform/modules/app/main.tf")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte("v1.0.0"), []byte("v1.1.0"), 1), 0o644)
		}, `Module source has changed: The source address was changed from "git::https://`},
		{"the cache removed", func(t *testing.T, root string) {
			os.RemoveAll(filepath.Join(root, ".terraform/modules/app"))
		}, `Module not installed: This module's local cache directory .terraform/modules/app could not be read.`},
		{"a manifest pointing elsewhere", func(t *testing.T, root string) {
			p := ManifestPath(root)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte(`"Dir":".terraform/modules/app"`), []byte(`"Dir":"/etc"`), 1), 0o644)
		}, `Module not installed: The modules manifest puts this module in /etc, which is not where kyku init installs it.`},
		{"a local module the manifest puts elsewhere", func(t *testing.T, root string) {
			p := ManifestPath(root)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte(`"Dir":"modules/local"`), []byte(`"Dir":".terraform"`), 1), 0o644)
		}, `Module not installed: The modules manifest puts this module in .terraform, which is not where kyku init installs it.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			root := nested(t, w)
			_, diags := w.installer().Install(t.Context(), root, false)
			noErrors(t, diags)
			tc.change(t, root)
			_, diags = Check(t.Context(), root, "", nil)
			oneError(t, diags, tc.want)
		})
	}
}

// TestInstallAfterEditedManifest: init does not keep a module where an
// edited manifest says it is: it installs it again where it belongs.
func TestInstallAfterEditedManifest(t *testing.T) {
	w := newWorld(t)
	root := nested(t, w)
	in := w.installer()
	_, diags := in.Install(t.Context(), root, false)
	noErrors(t, diags)
	elsewhere := t.TempDir()
	writeTree(t, elsewhere, map[string]string{"main.tf": `module "x" { source = "./evil" }`})
	p := ManifestPath(root)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte(`"Dir":".terraform/modules/app"`), []byte(`"Dir":"`+elsewhere+`"`), 1), 0o644)
	mods, diags := in.Install(t.Context(), root, false)
	noErrors(t, diags)
	if mods[0].Key != "app" || mods[0].Dir != filepath.Join(root, ".terraform/modules/app") {
		t.Errorf("app is in %s", mods[0].Dir)
	}
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("\n" + s + "\n")
}

// TestLocalEscapesPackage: a remote package's local calls stay in the
// package: one leading out of it (into the modules directory, the
// repository, the runner) is refused in OpenTofu's words even when the
// directory is there to load, and a sibling directory of the package is
// fine.
func TestLocalEscapesPackage(t *testing.T) {
	w := newWorld(t)
	r := w.repo("pkg")
	r.commit(map[string]string{
		"main.tf":         `module "up" { source = "../" }`,
		"inner/main.tf":   `module "sib" { source = "../sibling" }`,
		"sibling/main.tf": "# sibling",
	}, "v1")
	for _, tc := range []struct{ source, want string }{
		{"git::" + r.url() + "?ref=v1", `Local module path escapes module package: The given source directory for module.m.module.up would be outside of its containing package "git::` + r.url() + `?ref=v1".`},
		{"git::" + r.url() + "//inner?ref=v1", ""},
	} {
		t.Run(tc.source, func(t *testing.T) {
			_, mods, err := installOne(t, w.installer(), tc.source)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Install: %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(mods) != 2 || !strings.HasSuffix(mods[1].Dir, filepath.Join(".terraform/modules/m/sibling")) {
				t.Errorf("modules: %+v", mods)
			}
		})
	}
}

// TestSelfCalls: a module calling itself never ends in OpenTofu; Kyku
// stops at a depth, with one error, and at a number of modules.
func TestSelfCalls(t *testing.T) {
	wide := map[string]string{"l5/main.tf": ""}
	for i := 1; i < 5; i++ {
		var calls strings.Builder
		for j := range 10 {
			fmt.Fprintf(&calls, "module \"m%d\" { source = \"../l%d\" }\n", j, i+1)
		}
		wide[fmt.Sprintf("l%d/main.tf", i)] = calls.String()
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"itself", map[string]string{"main.tf": `module "again" { source = "./" }`}, "Module nesting too deep: module.again.module.again"},
		{"itself twice", map[string]string{"main.tf": `module "a" { source = "./" }
module "b" { source = "./" }`}, "Module nesting too deep: module.a.module.a"},
		{"ten thousand", wide, "Too many module calls: The configuration calls more than 10000 modules; Kyku stops there."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.files)
			if _, ok := tc.files["l1/main.tf"]; ok {
				root = filepath.Join(root, "l1")
			}
			_, diags := (&Installer{}).Install(t.Context(), root, false)
			oneError(t, diags, tc.want)
		})
	}
}
