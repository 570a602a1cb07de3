package tfplugin

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
)

// The protocol's messages are encoded and decoded here by hand, on the
// protobuf wire format, with the field numbers of tfplugin5.proto and
// tfplugin6.proto (fields.go): the generated code of terraform-plugin-go
// is internal to that module, and a hand codec reads only the fields Kyku
// uses (descriptions, which are most of a large provider's schema, are
// skipped, never copied) with no reflection. The two protocol versions
// share every field number Kyku reads except the Attribute's write_only
// (10 in 5, 11 in 6; 10 is nested_type in 6) and prepared_config (5 only).

// message is a request Kyku sends.
type message interface {
	appendTo(b []byte) []byte
}

// decoder is a response Kyku reads.
type decoder interface {
	decode(b []byte) error
}

// discard is an answer Kyku does not read.
type discard struct{}

func (discard) decode([]byte) error { return nil }

// errTruncated is a malformed message.
var errTruncated = errors.New("malformed protobuf message")

// field is one field read from a message: its number, and its value
// (bytes for a length-delimited field, x for a varint).
type field struct {
	num   protowire.Number
	typ   protowire.Type
	bytes []byte
	x     uint64
}

// isBytes reports whether f is the length-delimited field n: its value is
// f.bytes.
func (f field) isBytes(n bytesField) bool { return f.num == protowire.Number(n) }

// isVarint reports whether f is the varint field n: its value is f.x.
func (f field) isVarint(n varintField) bool { return f.num == protowire.Number(n) }

// eachField calls f for each field of b, in order.
func eachField(b []byte, f func(field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errTruncated
		}
		b = b[n:]
		fl := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			fl.x, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			fl.bytes, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return errTruncated
		}
		b = b[n:]
		if err := f(fl); err != nil {
			return err
		}
	}
	return nil
}

// Appenders: proto3 leaves out fields of the zero value.

func appendString(b []byte, num bytesField, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, protowire.Number(num), protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num bytesField, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, protowire.Number(num), protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, num varintField, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, protowire.Number(num), protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBool(b []byte, num varintField, v bool) []byte {
	if !v {
		return b
	}
	return appendVarint(b, num, 1)
}

// appendMessage appends a nested message (present even when empty). It
// is generic so that a message passed by value (a dynamicValue) is not
// boxed on the heap as an interface would be.
func appendMessage[M message](b []byte, num bytesField, m M) []byte {
	b = protowire.AppendTag(b, protowire.Number(num), protowire.BytesType)
	// Reserve one byte for the length, the usual case; move when longer.
	at := len(b)
	b = append(b, 0)
	b = m.appendTo(b)
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b
	}
	size := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, size-1)...)
	copy(b[at+size:], b[at+1:at+1+n])
	protowire.AppendVarint(b[:at], uint64(n))
	return b
}

// empty is a message without fields (Request of GetProviderSchema, Stop).
type empty struct{}

func (empty) appendTo(b []byte) []byte { return b }

// clientCapabilities is the ClientCapabilities message (both protocols),
// the same in every request that has one, as OpenTofu sends it:
// write_only_attributes_allowed set, deferral_allowed not (Kyku does not
// defer). A provider refuses a configured write-only attribute from a
// client that does not say it handles them.
type clientCapabilities struct{}

func (clientCapabilities) appendTo(b []byte) []byte {
	return appendBool(b, capsWriteOnlyAllowed, true)
}
