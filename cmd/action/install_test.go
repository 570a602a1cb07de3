package main

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInstallScript: install.sh downloads the release asset for the
// action's ref and runs it only when it matches the release's
// checksums.txt; KYKU_ACTION_BINARY short-circuits it.
func TestInstallScript(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("install.sh serves linux amd64/arm64 runners")
	}
	asset := "kyku-action_linux_" + runtime.GOARCH
	body := []byte("#!/bin/sh\necho kyku\n")
	sum := sha256.Sum256(body)
	tests := []struct {
		name      string
		checksums string
		env       []string
		wantOK    bool
		wantBin   string // "" : the downloaded one
		wantLog   string
	}{
		{"release asset with a matching checksum", hex.EncodeToString(sum[:]) + "  " + asset + "\n", nil, true, "", "from the release"},
		{"release asset with a wrong checksum", strings.Repeat("0", 64) + "  " + asset + "\n", nil, false, "", "does not match its checksums.txt"},
		{"KYKU_ACTION_BINARY", "", []string{"KYKU_ACTION_BINARY=" + binary}, true, binary, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			base := "/owner/kyku/releases/download/v1/"
			mux.HandleFunc(base+asset, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
			mux.HandleFunc(base+"checksums.txt", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(tc.checksums)) })
			srv := httptest.NewServer(mux)
			defer srv.Close()
			dir := t.TempDir()
			out := filepath.Join(dir, "output")
			cmd := exec.Command("bash", "install.sh")
			cmd.Env = append([]string{
				"PATH=/usr/bin:/bin", // no Go: no build fallback
				"RUNNER_TEMP=" + dir, "GITHUB_OUTPUT=" + out, "GITHUB_SERVER_URL=" + srv.URL,
				"KYKU_ACTION_REF=v1", "KYKU_ACTION_REPOSITORY=owner/kyku",
			}, tc.env...)
			log, err := cmd.CombinedOutput()
			if (err == nil) != tc.wantOK || !strings.Contains(string(log), tc.wantLog) {
				t.Fatalf("err %v, want ok=%v and %q in the log:\n%s", err, tc.wantOK, tc.wantLog, log)
			}
			if !tc.wantOK {
				if _, err := os.Stat(filepath.Join(dir, "kyku-action", "kyku-action")); err == nil {
					t.Error("a binary that failed verification was installed")
				}
				return
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.wantBin
			if want == "" {
				want = filepath.Join(dir, "kyku-action", "kyku-action")
				if ran, err := exec.Command(want).Output(); err != nil || string(ran) != "kyku\n" {
					t.Errorf("the installed binary does not run: %v %q", err, ran)
				}
			}
			if string(got) != "binary="+want+"\n" {
				t.Errorf("GITHUB_OUTPUT = %q, want binary=%s", got, want)
			}
		})
	}
}
