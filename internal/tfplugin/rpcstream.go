package tfplugin

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// stream is one call on an h2conn: its request (sent by the call's own
// goroutine as the server's windows allow) and its answer (which the
// reader parses into messages as DATA arrives). Fields below mu are the
// connection's mu's.
type stream struct {
	id   uint32
	wake chan struct{} // the reader changed something the call waits for
	rest []byte        // the request not yet sent (the call's own)

	sendWindow int64 // what the server lets the call send
	blocked    bool  // the call waits for the server's window
	sentAll    bool  // END_STREAM sent
	dropped    bool  // off the connection's streams, its slot freed

	headers     bool // the answer's headers arrived
	httpStatus  int
	grpcStatus  string // in the headers: a "trailers-only" answer
	grpcMessage string
	trailers    bool
	trStatus    string
	trMessage   string
	ended       bool  // the server's END_STREAM arrived
	err         error // the answer failed (after the messages in msgs)

	msgs       [][]byte // complete messages the call has not taken
	one        [1][]byte
	queued     int    // their bytes
	recvWindow int64  // what the server may still send
	credit     uint32 // window consumed, to give back
	owed       uint32 // window held back while the call lags behind
	prefix     [5]byte
	prefixN    int
	inMsg      bool
	msg        []byte
	msgN       int
}

// signal wakes the call. Under mu.
func (s *stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// fail fails the answer with err unless it already failed. Under mu.
func (s *stream) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.signal()
}

// start opens a stream for method on the connection once it has a free
// slot (the server's MAX_CONCURRENT_STREAMS), and sends the request's
// HEADERS and as much of body as the server's windows take. An error
// wrapping errNotStarted means nothing was sent.
func (cc *h2conn) start(ctx context.Context, method string, body []byte) (*stream, error) {
	cc.mu.Lock()
	for cc.err == nil && !cc.goingAway && cc.active >= cc.maxStreams {
		if cc.freed == nil {
			cc.freed = make(chan struct{})
		}
		freed := cc.freed
		cc.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		cc.mu.Lock()
	}
	if cc.err != nil || cc.goingAway {
		cc.mu.Unlock()
		return nil, errNotStarted
	}
	cc.active++
	cc.mu.Unlock()

	s := &stream{wake: make(chan struct{}, 1), rest: body, recvWindow: streamWindow}
	s.msgs = s.one[:0]
	cc.wmu.Lock()
	cc.mu.Lock()
	if cc.err != nil || cc.goingAway || cc.nextID > maxStreamID {
		cc.active--
		cc.wakeWaiters()
		cc.mu.Unlock()
		cc.wmu.Unlock()
		return nil, errNotStarted
	}
	s.id = cc.nextID
	cc.nextID += 2
	s.sendWindow = cc.initWindow
	cc.streams[s.id] = s
	maxFrame := int(cc.maxFrame)
	cc.mu.Unlock()

	cc.hbuf.Reset()
	for _, f := range [...]hpack.HeaderField{
		{Name: ":method", Value: "POST"},
		{Name: ":scheme", Value: "https"},
		{Name: ":path", Value: method},
		{Name: ":authority", Value: "localhost"},
		{Name: "content-type", Value: "application/grpc"},
		{Name: "te", Value: "trailers"},
	} {
		_ = cc.henc.WriteField(f) // writes to a bytes.Buffer: no error
	}
	block := cc.hbuf.Bytes()
	first := block[:min(len(block), maxFrame)]
	err := cc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: s.id, BlockFragment: first, EndHeaders: len(first) == len(block)})
	for block = block[len(first):]; err == nil && len(block) > 0; {
		n := min(len(block), maxFrame)
		err = cc.fr.WriteContinuation(s.id, n == len(block), block[:n])
		block = block[n:]
	}
	if err == nil {
		err = cc.sendLocked(s)
	}
	if err == nil {
		err = cc.bw.Flush()
	}
	cc.wmu.Unlock()
	if err != nil {
		err = &RPCError{Code: codeUnavailable, Message: "the connection to the provider failed: " + err.Error()}
		cc.fail(err)
		return nil, cc.finish(s, err)
	}
	return s, nil
}

// sendLocked writes as much of the request's rest as the server's
// windows take, in DATA frames, the last with END_STREAM. Under wmu.
func (cc *h2conn) sendLocked(s *stream) error {
	for len(s.rest) > 0 {
		cc.mu.Lock()
		if s.err != nil || s.ended || cc.err != nil {
			// The server answered (or failed) before reading it all:
			// finish resets the stream.
			s.rest, s.blocked = nil, false
			cc.mu.Unlock()
			return nil
		}
		n := int(min(int64(len(s.rest)), s.sendWindow, cc.sendWindow, int64(cc.maxFrame)))
		if n <= 0 {
			s.blocked = true
			cc.mu.Unlock()
			return nil
		}
		s.blocked = false
		s.sendWindow -= int64(n)
		cc.sendWindow -= int64(n)
		last := n == len(s.rest)
		if last {
			s.sentAll = true
		}
		cc.mu.Unlock()
		if err := cc.fr.WriteData(s.id, last, s.rest[:n]); err != nil {
			return err
		}
		s.rest = s.rest[n:]
	}
	return nil
}

// answer waits for the answer of stream s, sending the rest of its
// request as the server's windows open, and hands each message to each.
func (cc *h2conn) answer(ctx context.Context, s *stream, each func([]byte) error) error {
	for {
		if len(s.rest) > 0 {
			if err := cc.write(func() error { return cc.sendLocked(s) }); err != nil {
				return &RPCError{Code: codeUnavailable, Message: "the connection to the provider failed: " + err.Error()}
			}
		}
		msg, done, err := cc.next(s)
		if done {
			if err != nil && ctx.Err() != nil && rpcCode(err) == codeUnavailable {
				return context.Cause(ctx)
			}
			return err
		}
		if msg != nil {
			if err := each(msg); err != nil {
				return err
			}
			continue
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// next is what the call of s does next: hand on msg, end with err (done),
// or wait (neither).
func (cc *h2conn) next(s *stream) (msg []byte, done bool, err error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if s.headers {
		if s.httpStatus != http.StatusOK {
			return nil, true, &RPCError{Code: httpCode(s.httpStatus), Message: "HTTP status " + strconv.Itoa(s.httpStatus) + " " + http.StatusText(s.httpStatus)}
		}
		if s.grpcStatus != "" {
			return nil, true, status(s.grpcStatus, s.grpcMessage) // a "trailers-only" answer: an error before any message
		}
		if len(s.msgs) > 0 {
			msg = s.msgs[0]
			s.msgs[0] = nil
			s.msgs = s.msgs[1:]
			if len(s.msgs) == 0 {
				s.msgs = s.one[:0]
			}
			s.queued -= 5 + len(msg)
			if s.owed > 0 && s.queued < streamWindow && !s.ended && !s.dropped {
				// The call caught up: the server may send again.
				inc := s.owed + s.credit
				s.owed, s.credit = 0, 0
				s.recvWindow += int64(inc)
				id := s.id
				cc.mu.Unlock()
				err := cc.write(func() error { return cc.fr.WriteWindowUpdate(id, inc) })
				cc.mu.Lock()
				if err != nil {
					return nil, true, cc.err
				}
			}
			return msg, false, nil
		}
	}
	switch {
	case s.err != nil:
		return nil, true, s.err
	case s.ended && !s.trailers:
		return nil, true, &RPCError{Code: codeInternal, Message: "the answer ended without a grpc-status"}
	case s.ended:
		if s.trStatus == "" {
			return nil, true, &RPCError{Code: codeInternal, Message: "the answer ended without a grpc-status"}
		}
		return nil, true, status(s.trStatus, s.trMessage)
	case cc.err != nil:
		return nil, true, cc.err
	}
	return nil, false, nil
}

// finish ends the call of stream s with err: a stream not closed both
// ways is reset (CANCEL), as a call given up is, before its slot is
// freed (the server counts it until it reads the reset).
func (cc *h2conn) finish(s *stream, err error) error {
	cc.mu.Lock()
	reset := !s.dropped && !(s.ended && s.sentAll) && cc.err == nil
	cc.mu.Unlock()
	if reset {
		_ = cc.write(func() error { return cc.fr.WriteRSTStream(s.id, http2.ErrCodeCancel) })
	}
	cc.mu.Lock()
	cc.drop(s)
	cc.mu.Unlock()
	if cc.drained.Load() {
		cc.nc.Close()
	}
	return err
}

// headerBlock is what Kyku reads of a header block being decoded.
type headerBlock struct {
	stream      uint32
	end         bool // the HEADERS frame ended the stream
	size        int
	tooBig      bool
	status      string
	grpcStatus  string
	grpcMessage string
}

// field is the hpack decoder's: one field of the block being decoded.
func (cc *h2conn) field(f hpack.HeaderField) {
	hb := &cc.hb
	if hb.tooBig {
		return
	}
	if hb.size += int(f.Size()); hb.size > maxHeaderBytes {
		hb.tooBig = true
		return
	}
	switch f.Name {
	case ":status":
		if hb.status == "" {
			hb.status = f.Value
		}
	case "grpc-status":
		if hb.grpcStatus == "" {
			hb.grpcStatus = f.Value
		}
	case "grpc-message":
		if hb.grpcMessage == "" {
			hb.grpcMessage = f.Value
		}
	}
}

// headerFragment decodes a fragment of a header block (every block, to
// keep the decoder's table in step with the server's) and, at its end,
// hands the block to its stream.
func (cc *h2conn) headerFragment(frag []byte, end bool) error {
	if _, err := cc.hdec.Write(frag); err != nil {
		return fmt.Errorf("decode the server's headers: %w", err)
	}
	if !end {
		return nil
	}
	if err := cc.hdec.Close(); err != nil {
		return fmt.Errorf("decode the server's headers: %w", err)
	}
	hb := &cc.hb
	cc.mu.Lock()
	defer cc.mu.Unlock()
	s := cc.streams[hb.stream]
	if s == nil || s.err != nil || s.ended {
		return nil // a call given up, or a failed answer
	}
	if err := s.headerBlock(hb); err != nil {
		s.fail(err) // and wakes the call
	}
	if hb.end {
		cc.ended(s) // and wakes the call
	} else if s.headers && (s.httpStatus != http.StatusOK || s.grpcStatus != "") {
		s.signal() // the call ends with these headers
	}
	return nil
}

// headerBlock takes a header block of the answer: its headers, or its
// trailers. Under mu.
func (s *stream) headerBlock(hb *headerBlock) error {
	switch {
	case hb.tooBig:
		return &RPCError{Code: codeUnavailable, Message: fmt.Sprintf("the answer's headers are larger than %d bytes", maxHeaderBytes)}
	case !s.headers:
		code, err := strconv.Atoi(hb.status)
		if err != nil || code < 100 || code > 999 {
			return &RPCError{Code: codeUnavailable, Message: "the answer has a malformed :status " + strconv.Quote(hb.status)}
		}
		if code < 200 && !hb.end {
			return nil // informational: the answer's headers follow
		}
		s.headers, s.httpStatus, s.grpcStatus, s.grpcMessage = true, code, hb.grpcStatus, hb.grpcMessage
	case !hb.end:
		return &RPCError{Code: codeUnavailable, Message: "the answer's trailers did not end it"}
	default:
		s.trailers, s.trStatus, s.trMessage = true, hb.grpcStatus, hb.grpcMessage
	}
	return nil
}

// ended ends the answer of s (END_STREAM). Under mu.
func (cc *h2conn) ended(s *stream) {
	s.ended = true
	switch {
	case s.prefixN > 0:
		s.fail(&RPCError{Code: codeUnavailable, Message: "the answer ended inside a message's prefix"})
	case s.inMsg:
		s.fail(&RPCError{Code: codeUnavailable, Message: "the answer ended inside a message: unexpected EOF"})
	}
	if s.sentAll {
		cc.drop(s)
	}
	s.signal()
}

// data takes a DATA frame: its bytes join its stream's messages, and the
// windows they used are given back as the call takes them.
func (cc *h2conn) data(f *http2.DataFrame) error {
	n := f.Header().Length // padding included: it counts against the windows
	var connInc, streamInc uint32
	cc.mu.Lock()
	if cc.recvWindow -= int64(n); cc.recvWindow < 0 {
		cc.mu.Unlock()
		return errors.New("the server sent more than the connection's window")
	}
	if cc.recvCredit += n; cc.recvCredit >= connWindow/2 {
		connInc, cc.recvCredit = cc.recvCredit, 0
		cc.recvWindow += int64(connInc)
	}
	s := cc.streams[f.StreamID]
	if s != nil && s.err == nil && !s.ended {
		switch {
		case !s.headers:
			s.fail(&RPCError{Code: codeUnavailable, Message: "the answer's DATA came before its headers"})
		case s.recvWindow-int64(n) < 0:
			s.fail(&RPCError{Code: codeUnavailable, Message: "the server sent more than the stream's window"})
		default:
			s.recvWindow -= int64(n)
			had := len(s.msgs)
			s.take(f.Data())
			if f.StreamEnded() {
				cc.ended(s)
				break
			}
			if s.queued >= streamWindow {
				s.owed += n // the call lags: the server waits for it
			} else if s.credit += n; s.credit >= streamWindow/2 {
				streamInc, s.credit = s.credit, 0
				s.recvWindow += int64(streamInc)
			}
			if len(s.msgs) > had {
				s.signal() // a message for the call (a failure signalled already)
			}
		}
	}
	id := f.StreamID
	cc.mu.Unlock()
	if connInc == 0 && streamInc == 0 {
		return nil
	}
	return cc.write(func() error {
		if connInc > 0 {
			if err := cc.fr.WriteWindowUpdate(0, connInc); err != nil {
				return err
			}
		}
		if streamInc > 0 {
			return cc.fr.WriteWindowUpdate(id, streamInc)
		}
		return nil
	})
}

// take adds b, the answer's next bytes, to its messages: each a 5-byte
// prefix (compression flag, length) and the message. Under mu.
func (s *stream) take(b []byte) {
	for len(b) > 0 {
		if !s.inMsg {
			k := copy(s.prefix[s.prefixN:], b)
			s.prefixN += k
			b = b[k:]
			if s.prefixN < len(s.prefix) {
				return
			}
			s.prefixN = 0
			if s.prefix[0] != 0 {
				s.fail(&RPCError{Code: codeUnavailable, Message: "the provider sent a compressed message, which Kyku did not ask for"})
				return
			}
			n := binary.BigEndian.Uint32(s.prefix[1:])
			if n > maxMessage {
				s.fail(&RPCError{Code: codeUnavailable, Message: fmt.Sprintf("the provider sent a message of %d bytes, more than %d", n, maxMessage)})
				return
			}
			s.msg, s.msgN, s.inMsg = make([]byte, n), 0, true
		}
		k := copy(s.msg[s.msgN:], b)
		s.msgN += k
		b = b[k:]
		if s.msgN == len(s.msg) {
			s.msgs = append(s.msgs, s.msg)
			s.queued += 5 + len(s.msg)
			s.msg, s.inMsg = nil, false
		}
	}
}
