package workspace_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/workspace"
)

// TestOpenTerraformGCSEndpointAndToken: OpenTofu's gcs access_token and
// storage_custom_endpoint, in the block or from the variables OpenTofu
// falls back on (GOOGLE_OAUTH_ACCESS_TOKEN,
// GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT, GOOGLE_STORAGE_CUSTOM_ENDPOINT):
// the state's lock goes to that endpoint with the token as its bearer
// token, with no Google credentials linked (Settings.Google nil) and no
// STORAGE_EMULATOR_HOST.
func TestOpenTerraformGCSEndpointAndToken(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	emu, err := url.Parse("http://" + srv.Host)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(emu)
	var tokens atomic.Value
	tokens.Store("")
	psc := httptest.NewServer(http.StripPrefix("/psc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tokens.Store(r.Header.Get("Authorization"))
		proxy.ServeHTTP(w, r)
	})))
	t.Cleanup(psc.Close)
	endpoint := psc.URL + "/psc/storage/v1/b"
	for _, tt := range []struct {
		name string
		args map[string]any
		env  map[string]string
	}{
		{"in the block", map[string]any{"access_token": "ya29.block", "storage_custom_endpoint": endpoint}, nil},
		{"from GOOGLE_OAUTH_ACCESS_TOKEN and GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT", nil,
			map[string]string{"GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.env", "GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT": endpoint, "GOOGLE_STORAGE_CUSTOM_ENDPOINT": "https://elsewhere.example/storage/v1/b"}},
		{"from GOOGLE_STORAGE_CUSTOM_ENDPOINT", map[string]any{"access_token": "ya29.other"}, map[string]string{"GOOGLE_STORAGE_CUSTOM_ENDPOINT": endpoint}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"bucket": bucket, "prefix": "net"}
			for k, v := range tt.args {
				args[k] = v
			}
			ts := &workspace.TerraformState{Type: "gcs", Dir: t.TempDir(), Args: args}
			getenv := func(k string) string { return tt.env[k] }
			b, err := workspace.OpenTerraformBackend(t.Context(), ts, workspace.Settings{Getenv: getenv, LockTimeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			l, err := b.Lock(t.Context(), statemgr.LockInfo{Operation: "plan"})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Unlock(t.Context()); err != nil {
				t.Fatal(err)
			}
			want := "Bearer " + tt.env["GOOGLE_OAUTH_ACCESS_TOKEN"]
			if tok, _ := tt.args["access_token"].(string); tok != "" {
				want = "Bearer " + tok
			}
			if got := tokens.Load().(string); got != want {
				t.Errorf("the endpoint was sent %q, want %q", got, want)
			}
		})
	}
}

// TestOpenTerraformGCSRefuses: OpenTofu's gcs arguments and variables
// Kyku does not read are refused in one line saying what to do instead;
// a bad storage_custom_endpoint is named. The token is in no error.
func TestOpenTerraformGCSRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		args map[string]any
		env  map[string]string
		want string
	}{
		{"delegates", map[string]any{"impersonate_service_account_delegates": []any{"a@x.iam.gserviceaccount.com"}}, nil, "impersonate_service_account_delegates: impersonation is not supported"},
		{"a universe", map[string]any{"universe_domain": "example.eu"}, nil, "universe_domain: a universe other than googleapis.com is not supported"},
		{"impersonation from the environment", nil, map[string]string{"GOOGLE_IMPERSONATE_SERVICE_ACCOUNT": "sa@x.iam.gserviceaccount.com"}, "GOOGLE_IMPERSONATE_SERVICE_ACCOUNT (impersonate_service_account): impersonation is not supported"},
		{"a key from the environment", nil, map[string]string{"GOOGLE_ENCRYPTION_KEY": "a2V5"}, "GOOGLE_ENCRYPTION_KEY (encryption_key): a customer-supplied encryption key is not supported"},
		{"an endpoint that is not the JSON API's", map[string]any{"access_token": "ya29.secret", "storage_custom_endpoint": "https://psc.example/"}, nil, `storage_custom_endpoint "https://psc.example/" does not end in the JSON API's path`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"bucket": "b", "prefix": "net"}
			for k, v := range tt.args {
				args[k] = v
			}
			ts := &workspace.TerraformState{Type: "gcs", Dir: t.TempDir(), Where: "main.tf:2:3", Args: args}
			_, err := workspace.OpenTerraformBackend(t.Context(), ts, workspace.Settings{Getenv: func(k string) string { return tt.env[k] }})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), `main.tf:2:3: backend "gcs": `) ||
				strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "ya29") {
				t.Errorf("got %v, want one line with %q", err, tt.want)
			}
		})
	}
}
