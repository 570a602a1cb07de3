package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// installer is cmd/kyku/install.sh, the one-line install.
var installer = filepath.Join(root, "cmd/kyku/install.sh")

// runInstaller runs the installer with sh (dash on Debian: POSIX, no
// bash), HOME and TMPDIR under tmp (tmp/home, tmp/tmp), releases from
// base, and a uname that says os and arch when os is not empty.
func runInstaller(t *testing.T, tmp, base, os_, arch string, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	bin := filepath.Join(tmp, "fakebin")
	path := "/usr/bin:/bin"
	if os_ != "" {
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		uname := "#!/bin/sh\ncase $1 in -s) echo " + os_ + " ;; -m) echo " + arch + " ;; *) exit 1 ;; esac\n"
		if err := os.WriteFile(filepath.Join(bin, "uname"), []byte(uname), 0o755); err != nil {
			t.Fatal(err)
		}
		path = bin + ":" + path
	}
	for _, d := range []string{"home", "tmp"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", append([]string{installer}, args...)...)
	cmd.Env = append([]string{"PATH=" + path, "HOME=" + filepath.Join(tmp, "home"), "TMPDIR=" + filepath.Join(tmp, "tmp"), "KYKU_RELEASES_URL=" + base}, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// fakeKyku is a release asset that runs anywhere sh does and says which
// asset it is.
func fakeKyku(asset string) []byte {
	return []byte("#!/bin/sh\necho \"kyku v1.2.3 (" + asset + ")\"\n")
}

// fakeRelease is a release holding a fake kyku for every platform and the
// checksums.txt of them.
func fakeRelease() map[string][]byte {
	files := map[string][]byte{}
	for _, p := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"} {
		files["kyku_"+p] = fakeKyku("kyku_" + p)
		files["kyku-engine_"+p] = fakeKyku("kyku-engine_" + p)
	}
	files["checksums.txt"] = checksums(files)
	return files
}

// TestInstallerInstalls: the installer picks the asset of this machine's
// OS and processor, from the release asked for (latest by default), checks
// it, installs it as kyku in ~/.local/bin or $KYKU_INSTALL_DIR, says where,
// and the installed kyku runs.
func TestInstallerInstalls(t *testing.T) {
	base := releaseServer(t, map[string]map[string][]byte{"v1.2.3": fakeRelease(), "latest": fakeRelease()})
	tests := []struct {
		name, os, arch string
		env            []string // TMP/ stands for the temporary directory
		args           []string
		wantAsset      string
		wantDir        string // under the temporary directory
	}{
		{"linux amd64, a version", "Linux", "x86_64", nil, []string{"v1.2.3"}, "kyku_linux_amd64", "home/.local/bin"},
		{"linux arm64, KYKU_VERSION", "Linux", "aarch64", []string{"KYKU_VERSION=v1.2.3"}, nil, "kyku_linux_arm64", "home/.local/bin"},
		{"macOS arm64, latest", "Darwin", "arm64", nil, nil, "kyku_darwin_arm64", "home/.local/bin"},
		{"macOS amd64, KYKU_INSTALL_DIR", "Darwin", "x86_64", []string{"KYKU_INSTALL_DIR=TMP/opt/bin"}, []string{"latest"}, "kyku_darwin_amd64", "opt/bin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			var env []string
			for _, e := range tc.env {
				env = append(env, strings.Replace(e, "TMP/", tmp+"/", 1))
			}
			stdout, stderr, err := runInstaller(t, tmp, base, tc.os, tc.arch, env, tc.args...)
			if err != nil {
				t.Fatalf("install: %v\n%s%s", err, stdout, stderr)
			}
			kyku := filepath.Join(tmp, tc.wantDir, "kyku")
			out, err := exec.Command(kyku, "version").Output()
			if err != nil || string(out) != "kyku v1.2.3 ("+tc.wantAsset+")\n" {
				t.Errorf("the installed kyku: %v %q, want the release's %s", err, out, tc.wantAsset)
			}
			for _, want := range []string{"installed " + tc.wantAsset + " of release ", "as " + kyku + " (sha256 ", "is not on your PATH"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("the installer does not say %q:\n%s", want, stdout)
				}
			}
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
		})
	}
}

// TestInstallerRefuses: a download that does not match checksums.txt, a
// release without the asset or without its checksum, an OS or processor
// without a release and a malformed version are refused with one line on
// stderr, and nothing is installed (an older kyku stays as it was) or
// left behind in TMPDIR.
func TestInstallerRefuses(t *testing.T) {
	tampered := fakeRelease()
	tampered["kyku_linux_amd64"] = []byte("#!/bin/sh\necho pwned\n")
	unlisted := fakeRelease()
	unlisted["checksums.txt"] = checksums(map[string][]byte{"kyku_linux_arm64": unlisted["kyku_linux_arm64"]})
	noSums := fakeRelease()
	delete(noSums, "checksums.txt")
	base := releaseServer(t, map[string]map[string][]byte{"v1.0.0": tampered, "v1.0.1": unlisted, "v1.0.2": noSums, "v1.2.3": fakeRelease()})
	tests := []struct {
		name, os, arch, version, want string
	}{
		{"checksum mismatch", "Linux", "x86_64", "v1.0.0", "kyku install: kyku_linux_amd64 of release v1.0.0 does not match checksums.txt (sha256 "},
		{"asset not in checksums.txt", "Linux", "x86_64", "v1.0.1", "kyku install: checksums.txt of release v1.0.1 lists no kyku_linux_amd64: deleted the download, installed nothing"},
		{"no checksums.txt", "Linux", "x86_64", "v1.0.2", "kyku install: no checksums.txt in release v1.0.2 ("},
		{"no such release", "Linux", "x86_64", "v9.9.9", "kyku install: no kyku_linux_amd64 in release v9.9.9 (" + base + "/download/v9.9.9/kyku_linux_amd64): see the releases at " + base},
		{"unknown OS", "FreeBSD", "amd64", "v1.2.3", "kyku install: no kyku release for FreeBSD (Linux and macOS only): build it from source, see "},
		{"unknown processor", "Linux", "riscv64", "v1.2.3", "kyku install: no kyku release for riscv64 processors (amd64 and arm64 only): build it from source, see "},
		{"not a version", "Linux", "x86_64", "1.2.3", "kyku install: '1.2.3' is not a version: give vX.Y.Z, vX or latest"},
		{"a path for a version", "Linux", "x86_64", "v1/../../evil", "kyku install: 'v1/../../evil' is not a version: give vX.Y.Z, vX or latest"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bin")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			old := []byte("#!/bin/sh\necho old kyku\n")
			if err := os.WriteFile(filepath.Join(dir, "kyku"), old, 0o755); err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			stdout, stderr, err := runInstaller(t, tmp, base, tc.os, tc.arch, []string{"KYKU_INSTALL_DIR=" + dir}, tc.version)
			if err == nil {
				t.Fatalf("installed:\n%s", stdout)
			}
			if !strings.HasPrefix(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line starting %q", stderr, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout = %q", stdout)
			}
			entries, _ := os.ReadDir(dir)
			if got, _ := os.ReadFile(filepath.Join(dir, "kyku")); len(entries) != 1 || !bytes.Equal(got, old) {
				t.Errorf("the install directory changed: %d entries, kyku %q", len(entries), got)
			}
			if left, _ := os.ReadDir(filepath.Join(tmp, "tmp")); len(left) != 0 {
				t.Errorf("the download was left behind in TMPDIR: %v", left)
			}
		})
	}
}

// TestInstallerInstallsTheRelease: end to end, the installer installs the
// kyku build.sh built for this machine, from a served release, and it
// prints the release's version.
func TestInstallerInstallsTheRelease(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("releases are for linux and darwin")
	}
	files := map[string][]byte{}
	dir := hostRelease(t)
	for _, name := range []string{"kyku_" + runtime.GOOS + "_" + runtime.GOARCH, "kyku-engine_" + runtime.GOOS + "_" + runtime.GOARCH, "checksums.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	base := releaseServer(t, map[string]map[string][]byte{testVersion: files})
	tmp := t.TempDir()
	stdout, stderr, err := runInstaller(t, tmp, base, "", "", nil, testVersion)
	if err != nil {
		t.Fatalf("install: %v\n%s%s", err, stdout, stderr)
	}
	kyku := filepath.Join(tmp, "home/.local/bin/kyku")
	if want := "kyku install: " + kyku + " version: kyku " + testVersion + "\n"; !strings.Contains(stdout, want) {
		t.Errorf("the installer does not say %q:\n%s", want, stdout)
	}
	out, err := exec.Command(kyku, "version").Output()
	if first, _, _ := strings.Cut(string(out), "\n"); err != nil || first != "kyku "+testVersion {
		t.Errorf("the installed kyku: %v %q", err, out)
	}
}
