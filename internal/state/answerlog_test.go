package state_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
)

// TestAnswerRecords: a keeper's log reads back its records in order, up
// to the zeros of the log's unwritten end, or up to a record cut short or
// changed (a machine that crashed mid-write), never past it.
func TestAnswerRecords(t *testing.T) {
	recs := []state.Answer{
		{Address: "a", Type: "t", Asked: true, Note: "1"},
		{Address: "a", Type: "t", Asked: true, Response: []byte{0, 1, 2}, Note: "1"},
		{Address: "b", Type: "t", Asked: true, Note: "2"},
	}
	var log []byte
	for _, a := range recs {
		data, err := state.EncodeAnswer(a)
		if err != nil {
			t.Fatal(err)
		}
		log = state.AppendAnswerRecord(log, data)
	}
	last := len(log)
	cut := func(b []byte) []byte { return b[:len(b)-1] }
	changed := func(b []byte) []byte {
		c := append([]byte(nil), b...)
		c[last-3] ^= 1 // b's Note, "2" to "3": JSON still
		return c
	}
	for name, c := range map[string]struct {
		log  []byte
		want []state.Answer
	}{
		"whole":                {log, recs},
		"then zeros":           {append(append([]byte(nil), log...), make([]byte, 4096)...), recs},
		"the last cut short":   {cut(log), recs[:2]},
		"the last one changed": {changed(log), recs[:2]},
		"empty":                {nil, nil},
	} {
		if diff := cmp.Diff(c.want, state.AnswerRecords(c.log)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}
