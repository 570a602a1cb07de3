// Package acttest runs workflows in tests with nektos/act, a real runner
// implementation: it finds (or, under CI=true, installs) the act binary
// and writes local stand-ins for the actions act cannot fetch offline.
package acttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Binary finds nektos/act (installed by .ci/act-e2e.sh into the CI
// cache). Without it the test skips, except under CI=true, where it runs
// .ci/act-e2e.sh to install it (a cold build takes a few minutes) and fails
// if that does not work.
func Binary(t *testing.T) string {
	t.Helper()
	cache := os.Getenv("KYKU_CI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "kyku-ci")
	}
	cached := filepath.Join(cache, "bin", "act")
	if fileExists(cached) {
		return cached
	}
	if p, err := exec.LookPath("act"); err == nil {
		return p
	}
	if os.Getenv("CI") != "true" {
		t.Skip("nektos/act not installed (bash .ci/act-e2e.sh installs it)")
	}
	_, self, _, _ := runtime.Caller(0) // …/internal/acttest/acttest.go
	install := exec.Command("bash", filepath.Join(filepath.Dir(self), "..", "..", ".ci", "act-e2e.sh"))
	install.Env = append(os.Environ(), "KYKU_CI_CACHE="+cache)
	if out, err := install.CombinedOutput(); err != nil || !fileExists(cached) {
		t.Fatalf("CI=true and nektos/act is not installed; .ci/act-e2e.sh failed: %v\n%s", err, out)
	}
	return cached
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Stubs writes, under dir, the stand-ins for actions/upload-artifact@v4
// and actions/cache@v4 and returns the act flags that use them
// (--local-repository).
func Stubs(t *testing.T, dir string) []string {
	t.Helper()
	upload, cache := filepath.Join(dir, "upload-artifact"), filepath.Join(dir, "cache")
	for d, body := range map[string]string{upload: uploadStub, cache: cacheStub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "action.yml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{
		"--local-repository", "actions/upload-artifact@v4=" + upload,
		"--local-repository", "actions/cache@v4=" + cache,
	}
}

// uploadStub stands in for actions/upload-artifact@v4: it declares the
// same inputs action.yml passes and copies the file to
// $KYKU_TEST_ARTIFACTS/<name>/.
const uploadStub = `name: upload-artifact stand-in
description: copies path into $KYKU_TEST_ARTIFACTS/<name>/
inputs:
  name: { description: artifact name, required: true }
  path: { description: file to upload, required: true }
  if-no-files-found: { description: ignored, required: false }
  overwrite: { description: ignored, required: false }
  retention-days: { description: ignored, required: false }
runs:
  using: composite
  steps:
    - shell: bash
      env:
        NAME: ${{ inputs.name }}
        SRC: ${{ inputs.path }}
      run: mkdir -p "$KYKU_TEST_ARTIFACTS/$NAME" && cp "$SRC" "$KYKU_TEST_ARTIFACTS/$NAME/"
`

// cacheStub stands in for actions/cache@v4: it declares the inputs
// action.yml passes and keeps nothing (the Action checks every provider
// package against the lock, restored or not).
const cacheStub = `name: cache stand-in
description: restores and saves nothing
inputs:
  path: { description: what to cache, required: true }
  key: { description: the key, required: true }
  restore-keys: { description: fallback key prefixes, required: false }
runs:
  using: composite
  steps:
    - shell: bash
      run: echo "cache stand-in"
`
