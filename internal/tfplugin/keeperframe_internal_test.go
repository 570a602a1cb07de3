package tfplugin

import (
	"bytes"
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
		{"setup", &keeperSetup{Path: "/p", Dir: "/d", Env: []string{"A=1", "B="}, Cert: []byte{1}, Key: []byte{2, 3}}, &keeperSetup{}},
		{"call", &keeperCall{ID: 7, Method: "/tfplugin6.Provider/ApplyResourceChange", Body: body, AnswerTo: "/a/x", Address: "a.b", Type: "t"}, &keeperCall{}},
		{"answer", &keeperReply{ID: 1 << 40, Body: body}, &keeperReply{}},
		{"empty answer", &keeperReply{ID: 2, Body: []byte{}}, &keeperReply{}},
		{"error", &keeperReply{ID: 3, Code: 14, Message: "gone", Err: "x", NotSent: true}, &keeperReply{}},
		{"handshake", &keeperReply{Handshake: "1|6|unix|/s|grpc|", PID: 42}, &keeperReply{}},
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
			if err := readFrame(bytes.NewReader(short), tt.out); err == nil && len(frame) > 5 {
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
