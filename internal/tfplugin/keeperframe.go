package tfplugin

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Kyku and its journal keeper (keeper.go) speak over the keeper's
// standard input and output in frames: a 4-byte big-endian length and
// that many bytes of JSON. Kyku sends one keeperSetup, then keeperCalls;
// the keeper answers with one keeperReply carrying the provider's
// handshake, then one keeperReply per call, in the order they finish.

// keeperSetup says how the keeper launches the provider: what Start
// would run itself. Cert and Key are Kyku's client certificate (DER)
// and its key (PKCS #8), which the provider trusts alone: the keeper
// dials it with them.
type keeperSetup struct {
	Path string   `json:"path"`
	Dir  string   `json:"dir,omitempty"`
	Env  []string `json:"env"`
	Cert []byte   `json:"cert"`
	Key  []byte   `json:"key"`
}

// keeperCall is one gRPC call the keeper makes for Kyku: Body is the
// request message. With AnswerTo set, the answer is written there
// (state.Answer of Address and Type), durably, before it is forwarded.
type keeperCall struct {
	ID       uint64 `json:"id"`
	Method   string `json:"method"`
	Body     []byte `json:"body"`
	AnswerTo string `json:"answerTo,omitempty"`
	Address  string `json:"address,omitempty"`
	Type     string `json:"type,omitempty"`
}

// keeperReply is the handshake (the provider's line and process ID) or
// the outcome of call ID: the answer's message and gRPC status, or Err
// when the keeper could not make the call or keep its answer.
type keeperReply struct {
	ID        uint64 `json:"id,omitempty"`
	Handshake string `json:"handshake,omitempty"`
	PID       int    `json:"pid,omitempty"`
	Body      []byte `json:"body,omitempty"`
	Code      int    `json:"code,omitempty"`
	Message   string `json:"message,omitempty"`
	Err       string `json:"err,omitempty"`
}

// maxFrame bounds a frame: a message and its envelope.
const maxFrame = maxMessage + 1<<20

// frameWriter writes whole frames, one at a time.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (f *frameWriter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode a keeper frame: %w", err)
	}
	buf := make([]byte, 4, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(len(b)))
	buf = append(buf, b...)
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err = f.w.Write(buf)
	return err
}

// readFrame reads one frame into v; io.EOF at a clean end.
func readFrame(r io.Reader, v any) error {
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
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode a keeper frame: %w", err)
	}
	return nil
}

// rawMessage is a request already encoded.
type rawMessage []byte

func (m rawMessage) appendTo(b []byte) []byte { return append(b, m...) }
