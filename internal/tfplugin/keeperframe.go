package tfplugin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Kyku and its journal keeper (keeper.go) speak over the keeper's
// standard input and output in frames: a 4-byte big-endian length and
// that many bytes of fields, each a uvarint (a number) or a uvarint
// length and that many bytes (bytes, a string), in the order the frame's
// type lists them. A provider's message goes as it is, neither quoted nor
// base64'd: a frame is at most a message and its small envelope. Kyku
// sends one keeperSetup, then keeperCalls; the keeper answers with one
// keeperReply carrying the provider's handshake, then one keeperReply per
// call, in the order they finish.
//
// The setup and the handshake's reply carry keeperProtocol, the layout
// of these frames: a keeper refuses a setup of another (a kyku-engine
// replaced while kyku ran starts keepers of the new one), answering in
// the layout its Kyku reads, and Kyku launches the provider without a
// keeper when its keeper speaks another or does not answer (launch.go).

// keeperProtocol is the frames' layout: 1 had no version in the setup
// nor the handshake's reply (a keeper of 1 refuses a setup of 2, its
// Version a field past the ones it knows); 2 had no Note in a call.
const keeperProtocol = 3

// keeperSetup says how the keeper launches the provider: what Start
// would run itself. Cert and Key are Kyku's client certificate (DER)
// and its key (PKCS #8), which the provider trusts alone: the keeper
// dials it with them.
type keeperSetup struct {
	Path string
	Dir  string
	Env  []string
	Cert []byte
	Key  []byte
	// Version is the sender's keeperProtocol (1: none sent).
	Version uint64
}

func (s *keeperSetup) encode(e *frameEnc) {
	e.str(s.Path)
	e.str(s.Dir)
	e.uvarint(uint64(len(s.Env)))
	for _, kv := range s.Env {
		e.str(kv)
	}
	e.bytes(s.Cert)
	e.bytes(s.Key)
	e.uvarint(s.Version)
}

func (s *keeperSetup) decode(d *frameDec) {
	s.Path, s.Dir = d.str(), d.str()
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail() // more strings than bytes left
		return
	}
	s.Env = make([]string, 0, min(n, 256)) // n is the sender's word: grown as read
	for range n {
		s.Env = append(s.Env, d.str())
	}
	s.Cert, s.Key = d.bytes(), d.bytes()
	s.Version = 1
	if len(d.b) > 0 {
		s.Version = d.uvarint()
	}
}

// keeperCall is one gRPC call the keeper makes for Kyku: Body is the
// request message. With AnswerTo set, the answer is written there
// (state.Answer of Address and Type), durably, before it is forwarded,
// if the note there is Note's (state.Answer.Note, as Kyku read it when
// it sent the call).
type keeperCall struct {
	ID       uint64
	Method   string
	Body     []byte
	AnswerTo string
	Address  string
	Type     string
	Note     string
}

func (c *keeperCall) encode(e *frameEnc) {
	e.uvarint(c.ID)
	e.str(c.Method)
	e.str(c.AnswerTo)
	e.str(c.Address)
	e.str(c.Type)
	e.str(c.Note)
	e.bytes(c.Body)
}

func (c *keeperCall) decode(d *frameDec) {
	c.ID, c.Method, c.AnswerTo, c.Address, c.Type, c.Note = d.uvarint(), d.str(), d.str(), d.str(), d.str(), d.str()
	c.Body = d.bytes()
}

// keeperReply is the handshake (the provider's line and process ID) or
// the outcome of call ID: the answer's message (Body, nil when there is
// none) and gRPC status, or Err when the keeper could not make the call
// or keep its answer; NotSent when it did not ask the provider at all.
// Version, the keeper's keeperProtocol, is in the handshake's reply
// (0: not sent, the layout of protocol 1).
type keeperReply struct {
	ID        uint64
	Handshake string
	PID       int
	Body      []byte
	Code      int
	Message   string
	Err       string
	NotSent   bool
	Version   uint64
}

func (r *keeperReply) encode(e *frameEnc) {
	e.uvarint(r.ID)
	e.str(r.Handshake)
	e.uvarint(uint64(r.PID))
	e.uvarint(uint64(r.Code))
	e.str(r.Message)
	e.str(r.Err)
	e.flag(r.NotSent)
	e.flag(r.Body != nil)
	e.bytes(r.Body)
	if r.Version != 0 {
		e.uvarint(r.Version)
	}
}

func (r *keeperReply) decode(d *frameDec) {
	r.ID, r.Handshake, r.PID, r.Code = d.uvarint(), d.str(), int(d.uvarint()), int(d.uvarint())
	r.Message, r.Err, r.NotSent = d.str(), d.str(), d.flag()
	hasBody, body := d.flag(), d.bytes()
	if hasBody && body == nil {
		body = []byte{} // an empty message: an answer still
	}
	if hasBody {
		r.Body = body
	}
	if len(d.b) > 0 {
		// Sent only when not 0 (encode): a 0 is a byte too many.
		if r.Version = d.uvarint(); r.Version == 0 && d.err == nil {
			d.err = errors.New("a keeper reply with version 0")
		}
	}
}

// maxFrame bounds a frame: a message and its envelope (a setup's
// environment included).
const maxFrame = maxMessage + 1<<20

// frameEnc builds a frame's fields.
type frameEnc struct{ b []byte }

func (e *frameEnc) uvarint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }
func (e *frameEnc) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *frameEnc) bytes(b []byte)   { e.uvarint(uint64(len(b))); e.b = append(e.b, b...) }
func (e *frameEnc) flag(v bool) {
	if v {
		e.uvarint(1)
		return
	}
	e.uvarint(0)
}

// frameDec reads a frame's fields; the first one missing or too long
// sets err, and every later read returns zero.
type frameDec struct {
	b   []byte
	err error
}

func (d *frameDec) fail() {
	if d.err == nil {
		d.err = errors.New("a keeper frame ends inside a field")
	}
	d.b = nil
}

func (d *frameDec) uvarint() uint64 {
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return n
}

// bytes is the next field, sharing the frame's memory; nil when empty.
func (d *frameDec) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	if n == 0 {
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}

func (d *frameDec) str() string { return string(d.bytes()) }
func (d *frameDec) flag() bool  { return d.uvarint() == 1 }

// frameMsg is what goes in a frame.
type frameMsg interface {
	encode(*frameEnc)
	decode(*frameDec)
}

// frameWriter writes whole frames, one at a time.
type frameWriter struct {
	mu  sync.Mutex
	w   io.Writer
	enc frameEnc // reused, under mu
}

func (f *frameWriter) write(m frameMsg) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enc.b = append(f.enc.b[:0], 0, 0, 0, 0)
	m.encode(&f.enc)
	size := len(f.enc.b) - 4
	if size > maxFrame {
		return fmt.Errorf("a keeper frame of %d bytes, more than %d", size, maxFrame)
	}
	binary.BigEndian.PutUint32(f.enc.b, uint32(size))
	_, err := f.w.Write(f.enc.b)
	if cap(f.enc.b) > 1<<20 {
		f.enc.b = nil // a large message's buffer is not kept
	}
	return err
}

// readFrame reads one frame into m; io.EOF at a clean end.
func readFrame(r io.Reader, m frameMsg) error {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("a keeper frame ended inside its length")
		}
		return err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxFrame {
		return fmt.Errorf("a keeper frame of %d bytes, more than %d", size, maxFrame)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("a keeper frame ended early: %w", err)
	}
	d := &frameDec{b: b}
	m.decode(d)
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("a keeper frame has %d bytes past its fields", len(d.b))
	}
	if d.err != nil {
		return fmt.Errorf("decode a keeper frame: %w", d.err)
	}
	return nil
}

// rawMessage is a request already encoded.
type rawMessage []byte

func (m rawMessage) appendTo(b []byte) []byte { return append(b, m...) }
