package sim

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The hand-written object file codec reads and writes what encoding/json
// does with a record.
func TestRecordCodecMatchesEncodingJSON(t *testing.T) {
	recs := []*record{
		{ID: "10000001", Type: "Vpc", Name: "net", CloudName: "p-net", Created: "2026-01-01T00:00:00Z",
			Properties: map[string]any{"cidr": "10.0.0.0/16", "tags": map[string]any{"a<b": "x&y"}, "n": 3.0},
			Outputs:    map[string]any{"id": "10000001"}},
		{ID: "10000002", Type: "Vm", Name: "web", Properties: map[string]any{"securityGroups": []any{"1", "2"}, "empty": []any{}}},
		{ID: "3", Properties: map[string]any{}, Outputs: map[string]any{}},
	}
	for _, rec := range recs {
		want, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		got, err := encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("encode (-json.MarshalIndent +encode):\n%s", diff)
		}
		back, err := decodeRecord(got)
		if err != nil {
			t.Fatal(err)
		}
		var viaJSON record
		if err := json.Unmarshal(got, &viaJSON); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&viaJSON, back); diff != "" {
			t.Errorf("decodeRecord (-json.Unmarshal +decodeRecord):\n%s", diff)
		}
	}
	for _, bad := range []string{`[]`, `{"id": 5}`, `{"properties": []}`, `{"outputs": "x"}`, `{`} {
		var r record
		if _, err := decodeRecord([]byte(bad)); err == nil || json.Unmarshal([]byte(bad), &r) == nil {
			t.Errorf("decodeRecord(%s) = %v, json.Unmarshal: %v; want both to fail", bad, err, json.Unmarshal([]byte(bad), &r))
		}
	}
}
