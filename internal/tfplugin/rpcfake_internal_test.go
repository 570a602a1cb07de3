package tfplugin

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2fake is an HTTP/2 server at the frame level, for what a real server
// does not do on demand (reset a stream, send GOAWAY, change its settings
// mid-call, drop the connection): each connection sends settings as its
// SETTINGS, then runs serve.
type h2fake struct {
	ln    net.Listener
	conns atomic.Int32
	wg    sync.WaitGroup
}

// newH2fake starts a fake server and returns a client of it.
func newH2fake(t *testing.T, settings []http2.Setting, serve func(sc *fakeConn)) (*rpcConn, *h2fake) {
	t.Helper()
	cert, _, err := clientCert()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	f := &h2fake{ln: ln}
	f.wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			f.conns.Add(1)
			f.wg.Go(func() {
				defer nc.Close()
				sc := &fakeConn{t: t, nc: nc, fr: http2.NewFramer(nc, nc)}
				sc.fr.SetMaxReadFrameSize(16 << 10) // SETTINGS_MAX_FRAME_SIZE's default, which settings does not change
				sc.henc = hpack.NewEncoder(&sc.hbuf)
				sc.hdec = hpack.NewDecoder(4096, nil)
				preface := make([]byte, len(http2.ClientPreface))
				if _, err := io.ReadFull(nc, preface); err != nil || string(preface) != http2.ClientPreface {
					t.Errorf("client preface %q: %v", preface, err)
					return
				}
				if err := sc.fr.WriteSettings(settings...); err != nil {
					return
				}
				serve(sc)
			})
		}
	})
	c := dialRPC("tcp", ln.Addr().String(), providerTLS(cert, leaf), nil)
	t.Cleanup(func() {
		c.close()
		ln.Close()
		f.wg.Wait()
	})
	return c, f
}

// fakeConn is one connection of an h2fake.
type fakeConn struct {
	t    *testing.T
	nc   net.Conn
	fr   *http2.Framer
	henc *hpack.Encoder
	hbuf bytes.Buffer
	hdec *hpack.Decoder

	resets []http2.RSTStreamFrame // the client's, in order
}

// request is a call as the server read it.
type request struct {
	id   uint32
	path string
	body []byte // the message, prefix removed
}

// next reads frames until a request is complete, answering the client's
// SETTINGS and recording its resets; io.EOF once the client is gone.
func (sc *fakeConn) next() (request, error) {
	open := map[uint32]*request{}
	for {
		f, err := sc.fr.ReadFrame()
		if err != nil {
			return request{}, err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if err := sc.fr.WriteSettingsAck(); err != nil {
					return request{}, err
				}
			}
		case *http2.RSTStreamFrame:
			sc.resets = append(sc.resets, *f)
		case *http2.HeadersFrame:
			if !f.HeadersEnded() {
				return request{}, errors.New("the client's headers need CONTINUATION: not expected")
			}
			fields, err := sc.hdec.DecodeFull(f.HeaderBlockFragment())
			if err != nil {
				return request{}, err
			}
			r := &request{id: f.StreamID}
			for _, hf := range fields {
				if hf.Name == ":path" {
					r.path = hf.Value
				}
			}
			open[f.StreamID] = r
		case *http2.DataFrame:
			r := open[f.StreamID]
			if r == nil {
				return request{}, fmt.Errorf("DATA on stream %d, which has no headers", f.StreamID)
			}
			r.body = append(r.body, f.Data()...)
			if f.StreamEnded() {
				if len(r.body) < 5 || int(binary.BigEndian.Uint32(r.body[1:5])) != len(r.body)-5 {
					return request{}, fmt.Errorf("stream %d: malformed message of %d bytes", f.StreamID, len(r.body))
				}
				r.body = r.body[5:]
				return *r, nil
			}
		}
	}
}

// headers writes a header block of name, value pairs on stream id.
func (sc *fakeConn) headers(id uint32, end bool, kv ...string) error {
	sc.hbuf.Reset()
	for i := 0; i < len(kv); i += 2 {
		if err := sc.henc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]}); err != nil {
			return err
		}
	}
	block := sc.hbuf.Bytes()
	first := block[:min(len(block), 16<<10)]
	err := sc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: end, EndHeaders: len(first) == len(block)})
	for block = block[len(first):]; err == nil && len(block) > 0; {
		n := min(len(block), 16<<10)
		err = sc.fr.WriteContinuation(id, n == len(block), block[:n])
		block = block[n:]
	}
	return err
}

// answer answers stream id with msgs and status OK.
func (sc *fakeConn) answer(id uint32, msgs ...[]byte) error {
	if err := sc.headers(id, false, ":status", "200", "content-type", "application/grpc"); err != nil {
		return err
	}
	for _, m := range msgs {
		if err := sc.fr.WriteData(id, false, framed(m)); err != nil {
			return err
		}
	}
	return sc.headers(id, true, "grpc-status", "0")
}

// framed is msg with its gRPC prefix.
func framed(msg []byte) []byte {
	b := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
	return append(b, msg...)
}

// serveAll answers every call with its own request, until the client
// is gone.
func serveAll(sc *fakeConn) {
	for {
		r, err := sc.next()
		if err != nil {
			return
		}
		if sc.answer(r.id, r.body) != nil {
			return
		}
	}
}

// echo is a call's request and answer: raw bytes.
func echo(t *testing.T, c *rpcConn, msg []byte) ([]byte, error) {
	t.Helper()
	var got []byte
	err := c.invoke(callContext(t), "/plugin.Test/Echo", rawMessage(msg), decodeFunc(func(b []byte) error {
		got = b
		return nil
	}))
	return got, err
}

// callContext bounds a test's call: a client waiting for what will not
// come fails the test rather than hanging it.
func callContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// decodeFunc is a decoder from a function.
type decodeFunc func([]byte) error

func (f decodeFunc) decode(b []byte) error { return f(b) }

// noGoroutinesLeft fails t when, at its end (once every cleanup
// registered after this ran), more goroutines run than now.
func noGoroutinesLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
