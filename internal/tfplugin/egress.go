package tfplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// egress is the HTTP proxy a provider with a network of its own reaches
// the world through (NetworkProxied): it listens inside the provider's
// network namespace and connects from Kyku's, for CONNECT tunnels (https)
// and absolute http:// requests, to any address but the ones denied.
// The check is made on the address each connection is opened to, after
// name resolution, so no name (nor a name that changes its answer) leads
// to a denied address.
type egress struct {
	srv  *http.Server
	tr   *http.Transport
	done chan struct{}

	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup // the tunnels
}

// DeniedError is a connection the proxy refused: Addr is in Net.
type DeniedError struct {
	Addr netip.Addr
	Net  netip.Prefix
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("kyku's provider sandbox does not connect to %s (in %s, denied)", e.Addr, e.Net)
}

// serveEgress serves the proxy on l until close.
func serveEgress(l net.Listener, deny []netip.Prefix) *egress {
	e := &egress{done: make(chan struct{}), tunnels: map[net.Conn]struct{}{}}
	dialer := &net.Dialer{Timeout: 30 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return err
		}
		return deniedBy(ap.Addr(), deny)
	}}
	e.tr = &http.Transport{DialContext: dialer.DialContext, Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}
	forward := &httputil.ReverseProxy{
		Rewrite:      func(r *httputil.ProxyRequest) { r.Out.Host = r.In.Host },
		Transport:    e.tr,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) { refuse(w, err) },
	}
	e.srv = &http.Server{
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodConnect:
				e.tunnel(w, r, dialer)
			case r.URL.IsAbs() && r.URL.Scheme == "http":
				forward.ServeHTTP(w, r)
			default:
				http.Error(w, "kyku's provider sandbox proxies CONNECT and http:// requests only", http.StatusBadRequest)
			}
		}),
	}
	go func() {
		defer close(e.done)
		_ = e.srv.Serve(l)
	}()
	return e
}

// deniedBy is the error of a connection to a, when deny holds it (an IPv6
// form of an IPv4 address counts as that address).
func deniedBy(a netip.Addr, deny []netip.Prefix) error {
	a = a.Unmap()
	for _, p := range deny {
		if p.Contains(a) {
			return &DeniedError{Addr: a, Net: p}
		}
	}
	return nil
}

// refuse answers a connection that could not be made: 403 when denied.
func refuse(w http.ResponseWriter, err error) {
	var d *DeniedError
	if errors.As(err, &d) {
		http.Error(w, d.Error(), http.StatusForbidden)
		return
	}
	http.Error(w, "kyku's provider sandbox: "+err.Error(), http.StatusBadGateway)
}

// tunnel connects to r's host:port and relays bytes both ways.
func (e *egress) tunnel(w http.ResponseWriter, r *http.Request, dialer *net.Dialer) {
	up, err := dialer.DialContext(r.Context(), "tcp", r.Host)
	if err != nil {
		refuse(w, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "kyku's provider sandbox: no tunnel over this connection", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !e.track(down, up) {
		return
	}
	defer e.wg.Done()
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		e.untrack(down, up)
		return
	}
	var both sync.WaitGroup
	both.Add(2)
	relay := func(dst net.Conn, src io.Reader) {
		defer both.Done()
		_, _ = io.Copy(dst, src)
		// One way ended: the other cannot go on meaningfully.
		_ = dst.Close()
		_ = down.Close()
	}
	go relay(up, buf)
	go relay(down, up)
	both.Wait()
	e.untrack(down, up)
}

// track registers a tunnel's two connections, for close, which waits for
// it (wg.Done once it ended); false (and both closed) once the proxy is
// closing.
func (e *egress) track(cs ...net.Conn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		e.tunnels[c] = struct{}{}
	}
	e.wg.Add(1)
	return true
}

func (e *egress) untrack(cs ...net.Conn) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(e.tunnels, c)
	}
}

// close stops the proxy: its listener, every request and tunnel.
func (e *egress) close() {
	e.mu.Lock()
	e.closed = true
	for c := range e.tunnels {
		c.Close()
	}
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		_ = e.srv.Close()
	}
	<-e.done
	e.wg.Wait()
	e.tr.CloseIdleConnections()
}
