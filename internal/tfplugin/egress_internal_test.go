package tfplugin

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// TestEgressRefusesDeniedAddresses: the proxy connects for CONNECT
// tunnels and absolute http:// requests to what is allowed, and answers
// 403 for a denied address, also when a name resolves to it; any other
// request is refused.
func TestEgressRefusesDeniedAddresses(t *testing.T) {
	// Allowed: 127.0.0.2; denied: 127.0.0.1 and ::1, where localhost is.
	allowed := serveOn(t, "127.0.0.2:0", false, "allowed")
	allowedTLS := serveOn(t, "127.0.0.2:0", true, "allowed over tls")
	denied, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deniedSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "metadata") })}
	go func() { _ = deniedSrv.Serve(denied) }()
	defer deniedSrv.Close()
	_, deniedPort, _ := net.SplitHostPort(denied.Addr().String())

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := serveEgress(l, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")})
	defer e.close()
	proxy, _ := url.Parse("http://" + l.Addr().String())
	client := &http.Client{Transport: &http.Transport{
		Proxy:           func(*http.Request) (*url.URL, error) { return proxy, nil },
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test server's own certificate
	}}
	defer client.CloseIdleConnections()
	for _, tc := range []struct {
		url, want string
	}{
		{allowed, "200 allowed"},
		{allowedTLS, "200 allowed over tls"},
		{"http://" + denied.Addr().String() + "/latest/meta-data/", "403 kyku's provider sandbox does not connect to 127.0.0.1 (in 127.0.0.1/32, denied)"},
		{"https://" + denied.Addr().String() + "/", "Forbidden"},
		{"http://[::ffff:127.0.0.1]:" + deniedPort + "/", "403 kyku's provider sandbox does not connect to 127.0.0.1"},
		{"http://localhost:" + deniedPort + "/", "403 kyku's provider sandbox does not connect to"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			got := fetchVia(client, tc.url)
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	// A request that is neither a tunnel nor an absolute URL.
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "GET /latest/meta-data/ HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an origin-form request: %v %v", resp, err)
	}
}

// serveOn serves body on addr, over TLS when tls is set; it returns the
// URL.
func serveOn(t *testing.T, addr string, tls bool, body string) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) }))
	srv.Listener = l
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv.URL
}

func fetchVia(c *http.Client, u string) string {
	resp, err := c.Get(u)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
}

// TestDefaultDenyHoldsTheMetadataAddresses: the clouds' metadata services
// and the host's own addresses are denied by default, in every spelling;
// other addresses are not. With metadata granted, only the host's are.
func TestDefaultDenyHoldsTheMetadataAddresses(t *testing.T) {
	for addr, want := range map[string]bool{
		"169.254.169.254": true, "169.254.170.2": true, "::ffff:169.254.169.254": true, "64:ff9b::a9fe:a9fe": true,
		"fd00:ec2::254": true, "fe80::1": true, "100.100.100.200": true,
		"127.0.0.1": true, "127.0.0.53": true, "::1": true, "0.0.0.0": true, "::": true, "::ffff:127.0.0.1": true,
		"8.8.8.8": false, "10.0.0.1": false, "2600::1": false, "fd00:ec2::253": false, "100.100.100.199": false,
	} {
		a := netip.MustParseAddr(addr)
		if got := deniedBy(a, DefaultDeny()) != nil; got != want {
			t.Errorf("%s denied: %v, want %v", addr, got, want)
		}
		if got := deniedBy(a, HostNets()) != nil; got != (want && a.Unmap().IsLoopback() || a.Unmap().IsUnspecified()) {
			t.Errorf("%s denied with metadata granted: %v", addr, got)
		}
	}
}
