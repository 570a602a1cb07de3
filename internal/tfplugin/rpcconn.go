package tfplugin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2conn is one HTTP/2 connection to a provider's gRPC server (RFC 9113),
// the client side of what gRPC calls use: streams opened by HEADERS and
// DATA, answers read by one reader goroutine that hands each stream's
// frames to its call (rpcstream.go), flow control both ways. One writer at
// a time (wmu) writes through one bufio.Writer, flushed once per batch of
// frames; the reader only reads, apart from the frames it must answer
// (SETTINGS and PING acknowledgements, window updates). Lock order: wmu,
// then mu; the reader never waits for wmu while it holds mu.
type h2conn struct {
	nc   net.Conn
	done chan struct{}

	wmu  sync.Mutex // the writer: fr's writes, bw, henc and hbuf
	bw   *bufio.Writer
	fr   *http2.Framer
	henc *hpack.Encoder
	hbuf bytes.Buffer

	// The reader's own: the header block being decoded.
	hdec *hpack.Decoder
	hb   headerBlock

	mu          sync.Mutex
	err         error // why the connection failed: every call on it fails with it
	streams     map[uint32]*stream
	nextID      uint32
	active      uint32        // streams counted against maxStreams
	maxStreams  uint32        // the server's SETTINGS_MAX_CONCURRENT_STREAMS
	freed       chan struct{} // closed when a stream slot frees up (nil: nobody waits)
	goingAway   bool          // the server sent GOAWAY: no new streams
	sendWindow  int64         // the server's connection window
	initWindow  int64         // the server's SETTINGS_INITIAL_WINDOW_SIZE
	maxFrame    uint32        // the server's SETTINGS_MAX_FRAME_SIZE
	recvWindow  int64         // what the server may still send on the connection
	recvCredit  uint32        // connection window consumed and not yet given back
	tableLimit  uint32        // the server's SETTINGS_HEADER_TABLE_SIZE, for henc
	tableChange bool

	// drained is set once the server sent GOAWAY and the connection's
	// last stream is done: whoever sees it closes the connection.
	drained atomic.Bool
}

const (
	// streamWindow is the window Kyku gives each stream: an answer
	// larger than it (a big provider's schema) flows as the call
	// consumes it.
	streamWindow = 1 << 20
	// connWindow is the connection's receive window: streams' own
	// windows bound what each may send.
	connWindow = 1 << 30
	// maxHeaderBytes bounds an answer's header (and trailer) list, as
	// HTTP/2 counts it (each field's name and value, plus 32).
	maxHeaderBytes = 1 << 20
	// maxStreamID is the last stream ID a client may use.
	maxStreamID = 1<<31 - 1
	// frameSize is the largest frame Kyku reads (the default, which it
	// does not raise).
	frameSize = 16 << 10
)

// errNotStarted is a call refused before any of its frames was written
// (the server sent GOAWAY or the connection failed): safe to make on
// another connection.
var errNotStarted = errors.New("the call was not sent")

func newH2conn(nc net.Conn) *h2conn {
	cc := &h2conn{
		nc:         nc,
		done:       make(chan struct{}),
		bw:         bufio.NewWriterSize(nc, 32<<10),
		streams:    make(map[uint32]*stream),
		nextID:     1,
		maxStreams: maxStreamID,
		sendWindow: 65535,
		initWindow: 65535,
		maxFrame:   frameSize,
		recvWindow: 65535,
	}
	cc.fr = http2.NewFramer(cc.bw, bufio.NewReaderSize(nc, 32<<10))
	cc.fr.SetReuseFrames()
	cc.fr.SetMaxReadFrameSize(frameSize)
	cc.henc = hpack.NewEncoder(&cc.hbuf)
	cc.hdec = hpack.NewDecoder(4096, cc.field)
	cc.hdec.SetMaxStringLength(maxHeaderBytes)
	return cc
}

// handshake writes the client's preface (the magic, SETTINGS, and the
// connection window raised to connWindow) and reads the server's, which
// starts with its SETTINGS: streams open knowing its limits.
func (cc *h2conn) handshake() error {
	if _, err := cc.bw.WriteString(http2.ClientPreface); err != nil {
		return err
	}
	err := cc.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: streamWindow},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: maxHeaderBytes},
	)
	if err == nil {
		err = cc.fr.WriteWindowUpdate(0, connWindow-65535)
	}
	if err == nil {
		err = cc.bw.Flush()
	}
	if err != nil {
		return err
	}
	cc.recvWindow = connWindow
	f, err := cc.fr.ReadFrame()
	if err != nil {
		return fmt.Errorf("read the server's SETTINGS: %w", err)
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok || sf.IsAck() {
		return fmt.Errorf("the server's preface is %v, not SETTINGS", f.Header().Type)
	}
	return cc.settings(sf)
}

// readLoop reads frames until the connection fails or closes, then fails
// the calls still on it, and calls gone.
func (cc *h2conn) readLoop(gone func()) {
	defer close(cc.done)
	defer gone()
	for {
		f, err := cc.fr.ReadFrame()
		if se, ok := err.(http2.StreamError); ok { // the framer's own, unwrapped
			cc.resetStream(se.StreamID, se.Code, &RPCError{Code: codeInternal, Message: se.Error()})
			continue
		}
		if err == nil {
			err = cc.handle(f)
		}
		if err == nil && cc.drained.Load() {
			err = errors.New("the provider's server sent GOAWAY") // and the calls on it are done
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the provider closed the connection")
			}
			cc.fail(&RPCError{Code: codeUnavailable, Message: "the connection to the provider failed: " + err.Error()})
			return
		}
	}
}

// handle handles one frame from the server.
func (cc *h2conn) handle(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.DataFrame:
		return cc.data(f)
	case *http2.HeadersFrame:
		cc.hb = headerBlock{stream: f.StreamID, end: f.StreamEnded()}
		return cc.headerFragment(f.HeaderBlockFragment(), f.HeadersEnded())
	case *http2.ContinuationFrame:
		return cc.headerFragment(f.HeaderBlockFragment(), f.HeadersEnded())
	case *http2.RSTStreamFrame:
		cc.resetByServer(f.StreamID, f.ErrCode)
	case *http2.SettingsFrame:
		if !f.IsAck() {
			return cc.settings(f)
		}
	case *http2.WindowUpdateFrame:
		return cc.windowUpdate(f.StreamID, f.Increment)
	case *http2.PingFrame:
		if !f.IsAck() {
			return cc.write(func() error { return cc.fr.WritePing(true, f.Data) })
		}
	case *http2.GoAwayFrame:
		cc.goAway(f.LastStreamID, f.ErrCode)
	case *http2.PushPromiseFrame:
		return errors.New("the server pushed a stream, which Kyku disabled")
	}
	return nil // PRIORITY and unknown frames
}

// settings applies the server's SETTINGS and acknowledges them.
func (cc *h2conn) settings(f *http2.SettingsFrame) error {
	cc.mu.Lock()
	err := f.ForeachSetting(func(s http2.Setting) error {
		if err := s.Valid(); err != nil {
			return fmt.Errorf("setting %v: %w", s, err)
		}
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			cc.maxStreams = s.Val
			cc.wakeWaiters()
		case http2.SettingInitialWindowSize:
			// A change applies to every open stream's window (RFC
			// 9113, 6.9.2), which may go negative.
			delta := int64(s.Val) - cc.initWindow
			cc.initWindow = int64(s.Val)
			for _, st := range cc.streams {
				st.sendWindow += delta
				if st.blocked {
					st.signal()
				}
			}
		case http2.SettingMaxFrameSize:
			cc.maxFrame = s.Val
		case http2.SettingHeaderTableSize:
			cc.tableLimit, cc.tableChange = s.Val, true
		}
		return nil
	})
	cc.mu.Unlock()
	if err != nil {
		return err
	}
	return cc.write(func() error {
		cc.mu.Lock()
		limit, change := cc.tableLimit, cc.tableChange
		cc.tableChange = false
		cc.mu.Unlock()
		if change {
			cc.henc.SetMaxDynamicTableSizeLimit(limit)
		}
		return cc.fr.WriteSettingsAck()
	})
}

// windowUpdate adds to the server's window of the connection (id 0) or
// of a stream, and wakes the calls waiting to send.
func (cc *h2conn) windowUpdate(id, inc uint32) error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if id == 0 {
		cc.sendWindow += int64(inc)
		if cc.sendWindow > maxStreamID {
			return errors.New("the server's connection window overflowed")
		}
		for _, s := range cc.streams {
			if s.blocked {
				s.signal()
			}
		}
		return nil
	}
	if s := cc.streams[id]; s != nil {
		s.sendWindow += int64(inc)
		if s.blocked {
			s.signal()
		}
	}
	return nil
}

// goAway stops new streams on the connection and fails those the server
// will not handle (above last); the connection closes once the others
// are done.
func (cc *h2conn) goAway(last uint32, code http2.ErrCode) {
	cc.mu.Lock()
	cc.goingAway = true
	for id, s := range cc.streams {
		if id > last {
			s.fail(&RPCError{Code: codeUnavailable, Message: fmt.Sprintf("the provider's server is going away (GOAWAY %v) and did not take the call", code)})
			cc.drop(s)
		}
	}
	cc.wakeWaiters()
	if len(cc.streams) == 0 {
		cc.drained.Store(true)
	}
	cc.mu.Unlock()
}

// open reports whether the connection takes new streams.
func (cc *h2conn) open() bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.err == nil && !cc.goingAway && cc.nextID <= maxStreamID
}

// wakeWaiters wakes the calls waiting for a stream slot. Under mu.
func (cc *h2conn) wakeWaiters() {
	if cc.freed != nil {
		close(cc.freed)
		cc.freed = nil
	}
}

// drop forgets stream s and frees its slot. Under mu.
func (cc *h2conn) drop(s *stream) {
	if s.dropped {
		return
	}
	s.dropped = true
	delete(cc.streams, s.id)
	cc.active--
	cc.wakeWaiters()
	if cc.goingAway && len(cc.streams) == 0 {
		cc.drained.Store(true)
	}
}

// shut fails the connection with err (an *RPCError: the calls on it
// fail with it), closes it and waits for its reader to stop.
func (cc *h2conn) shut(err error) {
	cc.fail(err)
	<-cc.done
}

// fail fails the connection with err, unless it already failed, and
// closes it (which stops the reader).
func (cc *h2conn) fail(err error) {
	cc.mu.Lock()
	if cc.err == nil {
		cc.err = err
		for _, s := range cc.streams {
			s.signal()
		}
		cc.wakeWaiters()
	}
	cc.mu.Unlock()
	cc.nc.Close()
}

// write runs fn, which writes frames, as the writer, then flushes. A
// failure fails the connection.
func (cc *h2conn) write(fn func() error) error {
	cc.wmu.Lock()
	defer cc.wmu.Unlock()
	err := fn()
	if err == nil {
		err = cc.bw.Flush()
	}
	if err != nil {
		cc.fail(&RPCError{Code: codeUnavailable, Message: "the connection to the provider failed: " + err.Error()})
	}
	return err
}

// resetStream fails stream id with err and resets it with code.
func (cc *h2conn) resetStream(id uint32, code http2.ErrCode, err error) {
	_ = cc.write(func() error { return cc.fr.WriteRSTStream(id, code) })
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if s := cc.streams[id]; s != nil {
		s.fail(err)
		cc.drop(s)
	}
}

// resetByServer ends stream id, which the server reset with code: its
// call fails with the gRPC code gRPC maps code to, unless the answer
// was complete.
func (cc *h2conn) resetByServer(id uint32, code http2.ErrCode) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	s := cc.streams[id]
	if s == nil {
		return
	}
	if !s.ended {
		s.fail(&RPCError{Code: resetCode(code), Message: "stream terminated by RST_STREAM with error code: " + code.String()})
	}
	cc.drop(s)
}

// resetCode is the gRPC code of a stream the server reset with code
// (gRPC's http2ErrConvTab).
func resetCode(code http2.ErrCode) int {
	switch code {
	case http2.ErrCodeNo, http2.ErrCodeProtocol, http2.ErrCodeInternal, http2.ErrCodeSettingsTimeout,
		http2.ErrCodeStreamClosed, http2.ErrCodeFrameSize, http2.ErrCodeCompression, http2.ErrCodeConnect,
		http2.ErrCodeHTTP11Required:
		return codeInternal
	case http2.ErrCodeFlowControl, http2.ErrCodeEnhanceYourCalm:
		return 8 // ResourceExhausted
	case http2.ErrCodeRefusedStream:
		return codeUnavailable
	case http2.ErrCodeCancel:
		return codeCanceled
	case http2.ErrCodeInadequateSecurity:
		return 7 // PermissionDenied
	}
	return 2 // Unknown
}
