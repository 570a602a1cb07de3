package gcs_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// TestAPIRoot: storage_custom_endpoint as OpenTofu's documentation gives
// it (…/storage/v1/b) or as the client library's endpoints are written
// (…/storage/v1/), with a path in front kept; anything else refused.
func TestAPIRoot(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"", "", ""},
		{"https://storage-xyz.p.googleapis.com/storage/v1/b", "https://storage-xyz.p.googleapis.com", ""},
		{"https://storage-xyz.p.googleapis.com/storage/v1/", "https://storage-xyz.p.googleapis.com", ""},
		{"http://127.0.0.1:4443/psc/storage/v1", "http://127.0.0.1:4443/psc", ""},
		{"https://storage.example", "", "does not end in the JSON API's path"},
		{"storage.example/storage/v1/b", "", "is not an http(s) URL"},
		{"https://u:p@storage.example/storage/v1/b", "", "is not an http(s) URL"},
	} {
		got, err := gcs.APIRoot(tt.in)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("APIRoot(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestTerraformEndpointAndToken: with Options.Endpoint (OpenTofu's
// storage_custom_endpoint, here a proxy to the emulator under a base
// path, as a Private Service Connect endpoint is another host) and
// Options.AccessToken (access_token), every request goes to that
// endpoint with the token as its bearer token, and the state and its
// lock are where OpenTofu's are; no STORAGE_EMULATOR_HOST is read. The
// token is in no error.
func TestTerraformEndpointAndToken(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	const token = "ya29.secret-token"
	emu, err := url.Parse("http://" + srv.Host)
	if err != nil {
		t.Fatal(err)
	}
	var seen, unauthorized atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(emu)
	psc := httptest.NewServer(http.StripPrefix("/psc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+token {
			unauthorized.Add(1)
			http.Error(w, `{"error":{"message":"no bearer token"}}`, http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	})))
	t.Cleanup(psc.Close)
	opts := gcs.Options{
		Endpoint: psc.URL + "/psc/storage/v1/b", AccessToken: token,
		Getenv: func(k string) string { t.Errorf("read %s", k); return "" },
	}
	ctx := t.Context()
	b, err := gcs.NewTerraform(ctx, gcs.TerraformConfig{Bucket: bucket, Prefix: "net"}, "", tflayout.Options{LockTimeout: -1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := srv.Get(ctx, bucket, "net/default.tflock"); err != nil {
		t.Errorf("no lock object where OpenTofu looks for it: %v", err)
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if seen.Load() == 0 || unauthorized.Load() != 0 {
		t.Errorf("%d requests through the endpoint, %d without the token", seen.Load(), unauthorized.Load())
	}

	opts.AccessToken = "ya29.wrong-token"
	b, err = gcs.NewTerraform(ctx, gcs.TerraformConfig{Bucket: bucket, Prefix: "net"}, "", tflayout.Options{LockTimeout: -1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply"}); err == nil || strings.Contains(err.Error(), "token") && strings.Contains(err.Error(), "ya29") {
		t.Errorf("lock with a wrong token: %v, want an error without the token", err)
	}
}
