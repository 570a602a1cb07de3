package tfplugin

import (
	"bytes"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kyku/action/internal/tfschema"
)

// TestNestedMessageLengths: a nested message's length prefix is right
// whatever its size (one reserved byte, moved when the length needs more).
func TestNestedMessageLengths(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 300, 16383, 16384, 1 << 21} {
		payload := bytes.Repeat([]byte{'x'}, n)
		b := appendString(nil, 1, "type")
		b = appendMessage(b, 2, dynamicValue{msgpack: payload})
		b = appendBytes(b, 3, []byte("after"))
		var got dynamicValue
		var typ, after string
		err := eachField(b, func(f field) error {
			switch f.num {
			case 1:
				typ = string(f.bytes)
			case 2:
				return got.decode(f.bytes)
			case 3:
				after = string(f.bytes)
			}
			return nil
		})
		if err != nil || typ != "type" || after != "after" || !bytes.Equal(got.msgpack, payload) && n > 0 {
			t.Errorf("payload of %d bytes: err %v, type %q, after %q, %d bytes back", n, err, typ, after, len(got.msgpack))
		}
	}
}

// TestMalformedAnswersAreErrors: a truncated or garbled answer is an
// error, never a panic or a silently empty value.
func TestMalformedAnswersAreErrors(t *testing.T) {
	good := appendMessage(nil, 1, dynamicValue{msgpack: []byte{0xc0}})
	good = protowire.AppendTag(good, 4, protowire.BytesType)
	good = protowire.AppendBytes(good, appendString(appendVarint(nil, 1, 1), 2, "boom"))
	var ok planResponse
	if err := ok.decode(good); err != nil || len(ok.diags) != 1 || ok.diags[0].Summary != "boom" {
		t.Fatalf("decode of a good answer: %v %+v", err, ok)
	}
	for i := 1; i < len(good); i++ {
		var r planResponse
		if err := r.decode(good[:i]); err == nil && len(r.diags) == 1 {
			t.Errorf("a message truncated to %d of %d bytes decoded whole", i, len(good))
		}
	}
	var d schemaDecoder
	if err := d.decode([]byte{0x0a, 0xff}); err == nil {
		t.Error("a garbled schema decoded")
	}
	if _, err := (dynamicValue{msgpack: []byte{0x92}}).value(cty.String); err == nil {
		t.Error("a malformed msgpack value decoded")
	}
}

func TestPathsDecode(t *testing.T) {
	step := func(num protowire.Number, s string, x uint64) []byte {
		var b []byte
		if s != "" {
			b = appendString(b, bytesField(num), s)
		} else {
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, x)
		}
		return b
	}
	var b []byte
	for _, s := range [][]byte{step(1, "rule", 0), step(3, "", 2), step(1, "tags", 0), step(2, "env", 0)} {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, s)
	}
	p, err := decodePath(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := pathString(p); got != `rule[2].tags["env"]` {
		t.Errorf("path %s", got)
	}
}

func pathString(p cty.Path) string { return tfschema.PathString(p) }
