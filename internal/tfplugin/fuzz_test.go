package tfplugin

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// FuzzDecodeAnswers: no answer, however malformed, panics the decoders
// (a provider is a program of its own: its bugs must not crash Kyku).
func FuzzDecodeAnswers(f *testing.F) {
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	f.Add(appendMessage(nil, 1, dynamicValue{msgpack: []byte{0x81, 0xa1, 'a', 0xc0}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, proto := range []int{5, 6} {
			d := &schemaDecoder{protocol: proto}
			_ = d.decode(b)
		}
		var pr planResponse
		if pr.decode(b) == nil {
			_, _ = pr.planned.value(cty.Object(map[string]cty.Type{"a": cty.String, "n": cty.Number, "l": cty.List(cty.String)}))
		}
		_ = (&importResponse{}).decode(b)
		_ = (&stateResponse{privateField: 2, diagField: 3, legacyField: 4}).decode(b)
		_ = (&diagsResponse{diagField: 2, valueField: 1}).decode(b)
		_ = (&stopResponse{}).decode(b)
	})
}
