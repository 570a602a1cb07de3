package tfplugin

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Kyku speaks gRPC to a provider itself, over an HTTP/2 client of its own
// (rpcconn.go, rpcstream.go: net/http's cost a goroutine, a body pipe and
// header maps per call, most of a tenth of Kyku's CPU in a large apply): the
// protocol's calls are unary (and go-plugin's stdio stream is one server
// stream), which is a POST of one length-prefixed message and a
// grpc-status trailer (the gRPC over HTTP/2 specification,
// github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). The gRPC
// library is not linked: its tracing package registers HTML templates
// whose reflection keeps every exported method of every linked type in
// the binary (70 MB more, and about 25 MB more memory at every start of
// every Kyku command, whether it drives a provider or not).

// gRPC status codes Kyku tells apart (google.golang.org/grpc/codes).
const (
	codeOK            = 0
	codeCanceled      = 1
	codeUnimplemented = 12
	codeInternal      = 13
	codeUnavailable   = 14
)

// codeNames are the names gRPC gives its codes, for messages.
var codeNames = [...]string{"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound",
	"AlreadyExists", "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
	"Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated"}

// RPCError is a call the provider's gRPC server (or the connection to it)
// failed, with its gRPC status.
type RPCError struct {
	Code    int
	Message string
}

func (e *RPCError) Error() string {
	name := "Code(" + strconv.Itoa(e.Code) + ")"
	if e.Code >= 0 && e.Code < len(codeNames) {
		name = codeNames[e.Code]
	}
	return fmt.Sprintf("rpc error: code = %s desc = %s", name, e.Message)
}

// rpcCode is err's gRPC code (Unknown, 2, for an error that has none).
func rpcCode(err error) int {
	var e *RPCError
	if errors.As(err, &e) {
		return e.Code
	}
	return 2
}

// rpcConn is the gRPC client of one provider: one HTTP/2 connection
// (rpcconn.go), dialed at the first call and again after the server sent
// GOAWAY or the connection failed.
type rpcConn struct {
	network, addr string
	cfg           *tls.Config
	dial          func(ctx context.Context, network, addr string) (net.Conn, error)

	mu      sync.Mutex
	cur     *h2conn    // the connection new calls use
	live    []*h2conn  // every connection whose reader runs (cur, and those draining after GOAWAY)
	dialing *dialQueue // the dial under way
	closed  bool
}

// dialQueue is a dial under way: the calls arriving meanwhile wait for it
// and share its connection rather than each dialing, and paying for, a
// TLS handshake of its own (the stdio stream and the first calls, as at
// every provider start).
type dialQueue struct {
	done      chan struct{}
	err       error // the dial's error, nil once it succeeded
	cancelled bool  // it failed because its caller gave up: the others dial again
}

// errClosed is a call made once the provider's connection was closed.
var errClosed = &RPCError{Code: codeUnavailable, Message: "the connection to the provider is closed"}

// dialRPC prepares the connection to the server at network/addr (the
// handshake's), over TLS with cfg; the first call dials, with dial when
// set (a sandboxed provider's own network).
func dialRPC(network, addr string, cfg *tls.Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *rpcConn {
	if dial == nil {
		dial = new(net.Dialer).DialContext
	}
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"}
	return &rpcConn{network: network, addr: addr, cfg: cfg, dial: dial}
}

// close ends the connections: calls still in flight fail (Unavailable),
// as do later ones. It returns once their readers have stopped.
func (c *rpcConn) close() {
	c.mu.Lock()
	c.closed = true
	live := c.live
	c.live, c.cur = nil, nil
	c.mu.Unlock()
	for _, cc := range live {
		cc.shut(errClosed)
	}
}

// conn is the connection a new call uses, dialed when there is none (or
// it can take no more streams); calls arriving while it is dialed wait.
func (c *rpcConn) conn(ctx context.Context) (*h2conn, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, errClosed
		}
		if cc := c.cur; cc != nil && cc.open() {
			c.mu.Unlock()
			return cc, nil
		}
		if q := c.dialing; q != nil {
			c.mu.Unlock()
			select {
			case <-q.done:
				if q.err != nil && !q.cancelled {
					return nil, q.err
				}
				continue
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		q := &dialQueue{done: make(chan struct{})}
		c.dialing = q
		c.mu.Unlock()

		cc, err := c.connect(ctx)
		c.mu.Lock()
		c.dialing = nil
		if err == nil && c.closed {
			err = errClosed
		}
		if err == nil {
			c.cur = cc
			c.live = append(c.live, cc)
		}
		q.err, q.cancelled = err, ctx.Err() != nil
		close(q.done)
		c.mu.Unlock()
		if err != nil {
			if cc != nil {
				cc.shut(errClosed)
			}
			return nil, err
		}
		return cc, nil
	}
}

// connect dials the server, makes the TLS handshake (which must choose
// HTTP/2) and exchanges the HTTP/2 prefaces, then starts the
// connection's reader.
func (c *rpcConn) connect(ctx context.Context) (*h2conn, error) {
	failed := func(err error) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return &RPCError{Code: codeUnavailable, Message: err.Error()}
	}
	raw, err := c.dial(ctx, c.network, c.addr)
	if err != nil {
		return nil, failed(err)
	}
	tc := tls.Client(raw, c.cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, failed(err)
	}
	if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
		tc.Close()
		return nil, failed(fmt.Errorf("the provider's server negotiated %q, not HTTP/2", p))
	}
	cc := newH2conn(tc)
	// The prefaces are read and written under ctx: a server that never
	// answers fails the dial when the call gives up.
	stop := context.AfterFunc(ctx, func() { _ = tc.SetDeadline(longAgo) })
	err = cc.handshake()
	if !stop() {
		err = context.Cause(ctx)
	}
	if err != nil {
		tc.Close()
		return nil, failed(fmt.Errorf("start HTTP/2 with the provider: %w", err))
	}
	go cc.readLoop(func() { c.forget(cc) })
	return cc, nil
}

// longAgo is a deadline in the past: it ends the I/O under way at once.
var longAgo = time.Unix(1, 0)

// forget drops cc, whose reader has stopped.
func (c *rpcConn) forget(cc *h2conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == cc {
		c.cur = nil
	}
	c.live = slices.DeleteFunc(c.live, func(x *h2conn) bool { return x == cc })
}

// invoke makes the unary call method with req and decodes the one answer
// into resp.
func (c *rpcConn) invoke(ctx context.Context, method string, req message, resp decoder) error {
	var got bool
	err := c.call(ctx, method, req, func(b []byte) error {
		if got {
			return &RPCError{Code: codeInternal, Message: "more than one answer to a unary call"}
		}
		got = true
		return resp.decode(b)
	})
	if err == nil && !got {
		return &RPCError{Code: codeInternal, Message: "no answer to a unary call"}
	}
	return err
}

// call posts req to method and hands each message of the answer to each,
// in order, then returns the call's status: nil for OK, an *RPCError
// otherwise (also for the connection failing: Unavailable), or the error
// of each or of ctx.
func (c *rpcConn) call(ctx context.Context, method string, req message, each func([]byte) error) error {
	body := req.appendTo(make([]byte, 5, 512))
	if len(body)-5 > maxMessage {
		return fmt.Errorf("request of %d bytes is larger than the %d a provider accepts", len(body)-5, maxMessage)
	}
	binary.BigEndian.PutUint32(body[1:5], uint32(len(body)-5)) // body[0] = 0: not compressed
	for attempt := 0; ; attempt++ {
		cc, err := c.conn(ctx)
		if err != nil {
			return err
		}
		s, err := cc.start(ctx, method, body)
		if errors.Is(err, errNotStarted) {
			if attempt < 2 {
				continue // the connection went away before the call was sent: another one
			}
			return &RPCError{Code: codeUnavailable, Message: "the provider's server went away before taking the call, three times"}
		}
		if err != nil {
			return err
		}
		return cc.finish(s, cc.answer(ctx, s, each))
	}
}

// status is the call's status from its grpc-status and grpc-message
// fields (in the answer's headers or trailers): nil for OK.
func status(code, msg string) error {
	if code == "" || code == "0" {
		return nil
	}
	n, err := strconv.Atoi(code)
	if err != nil {
		return &RPCError{Code: codeInternal, Message: "malformed grpc-status " + strconv.Quote(code)}
	}
	if m, err := url.PathUnescape(msg); err == nil { // percent-encoded, as the specification says
		msg = m
	}
	return &RPCError{Code: n, Message: msg}
}

// httpCode is the gRPC code of an HTTP status that is not 200 (the
// specification's mapping).
func httpCode(s int) int {
	switch s {
	case http.StatusBadRequest:
		return codeInternal
	case http.StatusUnauthorized:
		return 16
	case http.StatusForbidden:
		return 7
	case http.StatusNotFound:
		return 12
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return codeUnavailable
	}
	return 2
}
