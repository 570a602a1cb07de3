package tfplugin

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/http2"
)

// h2server is a real HTTP/2 server (net/http's) with handler, and a
// client of it.
func h2server(t *testing.T, cfg *http.HTTP2Config, handler http.HandlerFunc) *rpcConn {
	t.Helper()
	srv := httptest.NewUnstartedServer(handler)
	srv.EnableHTTP2 = true
	srv.Config.HTTP2 = cfg
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	c := dialRPC("tcp", srv.Listener.Addr().String(), &tls.Config{RootCAs: roots, ServerName: "example.com", MinVersion: tls.VersionTLS12}, nil)
	t.Cleanup(c.close)
	return c
}

// grpcEcho answers a call with its own request, as gRPC frames it.
func grpcEcho(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/grpc")
	w.Header().Set("Trailer", "Grpc-Status")
	_, _ = w.Write(body)
	w.Header().Set("Grpc-Status", "0")
}

// TestCallsWaitForTheServersStreamLimit: calls beyond the server's
// MAX_CONCURRENT_STREAMS wait for a stream to end, and all succeed
// (the server resets streams over its limit).
func TestCallsWaitForTheServersStreamLimit(t *testing.T) {
	noGoroutinesLeft(t)
	var running, most atomic.Int32
	c := h2server(t, &http.HTTP2Config{MaxConcurrentStreams: 2}, func(w http.ResponseWriter, r *http.Request) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond) // so that calls overlap
		grpcEcho(w, r)
	})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			want := []byte{byte(i)}
			got, err := echo(t, c, want)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("call %d: %v, %v, want %v", i, got, err, want)
			}
		})
	}
	wg.Wait()
	if m := most.Load(); m > 2 {
		t.Errorf("%d calls ran at once, more than the server's limit of 2", m)
	}
}

// TestMessagesLargerThanTheWindowsFlowBothWays: a request larger than
// the server's windows (net/http's server gives each stream 1 MiB) and
// an answer larger than Kyku's: both need window updates mid-message.
func TestMessagesLargerThanTheWindowsFlowBothWays(t *testing.T) {
	noGoroutinesLeft(t)
	c := h2server(t, nil, grpcEcho)
	msg := make([]byte, 3<<20+7)
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var got [2][]byte // each call's answer: its own, so the two never write one variable
	var wg sync.WaitGroup
	for i := range got { // two at once: the connection's window is shared
		wg.Go(func() {
			err := c.invoke(ctx, "/plugin.Test/Echo", rawMessage(msg), decodeFunc(func(b []byte) error {
				got[i] = bytes.Clone(b)
				return nil
			}))
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if !bytes.Equal(g, msg) {
			t.Errorf("call %d: answer of %d bytes, want the %d sent", i, len(g), len(msg))
		}
	}
}

// TestServerWindowChangesMidCall: the server's SETTINGS_INITIAL_WINDOW_SIZE
// starts small and grows while a request waits for it; the request
// completes.
func TestServerWindowChangesMidCall(t *testing.T) {
	noGoroutinesLeft(t)
	msg := bytes.Repeat([]byte("kyku"), 50_000) // 200 KB: more than 16 KB and the connection's 64 KB
	c, _ := newH2fake(t, []http2.Setting{{ID: http2.SettingInitialWindowSize, Val: 16 << 10}}, func(sc *fakeConn) {
		var id uint32
		var got int
		for {
			f, err := sc.fr.ReadFrame()
			if err != nil {
				t.Error(err)
				return
			}
			switch f := f.(type) {
			case *http2.HeadersFrame:
				id = f.StreamID
			case *http2.DataFrame:
				got += len(f.Data())
				if f.StreamEnded() {
					_ = sc.answer(id, []byte(strconv.Itoa(got)))
					serveAll(sc)
					return
				}
				if got == 16<<10 {
					// The window is full: the client sends nothing more
					// (its DATA would come before its PING's ack)
					// until the window opens.
					if sc.fr.WritePing(false, [8]byte{1}) != nil {
						return
					}
					for {
						f, err := sc.fr.ReadFrame()
						if err != nil {
							t.Error(err)
							return
						}
						if _, ok := f.(*http2.DataFrame); ok {
							t.Error("the client sent more than its 16 KB window")
						}
						if p, ok := f.(*http2.PingFrame); ok && p.IsAck() {
							break
						}
					}
					if sc.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 20}) != nil ||
						sc.fr.WriteWindowUpdate(0, 1<<20) != nil {
						return
					}
				}
			}
		}
	})
	got, err := echo(t, c, msg)
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(5 + len(msg)); string(got) != want {
		t.Errorf("the server got %s bytes, want %s", got, want)
	}
}

// TestServerResetsAStream: a stream the server resets fails its call with
// the code gRPC maps the reset's to; the connection goes on.
func TestServerResetsAStream(t *testing.T) {
	noGoroutinesLeft(t)
	codes := []http2.ErrCode{http2.ErrCodeCancel, http2.ErrCodeRefusedStream, http2.ErrCodeEnhanceYourCalm, http2.ErrCodeInternal}
	c, f := newH2fake(t, nil, func(sc *fakeConn) {
		for _, code := range codes {
			r, err := sc.next()
			if err != nil || sc.fr.WriteRSTStream(r.id, code) != nil {
				return
			}
		}
		serveAll(sc)
	})
	want := []error{
		&RPCError{Code: codeCanceled, Message: "stream terminated by RST_STREAM with error code: CANCEL"},
		&RPCError{Code: codeUnavailable, Message: "stream terminated by RST_STREAM with error code: REFUSED_STREAM"},
		&RPCError{Code: 8, Message: "stream terminated by RST_STREAM with error code: ENHANCE_YOUR_CALM"},
		&RPCError{Code: codeInternal, Message: "stream terminated by RST_STREAM with error code: INTERNAL_ERROR"},
	}
	for _, w := range want {
		_, err := echo(t, c, []byte("x"))
		if diff := cmp.Diff(w, err); diff != "" {
			t.Errorf("call reset by the server (-want +got):\n%s", diff)
		}
	}
	if got, err := echo(t, c, []byte("after")); err != nil || string(got) != "after" {
		t.Errorf("call after the resets: %q, %v", got, err)
	}
	if n := f.conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// TestGoAway: the server's GOAWAY fails the calls it did not take
// (Unavailable), lets those it took finish, and later calls go on a new
// connection.
func TestGoAway(t *testing.T) {
	noGoroutinesLeft(t)
	c, f := newH2fake(t, nil, func(sc *fakeConn) {
		first, err := sc.next()
		if err != nil {
			return
		}
		if first.path != "/plugin.Test/Two" { // the second connection
			if sc.answer(first.id, first.body) == nil {
				serveAll(sc)
			}
			return
		}
		if _, err := sc.next(); err != nil {
			return
		}
		if sc.fr.WriteGoAway(first.id, http2.ErrCodeNo, nil) != nil || sc.answer(first.id, first.body) != nil {
			return
		}
		_, _ = sc.next() // until the client closes the connection
	})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			errs <- c.invoke(callContext(t), "/plugin.Test/Two", rawMessage("x"), discard{})
		})
	}
	wg.Wait()
	close(errs)
	var ok, unavailable int
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case rpcCode(err) == codeUnavailable && strings.Contains(err.Error(), "GOAWAY"):
			unavailable++
		default:
			t.Errorf("call: %v", err)
		}
	}
	if ok != 1 || unavailable != 1 {
		t.Errorf("%d calls succeeded and %d failed Unavailable, want one each", ok, unavailable)
	}
	if got, err := echo(t, c, []byte("later")); err != nil || string(got) != "later" {
		t.Errorf("call after GOAWAY: %q, %v", got, err)
	}
	if n := f.conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// TestAnswersWithoutMessages: "trailers-only" answers, statuses other
// than 200, headers in CONTINUATION frames, and headers too large.
func TestAnswersWithoutMessages(t *testing.T) {
	long := strings.Repeat("a", 40<<10)
	cases := []struct {
		name string
		kv   []string
		want error
	}{
		{"trailers only", []string{":status", "200", "content-type", "application/grpc", "grpc-status", "5", "grpc-message", "no%20such%20thing"},
			&RPCError{Code: 5, Message: "no such thing"}},
		{"http status", []string{":status", "503"}, &RPCError{Code: codeUnavailable, Message: "HTTP status 503 Service Unavailable"}},
		{"no grpc-status", []string{":status", "200"}, &RPCError{Code: codeInternal, Message: "the answer ended without a grpc-status"}},
		{"malformed grpc-status", []string{":status", "200", "grpc-status", "five"}, &RPCError{Code: codeInternal, Message: `malformed grpc-status "five"`}},
		{"continuation", []string{":status", "200", "grpc-status", "3", "grpc-message", long}, &RPCError{Code: 3, Message: long}},
		{"too large", append([]string{":status", "200", "grpc-status", "3"}, strings.Split(strings.Repeat("x-big,"+long+",", 30), ",")[:60]...),
			&RPCError{Code: codeUnavailable, Message: "the answer's headers are larger than 1048576 bytes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			noGoroutinesLeft(t)
			c, _ := newH2fake(t, nil, func(sc *fakeConn) {
				r, err := sc.next()
				if err != nil || sc.headers(r.id, true, tc.kv...) != nil {
					return
				}
				serveAll(sc)
			})
			_, err := echo(t, c, []byte("x"))
			if diff := cmp.Diff(tc.want, err); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got, err := echo(t, c, []byte("next")); err != nil || string(got) != "next" {
				t.Errorf("next call: %q, %v", got, err)
			}
		})
	}
}

// TestServerStreamDeliversMessagesInOrder: a server stream's messages,
// however the server frames them, reach the call in order, then its
// status.
func TestServerStreamDeliversMessagesInOrder(t *testing.T) {
	noGoroutinesLeft(t)
	c, _ := newH2fake(t, nil, func(sc *fakeConn) {
		r, err := sc.next()
		if err != nil || sc.headers(r.id, false, ":status", "200") != nil {
			return
		}
		var all []byte
		for _, m := range []string{"one", "", "three", "four"} {
			all = append(all, framed([]byte(m))...)
		}
		// A frame ending inside a prefix, one inside a message, one with
		// two messages.
		for _, cut := range [][2]int{{0, 2}, {2, 10}, {10, len(all)}} {
			if sc.fr.WriteData(r.id, false, all[cut[0]:cut[1]]) != nil {
				return
			}
		}
		_ = sc.headers(r.id, true, "grpc-status", "9", "grpc-message", "done")
	})
	var got []string
	err := c.call(callContext(t), "/plugin.Test/Stream", empty{}, func(b []byte) error {
		got = append(got, string(b))
		return nil
	})
	if diff := cmp.Diff([]string{"one", "", "three", "four"}, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(error(&RPCError{Code: 9, Message: "done"}), err); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}

// TestCancelledCallResetsItsStream: a call whose context ends returns its
// cause, resets its stream (CANCEL) and frees its slot for the next call.
func TestCancelledCallResetsItsStream(t *testing.T) {
	noGoroutinesLeft(t)
	resets := make(chan []http2.RSTStreamFrame, 1)
	asked := make(chan struct{})
	c, _ := newH2fake(t, []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 1}}, func(sc *fakeConn) {
		if _, err := sc.next(); err != nil { // the call given up: no answer
			return
		}
		close(asked)
		r, err := sc.next()
		if err != nil {
			return
		}
		resets <- sc.resets
		if sc.answer(r.id, r.body) == nil {
			serveAll(sc)
		}
	})
	cause := errors.New("the user gave up")
	ctx, cancel := context.WithCancelCause(callContext(t))
	go func() {
		<-asked
		cancel(cause)
	}()
	if err := c.invoke(ctx, "/plugin.Test/Slow", empty{}, discard{}); !errors.Is(err, cause) {
		t.Errorf("cancelled call: %v, want %v", err, cause)
	}
	if got, err := echo(t, c, []byte("next")); err != nil || string(got) != "next" {
		t.Errorf("next call: %q, %v", got, err)
	}
	got := <-resets
	if len(got) != 1 || got[0].StreamID != 1 || got[0].ErrCode != http2.ErrCodeCancel {
		t.Errorf("the server saw resets %+v, want CANCEL of stream 1", got)
	}
}

// TestConnectionLostMidCall: a provider gone mid-call (its connection
// closed) fails the call Unavailable at once, and later calls too when
// it cannot be dialed again.
func TestConnectionLostMidCall(t *testing.T) {
	noGoroutinesLeft(t)
	var f *h2fake
	c, f := newH2fake(t, nil, func(sc *fakeConn) {
		if _, err := sc.next(); err == nil {
			f.ln.Close() // the process is gone: nothing listens
			sc.nc.Close()
		}
	})
	start := time.Now()
	err := c.invoke(callContext(t), "/plugin.Test/Call", empty{}, discard{})
	if rpcCode(err) != codeUnavailable {
		t.Errorf("call on a lost connection: %v, want Unavailable", err)
	}
	err = c.invoke(callContext(t), "/plugin.Test/Call", empty{}, discard{})
	if rpcCode(err) != codeUnavailable {
		t.Errorf("later call: %v, want Unavailable", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the calls took %v to fail", d)
	}
}

// TestCallsAfterCloseFail: close ends the connection, and calls in flight
// or made after it fail Unavailable.
func TestCallsAfterCloseFail(t *testing.T) {
	noGoroutinesLeft(t)
	got := make(chan struct{})
	c, _ := newH2fake(t, nil, func(sc *fakeConn) {
		if _, err := sc.next(); err == nil {
			close(got)
			_, _ = sc.next()
		}
	})
	errc := make(chan error, 1)
	go func() { errc <- c.invoke(callContext(t), "/plugin.Test/Call", empty{}, discard{}) }()
	<-got
	c.close()
	if err := <-errc; rpcCode(err) != codeUnavailable {
		t.Errorf("call in flight at close: %v, want Unavailable", err)
	}
	if err := c.invoke(callContext(t), "/plugin.Test/Call", empty{}, discard{}); !errors.Is(err, errClosed) {
		t.Errorf("call after close: %v, want %v", err, errClosed)
	}
}

// TestDialFailuresAreUnavailable: nothing listening, and a server that
// does not choose HTTP/2, fail the call Unavailable, naming why.
func TestDialFailuresAreUnavailable(t *testing.T) {
	noGoroutinesLeft(t)
	cert, _, err := clientCert()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}) // no ALPN
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	defer ln.Close()
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			_ = nc.(*tls.Conn).Handshake()
			nc.Close()
		}
	})
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	for _, tc := range []struct{ name, addr, want string }{
		{"nothing listening", closed.Addr().String(), "connection refused"},
		{"no HTTP/2", ln.Addr().String(), `the provider's server negotiated "", not HTTP/2`},
	} {
		c := dialRPC("tcp", tc.addr, providerTLS(cert, leaf), nil)
		err := c.invoke(callContext(t), "/plugin.Test/Call", empty{}, discard{})
		if rpcCode(err) != codeUnavailable || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want Unavailable saying %q", tc.name, err, tc.want)
		}
		c.close()
	}
}

// TestSlowStreamHoldsTheServerBack: while a server stream's call is busy
// with a message, Kyku takes about a window more of the answer and then
// gives the server no more window; once the call catches up, the server
// may send again, and the stream ends.
func TestSlowStreamHoldsTheServerBack(t *testing.T) {
	noGoroutinesLeft(t)
	const size = 256 << 10 // each message, prefix included
	msg := framed(make([]byte, size-5))
	busy, caughtUp := make(chan struct{}), make(chan struct{})
	var stalledAt int
	c, _ := newH2fake(t, nil, func(sc *fakeConn) {
		r, err := sc.next()
		if err != nil || sc.headers(r.id, false, ":status", "200") != nil {
			return
		}
		window, sent := int64(streamWindow), 0
		// waitWindow reads the client's frames until its PING ack (block:
		// until a window update for the stream), adding its updates.
		waitWindow := func(block bool) error {
			if !block {
				if err := sc.fr.WritePing(false, [8]byte{2}); err != nil {
					return err
				}
			}
			for {
				f, err := sc.fr.ReadFrame()
				if err != nil {
					return err
				}
				switch f := f.(type) {
				case *http2.WindowUpdateFrame:
					if f.StreamID == r.id {
						window += int64(f.Increment)
						if block {
							return nil
						}
					}
				case *http2.PingFrame:
					if f.IsAck() && !block {
						return nil
					}
				}
			}
		}
		for sent < 64*size {
			if window < 16<<10 {
				if err := waitWindow(false); err != nil {
					return
				}
				if window < 16<<10 {
					break // the client gives no more
				}
				continue
			}
			n := int(min(int64(16<<10), window))
			if sc.fr.WriteData(r.id, false, msg[sent%size:sent%size+n]) != nil {
				return
			}
			sent, window = sent+n, window-int64(n)
			if sent == size {
				<-busy // the call has the first message
			}
		}
		stalledAt = sent
		close(caughtUp)
		if waitWindow(true) != nil || sc.headers(r.id, true, "grpc-status", "0") != nil {
			return
		}
	})
	var n int
	err := c.call(callContext(t), "/plugin.Test/Stream", empty{}, func(b []byte) error {
		if n++; n == 1 {
			close(busy)
			<-caughtUp // the server stalled, or sent everything
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the server stalled after %d bytes", stalledAt)
	if stalledAt >= 64*size || stalledAt > 3*streamWindow {
		t.Errorf("the server sent %d bytes while the call was busy with the first message", stalledAt)
	}
	if want := stalledAt / size; n != want {
		t.Errorf("%d messages, want %d", n, want)
	}
}
