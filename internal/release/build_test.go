package release

import (
	"bufio"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuildScriptPlatforms: a release builds for linux and darwin, amd64
// and arm64 (what the installer and the Action download).
func TestBuildScriptPlatforms(t *testing.T) {
	out, err := exec.Command("bash", filepath.Join(root, ".github/release/build.sh"), "--platforms").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"}
	if diff := cmp.Diff(want, strings.Fields(string(out))); diff != "" {
		t.Errorf("build.sh --platforms (-want +got):\n%s", diff)
	}
}

// TestBuildScriptBuildsWhatItBuilds: for the host platform, build.sh
// writes kyku, kyku-engine, kyku-action and kyku-bot under their asset names, built as
// shipped (static, -trimpath), a checksums.txt whose every line verifies
// and that lists every asset, and a kyku that prints the release version.
func TestBuildScriptBuildsWhatItBuilds(t *testing.T) {
	dir := hostRelease(t)
	suffix := "_" + runtime.GOOS + "_" + runtime.GOARCH
	assets := []string{"kyku" + suffix, "kyku-engine" + suffix, "kyku-action" + suffix, "kyku-bot" + suffix}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := append(slices.Clone(assets), "checksums.txt")
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the release's files (-want +got):\n%s", diff)
	}

	f, err := os.Open(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var listed []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q is not sha256sum's HEX  NAME", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("checksums.txt names %s: %v", name, err)
		}
		if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != sum {
			t.Errorf("checksums.txt: %s has sha256 %x, not %s", name, h, sum)
		}
		listed = append(listed, name)
	}
	if diff := cmp.Diff(assets, listed, cmpSorted); diff != "" {
		t.Errorf("the assets checksums.txt lists (-want +got):\n%s", diff)
	}

	for _, a := range assets {
		info, err := buildinfo.ReadFile(filepath.Join(dir, a))
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		for key, want := range map[string]string{"CGO_ENABLED": "0", "-trimpath": "true", "GOOS": runtime.GOOS, "GOARCH": runtime.GOARCH} {
			if settings[key] != want {
				t.Errorf("%s: build setting %s = %q, want %q", a, key, settings[key], want)
			}
		}
	}

	out, err := exec.Command(filepath.Join(dir, "kyku"+suffix), "version").CombinedOutput()
	if first, _, _ := strings.Cut(string(out), "\n"); err != nil || first != "kyku "+testVersion {
		t.Errorf("kyku%s version: %v, first line %q, want %q\n%s", suffix, err, first, "kyku "+testVersion, out)
	}
	if !strings.Contains(string(out), "\ncommit ") || strings.Contains(string(out), "commit unknown") {
		t.Errorf("kyku version names no commit:\n%s", out)
	}
}

var cmpSorted = cmp.Transformer("sorted", func(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
})
