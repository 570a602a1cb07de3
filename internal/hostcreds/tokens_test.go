package hostcreds

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenFromEnvironment(t *testing.T) {
	environ := []string{
		"TF_TOKEN_registry_example_com=dots",
		"TF_TOKEN_my__registry_example_com=dashes",
		"TF_TOKEN_café_example=unicode",
		"TF_TOKEN_xn____bcher__kva_example=punycode-encoded",
		"TF_TOKEN_localhost:8443=port",
		"TF_TOKEN_default_example:443=default-port",
		"TF_TOKEN_UPPER_Example_COM=upper",
		"TF_TOKEN_=empty-host",
		"NOT_TF_TOKEN_other_example=no",
	}
	tokens := New(Sources{Environ: environ})
	for _, tc := range []struct{ host, want string }{
		{"registry.example.com", "dots"},
		{"my-registry.example.com", "dashes"},
		{"café.example", "unicode"},
		{"xn--caf-dma.example", "unicode"},
		{"bücher.example", "punycode-encoded"},
		{"localhost:8443", "port"},
		{"localhost", ""},
		{"default.example", "default-port"},
		{"default.example:443", "default-port"},
		{"upper.example.com", "upper"},
		{"other.example", ""},
		{"registry.example.com.evil.example", ""},
	} {
		t.Run(tc.host, func(t *testing.T) {
			if got := tokens.Token(tc.host); got != tc.want {
				t.Errorf("Token(%q) = %q, want %q", tc.host, got, tc.want)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	for host, want := range map[string]string{
		"app.terraform.io":         "TF_TOKEN_app_terraform_io",
		"my-registry.example.com":  "TF_TOKEN_my__registry_example_com",
		"café.example":             "TF_TOKEN_xn____caf__dma_example",
		"registry.example.com:443": "TF_TOKEN_registry_example_com",
	} {
		got := EnvName(host)
		if got != want {
			t.Errorf("EnvName(%q) = %q, want %q", host, got, want)
		}
		if tok := New(Sources{Environ: []string{got + "=x"}}).Token(host); tok != "x" {
			t.Errorf("the variable %s does not give %s its token", got, host)
		}
	}
}

// home writes files under a fresh home directory and returns it.
func home(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func block(host, token string) string {
	return "credentials \"" + host + "\" {\n  token = \"" + token + "\"\n}\n"
}

func TestTokenFromCLIConfiguration(t *testing.T) {
	const host = "registry.example.com"
	for _, tc := range []struct {
		name    string
		files   map[string]string
		vars    map[string]string // HOME is the home directory unless set; "~" in a value is it
		environ []string
		goos    string
		want    string
		warn    []string
	}{
		{name: "terraformrc", files: map[string]string{".terraformrc": block(host, "legacy")}, want: "legacy"},
		{name: "tofurc before terraformrc", files: map[string]string{".terraformrc": block(host, "legacy"), ".tofurc": block(host, "new")}, want: "new"},
		{name: "the configuration directory over the main file", files: map[string]string{
			".tofurc":                            block(host, "main"),
			".terraform.d/a.tfrc":                block(host, "dir-a"),
			".terraform.d/credentials.tfrc.json": `{"credentials": {"registry.example.com": {"token": "dir-json"}}}`,
		}, want: "dir-json"},
		{name: "TF_CLI_CONFIG_FILE alone", files: map[string]string{
			"elsewhere/kyku.rc":   block(host, "override"),
			".tofurc":             block(host, "main"),
			".terraform.d/a.tfrc": block(host, "dir"),
		}, vars: map[string]string{"TF_CLI_CONFIG_FILE": "~/elsewhere/kyku.rc"}, want: "override"},
		{name: "TERRAFORM_CONFIG", files: map[string]string{"x.rc": block(host, "old-override"), ".tofurc": block(host, "main")},
			vars: map[string]string{"TERRAFORM_CONFIG": "~/x.rc"}, want: "old-override"},
		{name: "a missing TF_CLI_CONFIG_FILE is said and nothing read", files: map[string]string{".tofurc": block(host, "main")},
			vars: map[string]string{"TF_CLI_CONFIG_FILE": "~/missing.rc"},
			warn: []string{"the CLI configuration file ~/missing.rc (TF_CLI_CONFIG_FILE) does not exist; no registry credentials are read from it"}},
		{name: "the environment over the file", files: map[string]string{".tofurc": block(host, "file")},
			environ: []string{"TF_TOKEN_registry_example_com=env"}, want: "env"},
		{name: "another host's variable does not hide the file", files: map[string]string{".tofurc": block(host, "file")},
			environ: []string{"TF_TOKEN_other_example_com=env"}, want: "file"},
		{name: "XDG", files: map[string]string{"xdg/opentofu/tofurc": block(host, "xdg")},
			vars: map[string]string{"XDG_CONFIG_HOME": "~/xdg"}, want: "xdg"},
		{name: "Windows", files: map[string]string{"appdata/terraform.rc": block(host, "windows")},
			vars: map[string]string{"APPDATA": "~/appdata"}, goos: "windows", want: "windows"},
		{name: "other blocks are OpenTofu's", files: map[string]string{".tofurc": "plugin_cache_dir = \"/tmp/x\"\nprovider_installation {\n  direct {}\n}\n" + block(host, "mixed")},
			want: "mixed"},
		{name: "a block without token", files: map[string]string{".tofurc": "credentials \"registry.example.com\" {\n}\n"}},
		{name: "a file that does not parse", files: map[string]string{".tofurc": "credentials \"registry.example.com\" {\n  token = \"s3cr3t\n}\n"},
			warn: []string{"CLI configuration: ~/.tofurc:2: Invalid multi-line string; its registry credentials are not read",
				"CLI configuration: ~/.tofurc:3: Invalid multi-line string; its registry credentials are not read",
				"CLI configuration: ~/.tofurc:2: Unterminated template string; its registry credentials are not read"}},
		{name: "a punycode host in a block is refused", files: map[string]string{".tofurc": block("xn--caf-dma.example", "p")},
			warn: []string{"CLI configuration: ~/.tofurc:1: Invalid credentials host; its registry credentials are not read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := home(t, tc.files)
			vars := map[string]string{"HOME": h}
			for k, v := range tc.vars {
				vars[k] = strings.ReplaceAll(v, "~", h)
			}
			var warned []string
			tokens := New(Sources{Environ: tc.environ, Getenv: getenv(vars), GOOS: tc.goos, Warn: func(s string) {
				warned = append(warned, strings.ReplaceAll(s, h, "~"))
			}})
			if got := tokens.Token(host); got != tc.want {
				t.Errorf("Token = %q, want %q", got, tc.want)
			}
			if diff := cmp.Diff(tc.warn, warned); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			for _, w := range warned {
				if strings.Contains(w, "s3cr3t") {
					t.Errorf("a warning shows the token: %s", w)
				}
			}
		})
	}
}

func TestAuthorizeOnlyTheHostItself(t *testing.T) {
	tokens := New(Sources{Environ: []string{"TF_TOKEN_registry_example_com=tok", "TF_TOKEN_localhost:8443=local"}})
	for _, tc := range []struct {
		url, host, want string
	}{
		{"https://registry.example.com/.well-known/terraform.json", "registry.example.com", "Bearer tok"},
		{"https://REGISTRY.example.com:443/v1/", "registry.example.com", "Bearer tok"},
		{"https://other.example.com/v1/", "registry.example.com", ""},
		{"https://sub.registry.example.com/v1/", "registry.example.com", ""},
		{"https://registry.example.com.evil.example/v1/", "registry.example.com", ""},
		{"https://registry.example.com:8443/v1/", "registry.example.com", ""},
		{"https://localhost:8443/x", "localhost:8443", "Bearer local"},
		{"https://localhost/x", "localhost:8443", ""},
		{"https://unknown.example/x", "unknown.example", ""},
	} {
		t.Run(tc.url, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			added := tokens.Authorize(req, tc.host)
			if got := req.Header.Get("Authorization"); got != tc.want || added != (tc.want != "") {
				t.Errorf("Authorization = %q (added %v), want %q", got, added, tc.want)
			}
		})
	}
	var none *Tokens
	if none.Token("registry.example.com") != "" {
		t.Error("nil Tokens has a token")
	}
}
