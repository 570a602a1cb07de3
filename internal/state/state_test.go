package state

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		wantErr error
		msg     string // part of the error message
	}{
		{"not json", `{"metadata":`, ErrCorrupt, "state.json: state is corrupt"},
		{"no metadata", `{"resources":{}}`, ErrCorrupt, "no metadata.version"},
		{"no version", `{"metadata":{"lineage":"l"}}`, ErrCorrupt, "no metadata.version"},
		{"newer version", `{"metadata":{"version":2,"lineage":"l"}}`, ErrUnsupportedVersion, "unsupported state version 2"},
		{"newer version of another shape", `{"metadata":{"version":3,"lineage":"l"},"resources":["a list now"]}`, ErrUnsupportedVersion, "version 3"},
		{"version 0", `{"metadata":{"version":0,"lineage":"l"}}`, ErrUnsupportedVersion, "version 0"},
		{"no lineage", `{"metadata":{"version":1}}`, ErrCorrupt, "no metadata.lineage"},
		{"null resource", `{"metadata":{"version":1,"lineage":"l"},"resources":{"a":null}}`, ErrCorrupt, `resource "a" is null`},
		{"wrong shape", `{"metadata":{"version":1,"lineage":"l"},"resources":[]}`, ErrCorrupt, "resources: want an object, got list"},
		{"wrong field type", `{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"dependencies":"b"}}}`, ErrCorrupt, "resources.a.dependencies: want a list"},
		{"fractional serial", `{"metadata":{"version":1,"lineage":"l","serial":1.5}}`, ErrCorrupt, "metadata.serial: want an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("state.json", []byte(tt.data))
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want %v containing %q", err, tt.wantErr, tt.msg)
			}
		})
	}
}

// Decoded values are canonical (numbers float64) and survive a round trip.
func TestDecodeRoundTrip(t *testing.T) {
	data := `{"metadata":{"version":1,"prefix":"p","lineage":"l","serial":7},
	"resources":{"web":{"type":"Vm","providerId":"10000001","config":{"size":"small","ports":[80,443],"tags":{"a":"b"},"count":3,"on":true,"none":null},
	"outputs":{"id":"10000001"},"dependencies":["net"]}},"outputs":{"n":1.5}}`
	f, err := Decode("state.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	web := f.Resources["web"]
	want := map[string]any{"size": "small", "ports": []any{80.0, 443.0}, "tags": map[string]any{"a": "b"}, "count": 3.0, "on": true, "none": nil}
	if diff := cmp.Diff(want, web.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if web.Name != "web" || f.Outputs["n"] != 1.5 {
		t.Errorf("name %q, outputs %v", web.Name, f.Outputs)
	}
	enc, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Decode("state.json", enc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, again); diff != "" {
		t.Errorf("round trip (-first +second):\n%s", diff)
	}
}

// TestFoldIntents: an intent journaled before a create stays open in the
// folded state until the create's outcome (the object, or none) closes
// it; a delete does not close it.
func TestFoldIntents(t *testing.T) {
	entry := func(seq int64, op Op, name string) Entry {
		e := Entry{Seq: seq, BaseSerial: 1, Lineage: "l", Op: op, Name: name, Type: "fwtest_item"}
		if op == OpPut {
			e.Resource = &Resource{Type: "fwtest_item", ProviderID: name + "-1"}
		}
		return e
	}
	for _, c := range []struct {
		name    string
		entries []Entry
		want    map[string]string
	}{
		{name: "in flight", entries: []Entry{entry(1, OpIntent, "a")}, want: map[string]string{"a": "fwtest_item"}},
		{name: "recorded", entries: []Entry{entry(1, OpIntent, "a"), entry(2, OpPut, "a")}},
		{name: "no object", entries: []Entry{entry(1, OpIntent, "a"), entry(2, OpNoObject, "a")}},
		{name: "replaced, in flight", entries: []Entry{entry(1, OpDelete, "a"), entry(2, OpIntent, "a")}, want: map[string]string{"a": "fwtest_item"}},
		{name: "another's outcome", entries: []Entry{entry(1, OpIntent, "a"), entry(2, OpPut, "b")}, want: map[string]string{"a": "fwtest_item"}},
		{name: "out of order", entries: []Entry{entry(2, OpPut, "a"), entry(1, OpIntent, "a")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := New("p", "l", "")
			f.Metadata.Serial = 1
			if !Fold(f, c.entries) {
				t.Error("Fold reports no change")
			}
			if diff := cmp.Diff(c.want, f.Interrupted); diff != "" {
				t.Errorf("interrupted (-want +got):\n%s", diff)
			}
			enc, err := Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Decode("state.json", enc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, back.Interrupted); diff != "" {
				t.Errorf("interrupted after a round trip (-want +got):\n%s", diff)
			}
		})
	}
}
