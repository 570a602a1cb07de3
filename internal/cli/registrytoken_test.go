package cli_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/hostcreds"
	"github.com/kyku/action/internal/tfinstall/pgpverify"
)

const registryToken = "s3cr3t-kyku-registry-token"

// privateRegistry is a private module and provider registry on an
// httptest TLS server: every request (discovery, API, files) without
// "Bearer <registryToken>" gets 401. It serves the module kyku/net/test
// 1.0.0 (a package it serves itself, asking for its credentials) and the
// provider kyku/fake 1.0.0, signed by a key made for the test.
type privateRegistry struct {
	srv     *httptest.Server
	key     *openpgp.Entity
	module  []byte // .tar.gz
	archive []byte // the provider's zip
	mu      sync.Mutex
	refused []string // paths answered 401
}

func newPrivateRegistry(t *testing.T) *privateRegistry {
	t.Helper()
	key, err := openpgp.NewEntity("registry", "", "registry@example.test", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	r := &privateRegistry{key: key, module: tarGzOf(t, map[string]string{"main.tf": "output \"where\" {\n  value = \"private\"\n}\n"})}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	fh := &zip.FileHeader{Name: "terraform-provider-fake_v1.0.0", Method: zip.Deflate}
	fh.SetMode(0o755)
	f, _ := zw.CreateHeader(fh)
	f.Write([]byte("#!/bin/sh\nexit 1\n"))
	zw.Close()
	r.archive = zb.Bytes()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/terraform.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"modules.v1": "/base/modules/v1/", "providers.v1": "/base/providers/v1/"}`)
	})
	mux.HandleFunc("GET /base/modules/v1/kyku/net/test/versions", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"modules": [{"versions": [{"version": "1.0.0"}]}]}`)
	})
	mux.HandleFunc("GET /base/modules/v1/kyku/net/test/1.0.0/download", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"location": "/files/net.tgz", "use_registry_credentials": true}`)
	})
	mux.HandleFunc("GET /files/net.tgz", func(w http.ResponseWriter, _ *http.Request) { w.Write(r.module) })
	mux.HandleFunc("GET /base/providers/v1/kyku/fake/versions", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"versions": [{"version": "1.0.0", "protocols": ["5.0"], "platforms": [{"os": %q, "arch": %q}]}]}`, runtime.GOOS, runtime.GOARCH)
	})
	mux.HandleFunc("GET /base/providers/v1/kyku/fake/1.0.0/download/{os}/{arch}", r.download)
	mux.HandleFunc("GET /files/SHA256SUMS", func(w http.ResponseWriter, _ *http.Request) { w.Write(r.sums()) })
	mux.HandleFunc("GET /files/SHA256SUMS.sig", func(w http.ResponseWriter, _ *http.Request) {
		openpgp.DetachSign(w, r.key, bytes.NewReader(r.sums()), nil)
	})
	mux.HandleFunc("GET /files/fake.zip", func(w http.ResponseWriter, _ *http.Request) { w.Write(r.archive) })
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") != "Bearer "+registryToken {
			r.mu.Lock()
			r.refused = append(r.refused, req.URL.Path)
			r.mu.Unlock()
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *privateRegistry) host() string { return strings.TrimPrefix(r.srv.URL, "https://") }

func (r *privateRegistry) sums() []byte {
	sum := sha256.Sum256(r.archive)
	return []byte(hex.EncodeToString(sum[:]) + "  fake.zip\n")
}

func (r *privateRegistry) download(w http.ResponseWriter, req *http.Request) {
	var armored bytes.Buffer
	aw, _ := armor.Encode(&armored, openpgp.PublicKeyType, nil)
	r.key.Serialize(aw)
	aw.Close()
	sum := sha256.Sum256(r.archive)
	json.NewEncoder(w).Encode(map[string]any{
		"protocols": []string{"5.0"}, "os": req.PathValue("os"), "arch": req.PathValue("arch"),
		"filename": "fake.zip", "download_url": "/files/fake.zip",
		"shasums_url": "/files/SHA256SUMS", "shasums_signature_url": "/files/SHA256SUMS.sig",
		"shasum":       hex.EncodeToString(sum[:]),
		"signing_keys": map[string]any{"gpg_public_keys": []map[string]string{{"key_id": r.key.PrimaryKey.KeyIdString(), "ascii_armor": armored.String()}}},
	})
}

func tarGzOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for name, text := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(text)), Typeflag: tar.TypeReg})
		tw.Write([]byte(text))
	}
	tw.Close()
	gz.Close()
	return b.Bytes()
}

// TestInitFromPrivateRegistry: kyku init installs a module and a provider
// from a registry that wants a token, the token given by TF_TOKEN_<host>
// or by a credentials block of the CLI configuration, and fails without
// one saying which host wants what; the token is in none of its output,
// the lock file or the modules manifest.
func TestInitFromPrivateRegistry(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command string // "" init
		environ func(reg *privateRegistry, home string) []string
		want    int
		wantErr string
	}{
		{name: "providers lock without a token", command: "providers lock", want: 1, wantErr: "requires authentication credentials (set TF_TOKEN_127_0_0_1:",
			environ: func(*privateRegistry, string) []string { return nil }},
		{name: "without a token", want: 1, wantErr: "401 Unauthorized",
			environ: func(*privateRegistry, string) []string { return nil }},
		{name: "TF_TOKEN_ variable", environ: func(reg *privateRegistry, _ string) []string {
			return []string{hostcreds.EnvName(reg.host()) + "=" + registryToken}
		}},
		{name: "credentials block in TF_CLI_CONFIG_FILE", environ: func(reg *privateRegistry, home string) []string {
			rc := filepath.Join(home, "ci.tfrc")
			os.WriteFile(rc, []byte("credentials \""+reg.host()+"\" {\n  token = \""+registryToken+"\"\n}\n"), 0o600)
			return []string{"TF_CLI_CONFIG_FILE=" + rc}
		}},
		{name: "credentials block in ~/.terraformrc", environ: func(reg *privateRegistry, home string) []string {
			os.WriteFile(filepath.Join(home, ".terraformrc"), []byte("credentials \""+reg.host()+"\" {\n  token = \""+registryToken+"\"\n}\n"), 0o600)
			return nil
		}},
		{name: "a wrong variable hides the right file", want: 1, wantErr: "401 Unauthorized",
			environ: func(reg *privateRegistry, home string) []string {
				os.WriteFile(filepath.Join(home, ".terraformrc"), []byte("credentials \""+reg.host()+"\" {\n  token = \""+registryToken+"\"\n}\n"), 0o600)
				return []string{hostcreds.EnvName(reg.host()) + "=wrong-token-value"}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newPrivateRegistry(t)
			dir, home := t.TempDir(), t.TempDir()
			main := "terraform {\n  required_providers {\n    fake = {\n      source = \"" + reg.host() + "/kyku/fake\"\n      version = \"1.0.0\"\n    }\n  }\n}\n" +
				"provider \"fake\" {}\n"
			if tc.command == "" {
				main += "module \"net\" {\n  source = \"" + reg.host() + "/kyku/net/test\"\n  version = \"1.0.0\"\n}\n"
			}
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o644); err != nil {
				t.Fatal(err)
			}
			environ := append([]string{"HOME=" + home}, tc.environ(reg, home)...)
			vars := map[string]string{}
			for _, kv := range environ {
				k, v, _ := strings.Cut(kv, "=")
				vars[k] = v
			}
			var out, errOut bytes.Buffer
			command := "init"
			if tc.command != "" {
				command = tc.command
			}
			args := append(strings.Fields(command), "-c", dir, "--state-dir", filepath.Join(dir, ".kyku"))
			code := cli.Run(t.Context(), args, cli.Env{
				Stdout: &out, Stderr: &errOut,
				Getenv:          func(k string) string { return vars[k] },
				Environ:         func() []string { return environ },
				ModulesHTTP:     reg.srv.Client(),
				ProvidersHTTP:   reg.srv.Client(),
				VerifySignature: pgpverify.Verify,
				Hostname:        "testhost", PID: 4242,
			})
			if code != tc.want || !strings.Contains(errOut.String(), tc.wantErr) {
				t.Fatalf("kyku init: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tc.want, tc.wantErr, out.String(), errOut.String())
			}
			written := out.String() + errOut.String()
			for _, name := range []string{".terraform.lock.hcl", ".terraform/modules/modules.json"} {
				b, _ := os.ReadFile(filepath.Join(dir, name))
				written += string(b)
			}
			if strings.Contains(written, registryToken) || strings.Contains(written, "wrong-token-value") {
				t.Errorf("a token shows in the output, the lock file or the manifest:\n%s", written)
			}
			if tc.want != 0 {
				return
			}
			if !strings.Contains(out.String(), "- fake: "+reg.host()+"/kyku/fake 1.0.0") {
				t.Errorf("the provider is not installed:\n%s", out.String())
			}
			if _, err := os.Stat(filepath.Join(dir, ".terraform/modules/net/main.tf")); err != nil {
				t.Errorf("the module is not installed: %v", err)
			}
			reg.mu.Lock()
			defer reg.mu.Unlock()
			if len(reg.refused) > 0 {
				t.Errorf("requests went without the token: %v", reg.refused)
			}
		})
	}
}
