package tfinstall

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRegistryRedirects: the registry's API answers only from its own
// host and over https; the files its answer names may be redirected to
// another https host (as GitHub's release assets are), never to http.
// The other host and the plain-http server serve the registry's own
// routes, so a client that followed the redirect would install.
func TestRegistryRedirects(t *testing.T) {
	const (
		versions = "/base/v1/providers/kyku/fake/versions"
		download = "/base/v1/providers/kyku/fake/1.0.0/download/" // + os/arch
		files    = "/base/files/kyku/fake/1.0.0/"
	)
	archive := files + fileName("fake", "1.0.0", testPlatform.String())
	answer := download + testPlatform.OS + "/" + testPlatform.Arch
	for _, tc := range []struct {
		name string
		path string // redirected
		to   string // "https-other", "http", "https-same"
		want string // "" to install
	}{
		{"service discovery to http", "/.well-known/terraform.json", "http", "speaks only https"},
		{"service discovery to another host", "/.well-known/terraform.json", "https-other", "another host"},
		{"the versions list to http", versions, "http", "speaks only https"},
		{"the versions list to another host", versions, "https-other", "another host"},
		{"the download answer to another host", answer, "https-other", "another host"},
		{"SHA256SUMS to http", files + "SHA256SUMS", "http", "speaks only https"},
		{"its signature to http", files + "SHA256SUMS.sig", "http", "speaks only https"},
		{"the archive to http", archive, "http", "speaks only https"},
		{"the versions list on its own host", versions, "https-same", ""},
		{"the archive to another https host", archive, "https-other", ""},
		{"SHA256SUMS to another https host", files + "SHA256SUMS", "https-other", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newTestRegistry(t)
			reg.publish(t, "kyku", "fake", "1.0.0", fakePackage("fake", "1.0.0"))
			other := httptest.NewTLSServer(reg.srv.Config.Handler)
			t.Cleanup(other.Close)
			plain := httptest.NewServer(reg.srv.Config.Handler)
			t.Cleanup(plain.Close)
			to := map[string]string{"https-other": other.URL, "http": plain.URL, "https-same": reg.srv.URL}[tc.to]
			reg.redirects = map[string]string{tc.path: to}

			cache := t.TempDir()
			in := &Installer{CacheDir: cache, Registry: reg.client(), Platform: testPlatform}
			lock := &Lock{}
			got, err := in.Install(t.Context(), []Requirement{{Source: reg.source("kyku", "fake")}}, lock, false)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Install: %v, want the package", err)
				}
				if got[0].Version != "1.0.0" {
					t.Errorf("installed %+v", got[0])
				}
				return
			}
			if !errors.Is(err, ErrRedirectRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Install: %v, want a refused redirect (%q)", err, tc.want)
			}
			if len(lock.Providers) != 0 {
				t.Errorf("the provider was locked: %+v", lock.Providers)
			}
		})
	}
}
