package tfplugin

import (
	"bytes"
	"encoding/binary"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeeperFrames: what Kyku and its keeper write is read back as it
// was, a message's bytes as they are (not base64'd: a frame is the
// message and a few bytes more), an empty answer told from none; a frame
// cut short or with bytes past its fields is refused.
func TestKeeperFrames(t *testing.T) {
	body := bytes.Repeat([]byte{0, 0xff, '"'}, 1000)
	tests := []struct {
		name string
		in   frameMsg
		out  frameMsg
	}{
		{"setup", &keeperSetup{Path: "/p", Dir: "/d", Env: []string{"A=1", "B="}, Cert: []byte{1}, Key: []byte{2, 3}, Version: keeperProtocol}, &keeperSetup{}},
		{"call", &keeperCall{ID: 7, Method: "/tfplugin6.Provider/ApplyResourceChange", Body: body, AnswerTo: "/a/x", Address: "a.b", Type: "t", Note: "n1"}, &keeperCall{}},
		{"answer", &keeperReply{ID: 1 << 40, Body: body}, &keeperReply{}},
		{"empty answer", &keeperReply{ID: 2, Body: []byte{}}, &keeperReply{}},
		{"error", &keeperReply{ID: 3, Code: 14, Message: "gone", Err: "x", NotSent: true}, &keeperReply{}},
		{"handshake", &keeperReply{Handshake: "1|6|unix|/s|grpc|", PID: 42, Version: keeperProtocol}, &keeperReply{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := (&frameWriter{w: &buf}).write(tt.in); err != nil {
				t.Fatal(err)
			}
			if c, ok := tt.in.(*keeperCall); ok && buf.Len() > len(c.Body)+100 {
				t.Errorf("a frame of %d bytes for a message of %d", buf.Len(), len(c.Body))
			}
			frame := bytes.Clone(buf.Bytes())
			if err := readFrame(&buf, tt.out); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.in, tt.out); diff != "" {
				t.Errorf("read back (-wrote +read):\n%s", diff)
			}
			short := bytes.Clone(frame[:len(frame)-1])
			short[3]-- // the length says so: the fields end early
			// A version is the last field, and optional (protocol 1 had
			// none: TestKeeperProtocolOneFrames).
			versioned := frame[len(frame)-1] == keeperProtocol
			if err := readFrame(bytes.NewReader(short), tt.out); err == nil && len(frame) > 5 && !versioned {
				t.Errorf("a frame one byte short was read")
			}
			long := append(bytes.Clone(frame), 0)
			long[3]++
			if err := readFrame(bytes.NewReader(long), tt.out); err == nil {
				t.Errorf("a frame with a byte past its fields was read")
			}
		})
	}
}

// TestKeeperProtocolOneFrames: a setup of protocol 1 (no version) reads
// as version 1; a reply without a version (protocol 1's layout) is what
// a reply of Version 0 writes.
func TestKeeperProtocolOneFrames(t *testing.T) {
	var e frameEnc
	(&keeperSetup{Path: "/p", Cert: []byte{1}, Key: []byte{2}, Version: keeperProtocol}).encode(&e)
	var s keeperSetup
	d := &frameDec{b: e.b[:len(e.b)-1]}
	s.decode(d)
	if d.err != nil || s.Version != 1 || s.Path != "/p" || len(d.b) != 0 {
		t.Errorf("a setup without a version: %+v, %v; want version 1", s, d.err)
	}
	var old, cur frameEnc
	(&keeperReply{Err: "x"}).encode(&old)
	(&keeperReply{Err: "x", Version: keeperProtocol}).encode(&cur)
	if !bytes.Equal(old.b, cur.b[:len(cur.b)-1]) {
		t.Errorf("a reply without a version is not protocol 1's layout: % x, % x", old.b, cur.b)
	}
}

// TestKeeperRefusesSetupOfProtocolOne: a keeper given a setup of another
// protocol (a kyku older than the kyku-engine it runs) launches nothing
// and answers, in the layout that kyku reads, why; it exits with the
// same line in its log.
func TestKeeperRefusesSetupOfProtocolOne(t *testing.T) {
	var e frameEnc
	(&keeperSetup{Path: filepath.Join(t.TempDir(), "provider"), Cert: []byte{1}, Key: []byte{2}, Version: keeperProtocol}).encode(&e)
	body := e.b[:len(e.b)-1] // protocol 1: no version
	in := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	in = append(in, body...)
	var out bytes.Buffer
	err := serveKeeper(bytes.NewReader(in), &out, io.Discard)
	const want = "kyku speaks journal keeper protocol 1, this keeper 3"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("serveKeeper: %v, want %q", err, want)
	}
	frame := out.Bytes()
	var rep keeperReply
	if err := readFrame(bytes.NewReader(frame), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Err, want) || rep.Version != 0 || rep.Handshake != "" {
		t.Errorf("the reply: %+v, want the refusal in protocol 1's layout", rep)
	}
	if frame[len(frame)-1] != 0 { // protocol 1's reply ends with its body's length, 0
		t.Errorf("the reply carries a version protocol 1 does not read: % x", frame)
	}
}
