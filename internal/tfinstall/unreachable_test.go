package tfinstall

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

// closedPort is a local address nothing listens at.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// resetting is a local address whose listener accepts every connection,
// reads what the client sends first and resets it: a host reached, that
// does not answer.
func resetting(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			c.Read(make([]byte, 512)) // the TLS client hello: connected
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return l.Addr().String()
}

// noResolver is an HTTP client whose name resolution always fails, as it
// does offline.
func noResolver() *http.Client {
	resolver := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no name server here")
	}}
	dialer := &net.Dialer{Resolver: resolver}
	return &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
}

// TestUnreachableRegistry: a registry that cannot be reached (a name that
// does not resolve, a closed port) is one line naming the provider, the
// host and the mirror setting that installs without it; a registry that
// answers (an error status, a certificate not trusted) is not taken for
// one.
func TestUnreachableRegistry(t *testing.T) {
	reg := newTestRegistry(t)
	port := closedPort(t)
	for _, tc := range []struct {
		name   string
		host   string
		client *http.Client
		want   string // the whole message, "" for an error that is no UnreachableError
	}{
		{name: "a name that does not resolve", host: "registry.example.invalid", client: noResolver(),
			want: `provider registry.example.invalid/kyku/fake: registry.example.invalid cannot be reached (its name does not resolve); to install it without the network, set KYKU_PLUGIN_MIRROR (or --plugin-mirror) to a mirror directory, filled where the registry can be reached with "kyku providers mirror DIR"`},
		{name: "a closed port", host: port, client: &http.Client{},
			want: `provider ` + port + `/kyku/fake: ` + port + ` cannot be reached (nothing answers at its address); to install it without the network, set KYKU_PLUGIN_MIRROR (or --plugin-mirror) to a mirror directory, filled where the registry can be reached with "kyku providers mirror DIR"`},
		{name: "a registry that answers not found", host: reg.host(), client: reg.srv.Client()},
		{name: "a certificate not trusted", host: reg.host(), client: &http.Client{}},
		{name: "a host that resets the connection", host: resetting(t), client: &http.Client{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &Installer{CacheDir: t.TempDir(), Registry: &Registry{Client: tc.client}, Platform: testPlatform}
			_, err := in.Install(t.Context(), []Requirement{{Source: Source{tc.host, "kyku", "fake"}}}, &Lock{}, false)
			var ue *UnreachableError
			if tc.want == "" {
				if err == nil || errors.As(err, &ue) {
					t.Fatalf("Install: %v, want an error that is no UnreachableError", err)
				}
				return
			}
			if !errors.As(err, &ue) || err.Error() != tc.want {
				t.Fatalf("Install: %v\nwant: %s", err, tc.want)
			}
		})
	}
}
