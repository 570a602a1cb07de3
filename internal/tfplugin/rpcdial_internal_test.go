package tfplugin

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// grpcAnswerer answers every call with one empty message and status OK,
// as a provider's gRPC server does, after a pause (so that calls overlap).
func grpcAnswerer(pause time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(pause)
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Trailer", "Grpc-Status")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte{0, 0, 0, 0, 0})
		w.Header().Set("Grpc-Status", "0")
	})
}

// TestCallsMadeWhileConnectingShareOneConnection: calls made together
// before the connection to the provider exists (the stdio stream and the
// first calls, as Start and the engine make them) wait for one
// connection, and one TLS handshake, rather than each dialing its own;
// later calls use it too.
func TestCallsMadeWhileConnectingShareOneConnection(t *testing.T) {
	srv := httptest.NewUnstartedServer(grpcAnswerer(20 * time.Millisecond))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	var dials atomic.Int32
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		time.Sleep(20 * time.Millisecond) // a handshake takes time: calls queue up meanwhile
		return new(net.Dialer).DialContext(ctx, network, addr)
	}
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	c := dialRPC("tcp", srv.Listener.Addr().String(), &tls.Config{RootCAs: roots, ServerName: "example.com", MinVersion: tls.VersionTLS12}, dial)
	t.Cleanup(c.close)
	for round := range 2 {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				if err := c.invoke(t.Context(), "/plugin.Test/Call", empty{}, discard{}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("16 calls, 8 of them at once before any connection: %d connections dialed, want 1", n)
	}
}

// BenchmarkFirstCallsOfAProvider: a fresh connection's first calls made
// at once (the stdio stream and the schema, as at every provider start),
// against a TLS server with an ECDSA P-256 certificate; dials/op counts
// the TLS handshakes (one, since calls wait for the connection being
// made; two before).
func BenchmarkFirstCallsOfAProvider(b *testing.B) {
	srv := httptest.NewUnstartedServer(grpcAnswerer(time.Millisecond))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	b.Cleanup(srv.Close)
	var dials atomic.Int32
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return new(net.Dialer).DialContext(ctx, network, addr)
	}
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	b.ReportAllocs()
	for b.Loop() {
		c := dialRPC("tcp", srv.Listener.Addr().String(), &tls.Config{RootCAs: roots, ServerName: "example.com", MinVersion: tls.VersionTLS12}, dial)
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				if err := c.invoke(b.Context(), "/plugin.Test/Call", empty{}, discard{}); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		c.close()
	}
	b.ReportMetric(float64(dials.Load())/float64(b.N), "dials/op")
}
