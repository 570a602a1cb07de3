package cli_test

import (
	"archive/zip"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// closedAddr is a local address nothing listens at: a registry that
// cannot be reached, without the network.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestProvidersMirrorCommand: kyku providers mirror DIR [--platform
// OS_ARCH]… reads the configuration's providers and its lock, and says
// what is wrong in one line: no directory, a platform that is none, a
// provider the lock lacks, a registry that cannot be reached.
func TestProvidersMirrorCommand(t *testing.T) {
	addr := closedAddr(t)
	withProvider := "providers:\n  fake: { source: " + addr + "/kyku/fake }\nresources: {}\n"
	otherLock := "provider \"" + addr + "/kyku/other\" {\n  version = \"1.0.0\"\n  hashes = [\n    \"h1:" + strings.Repeat("A", 43) + "=\",\n  ]\n}\n"
	for _, tc := range []struct {
		name, config, lock string
		args               []string
		code               int
		stdout, stderr     string // wanted in them
	}{
		{name: "no directory", config: withProvider, args: []string{"providers", "mirror"}, code: 1,
			stderr: "kyku: providers mirror: want the directory to fill, as kyku providers mirror DIR (got 0 arguments)\n"},
		{name: "a platform that is none", config: withProvider, args: []string{"providers", "mirror", "m", "--platform", "linux"}, code: 1,
			stderr: "kyku: --platform: platform \"linux\": want OS_ARCH, such as linux_amd64\n"},
		{name: "no providers", config: "resources: {}\n", args: []string{"providers", "mirror", "m"},
			stdout: "The configuration uses no Terraform providers: nothing to mirror.\n"},
		{name: "a provider the lock lacks", config: withProvider, lock: otherLock, args: []string{"providers", "mirror", "m"}, code: 1,
			stderr: "kyku: provider " + addr + "/kyku/fake is not in the lock file: run \"kyku init\" to lock it, then mirror again\n"},
		{name: "the registry cannot be reached", config: withProvider, args: []string{"providers", "mirror", "m", "--platform", "linux_arm64"}, code: 1,
			stderr: "kyku: provider " + addr + "/kyku/fake: " + addr + " cannot be reached (nothing answers at its address); to install it without the network, set KYKU_PLUGIN_MIRROR (or --plugin-mirror) to a mirror directory, filled where the registry can be reached with \"kyku providers mirror DIR\"\n"},
		{name: "the registry cannot be reached, with a lock, for two platforms", config: withProvider, lock: strings.ReplaceAll(otherLock, "/kyku/other", "/kyku/fake"),
			args: []string{"providers", "mirror", "m", "--platform", "linux_arm64", "--platform", "darwin_arm64"}, code: 1,
			stderr: "kyku: provider " + addr + "/kyku/fake: " + addr + " cannot be reached (nothing answers at its address); to install it without the network, set KYKU_PLUGIN_MIRROR (or --plugin-mirror) to a mirror directory, filled where the registry can be reached with \"kyku providers mirror DIR\"\n"},
		{name: "help", config: withProvider, args: []string{"providers", "mirror", "--help"},
			stdout: "Usage: kyku providers mirror [flags] DIR\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKyku(t, tc.config)
			if tc.lock != "" {
				os.WriteFile(filepath.Join(k.dir, ".kyku.lock.hcl"), []byte(tc.lock), 0o644)
			}
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				if a == "m" { // the mirror's directory, in the test's own
					args[i] = filepath.Join(k.dir, "mirror")
				}
			}
			code, out, errOut := k.run("", args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || (tc.stderr == "" && errOut != "") || !strings.HasSuffix(errOut, tc.stderr) || strings.Count(errOut, "\n") > 1 {
				t.Errorf("kyku %s: exit %d, want %d\nstdout: %s\nstderr: %s\nwant stdout with %q, stderr %q", strings.Join(tc.args, " "), code, tc.code, out, errOut, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestInitOffline: kyku init where a provider's registry cannot be
// reached is one line naming the provider, the registry and the mirror
// setting, not the network's error.
func TestInitOffline(t *testing.T) {
	addr := closedAddr(t)
	k := newKyku(t, "providers:\n  fake: { source: "+addr+"/kyku/fake, version: \"~> 1.0\" }\nresources: {}\n")
	code, out, errOut := k.run("", "init")
	want := "kyku: provider " + addr + "/kyku/fake: " + addr + " cannot be reached (nothing answers at its address); to install it without the network, set KYKU_PLUGIN_MIRROR (or --plugin-mirror) to a mirror directory, filled where the registry can be reached with \"kyku providers mirror DIR\"\n"
	if code != 1 || errOut != want {
		t.Errorf("init offline: exit %d\nstdout: %s\nstderr: %q\nwant:   %q", code, out, errOut, want)
	}
}

// TestInitCarriesHashiCorpHostLock: a lock Terraform wrote, naming
// hashicorp's providers on HashiCorp's registry host, gives kyku init
// their version (not the newest) on the default host, with hashes of
// their own, as OpenTofu's init does, and says so.
func TestInitCarriesHashiCorpHostLock(t *testing.T) {
	k := newKyku(t, "providers:\n  fake: { source: hashicorp/fake, version: \">= 1.0\" }\nresources: {}\n")
	mirror := t.TempDir()
	for _, v := range []string{"1.0.0", "1.1.0"} {
		pkg := filepath.Join(mirror, "registry.opentofu.org", "hashicorp", "fake", v, runtime.GOOS+"_"+runtime.GOARCH)
		os.MkdirAll(pkg, 0o755)
		os.WriteFile(filepath.Join(pkg, "terraform-provider-fake_v"+v), []byte("#!/bin/sh\n"), 0o755)
	}
	k.env["KYKU_PLUGIN_MIRROR"] = mirror
	lockPath := filepath.Join(k.dir, ".kyku.lock.hcl")
	os.WriteFile(lockPath, []byte("provider \"registry.terraform.io/hashicorp/fake\" {\n  version     = \"1.0.0\"\n  constraints = \">= 1.0\"\n  hashes = [\n    \"zh:"+strings.Repeat("ab", 32)+"\",\n  ]\n}\n"), 0o644)
	code, out, errOut := k.run("", "init")
	if code != 0 || !strings.Contains(out, "- fake: registry.opentofu.org/hashicorp/fake 1.0.0\n") {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	if want := "kyku: .kyku.lock.hcl: registry.opentofu.org/hashicorp/fake takes the version of registry.terraform.io/hashicorp/fake (1.0.0), with hashes of its own (OpenTofu's releases of HashiCorp's providers are other files)\n"; errOut != want {
		t.Errorf("init's notice: %q, want %q", errOut, want)
	}
	lock, _ := os.ReadFile(lockPath)
	if strings.Contains(string(lock), "registry.terraform.io") || !strings.Contains(string(lock), "provider \"registry.opentofu.org/hashicorp/fake\" {\n  version     = \"1.0.0\"") || strings.Contains(string(lock), "zh:") {
		t.Errorf("the lock after init:\n%s", lock)
	}
}

// TestPackedMirrorRunsTheProvider: a mirror in the packed layout (as
// tofu providers mirror and kyku providers mirror write it) installs the
// provider, whose resources then plan and apply.
func TestPackedMirrorRunsTheProvider(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	tp := tfplugintest.Framework
	mirror := t.TempDir()
	dir := filepath.Join(mirror, filepath.FromSlash(tp.Source()))
	os.MkdirAll(dir, 0o755)
	f, err := os.Create(filepath.Join(dir, "terraform-provider-"+tp.Type+"_"+tp.Version+"_"+runtime.GOOS+"_"+runtime.GOARCH+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	h := &zip.FileHeader{Name: tp.Executable(), Method: zip.Store}
	h.SetMode(0o755)
	w, _ := zw.CreateHeader(h)
	bin, err := os.ReadFile(tfplugintest.Build(t, tp))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(bin)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	k := newKyku(t, "")
	os.MkdirAll(k.items(), 0o755)
	k.env["KYKU_PLUGIN_MIRROR"] = mirror
	k.env["KYKU_TEST_PROVIDER"] = tp.Type
	k.writeTP(providerHead + "resources:\n  one: { type: TP_item, properties: { name: one } }\n")
	if code, out, errOut := k.run("", "init"); code != 0 || !strings.Contains(out, tp.Source()+" "+tp.Version) {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if entries, _ := os.ReadDir(k.items()); len(entries) == 0 {
		t.Error("the provider made nothing in its cloud")
	}
}
