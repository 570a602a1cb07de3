package tfplugin

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
)

// Kyku speaks gRPC to a provider itself, over net/http's HTTP/2 client:
// the protocol's calls are unary (and go-plugin's stdio stream is one
// server stream), which is a POST of one length-prefixed message and a
// grpc-status trailer (the gRPC over HTTP/2 specification,
// github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). The gRPC
// library is not linked: its tracing package registers HTML templates
// whose reflection keeps every exported method of every linked type in
// the binary (70 MB more, and about 25 MB more memory at every start of
// every Kyku command, whether it drives a provider or not).

// gRPC status codes Kyku tells apart (google.golang.org/grpc/codes).
const (
	codeOK          = 0
	codeCanceled    = 1
	codeInternal    = 13
	codeUnavailable = 14
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

// rpcConn is the HTTP/2 connection to one provider's gRPC server.
type rpcConn struct {
	tr *http.Transport
}

// dialRPC prepares the connection to the server at network/addr (the
// handshake's), over TLS with cfg; the first call dials, with dial when
// set (a sandboxed provider's own network).
func dialRPC(network, addr string, cfg *tls.Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *rpcConn {
	if dial == nil {
		dial = new(net.Dialer).DialContext
	}
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"}
	protocols := new(http.Protocols)
	protocols.SetHTTP2(true)
	tr := &http.Transport{
		DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			raw, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			c := tls.Client(raw, cfg)
			if err := c.HandshakeContext(ctx); err != nil {
				raw.Close()
				return nil, err
			}
			if p := c.ConnectionState().NegotiatedProtocol; p != "h2" {
				c.Close()
				return nil, fmt.Errorf("the provider's server negotiated %q, not HTTP/2", p)
			}
			return c, nil
		},
		ForceAttemptHTTP2: true,
		Protocols:         protocols,
		// One dial at a time (for HTTP/2 this bounds the connections
		// being made, not those in use): the calls made while the first
		// connection is being set up (the stdio stream, the schema) wait
		// for it and share it, rather than each dialing, and paying for,
		// a TLS handshake of its own.
		MaxConnsPerHost: 1,
		// The protocol's headers are small; answers are bounded below.
		MaxResponseHeaderBytes: 1 << 20,
	}
	return &rpcConn{tr: tr}
}

func (c *rpcConn) close() { c.tr.CloseIdleConnections() }

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
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://localhost"+method, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header = http.Header{"Content-Type": {"application/grpc"}, "Te": {"trailers"}}
	hresp, err := c.tr.RoundTrip(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return &RPCError{Code: codeUnavailable, Message: err.Error()}
	}
	defer hresp.Body.Close()
	if hresp.StatusCode != http.StatusOK {
		return &RPCError{Code: httpCode(hresp.StatusCode), Message: "HTTP status " + hresp.Status}
	}
	if err := status(hresp.Header); err != nil || hresp.Header.Get("Grpc-Status") != "" {
		return err // a "trailers-only" answer: an error before any message
	}
	for {
		msg, err := readMessage(hresp.Body)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return &RPCError{Code: codeUnavailable, Message: err.Error()}
		}
		if err := each(msg); err != nil {
			return err
		}
	}
	if hresp.Trailer.Get("Grpc-Status") == "" {
		return &RPCError{Code: codeInternal, Message: "the answer ended without a grpc-status"}
	}
	return status(hresp.Trailer)
}

// readMessage reads one length-prefixed message; io.EOF at a clean end.
func readMessage(r io.Reader) ([]byte, error) {
	var prefix [5]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("the answer ended inside a message's prefix")
		}
		return nil, err
	}
	if prefix[0] != 0 {
		return nil, errors.New("the provider sent a compressed message, which Kyku did not ask for")
	}
	n := binary.BigEndian.Uint32(prefix[1:])
	if n > maxMessage {
		return nil, fmt.Errorf("the provider sent a message of %d bytes, more than %d", n, maxMessage)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, fmt.Errorf("the answer ended inside a message: %w", err)
	}
	return msg, nil
}

// status is the call's status in h (its headers or trailers): nil for OK.
func status(h http.Header) error {
	s := h.Get("Grpc-Status")
	if s == "" || s == "0" {
		return nil
	}
	code, err := strconv.Atoi(s)
	if err != nil {
		return &RPCError{Code: codeInternal, Message: "malformed grpc-status " + strconv.Quote(s)}
	}
	msg := h.Get("Grpc-Message")
	if m, err := url.PathUnescape(msg); err == nil { // percent-encoded, as the specification says
		msg = m
	}
	return &RPCError{Code: code, Message: msg}
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
