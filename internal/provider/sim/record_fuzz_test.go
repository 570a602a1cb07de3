package sim

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/value"
)

// decodeRecord reads what it read when it parsed the whole object into a
// map first, and refuses what that refused, with the same message.
func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{
		`{"id":"1","type":"Vm","name":"a","cloudName":"p-a","created":"t","properties":{"x":[1,"y"]},"outputs":{"id":"1"},"extra":{"z":null}}`,
		`{"id":5}`, `{"id":null,"id":"2"}`, `{"id":"2","id":null}`, `{"id":[],"id":"3"}`, `{"id":"3","id":{}}`,
		`{"properties":[]}`, `{"properties":{},"properties":null}`, `{"outputs":"x"}`, `{"outputs":"x","outputs":{}}`,
		`{"name":true,"type":1}`, `null`, `[]`, `"x"`, `{`, `{"id":"1"} x`, `{"created":"\u00e9"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := refDecodeRecord(data)
		got, err := decodeRecord(data)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("decodeRecord(%q): err %v, from a map: %v", data, err, wantErr)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(record{})); diff != "" {
			t.Fatalf("decodeRecord(%q) (-from a map +decodeRecord):\n%s", data, diff)
		}
	})
}

// refDecodeRecord is decodeRecord as it was, reading a map of the whole
// object: the reference decodeRecord is held to.
// the wrong JSON type is an error, as it is for json.Unmarshal.
func refDecodeRecord(b []byte) (*record, error) {
	v, err := value.ParseJSONWith(b, vocabulary())
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return &record{}, nil // json.Unmarshal of null leaves the record as it is
		}
		return nil, fmt.Errorf("want a JSON object, got %T", v)
	}
	rec := &record{}
	for _, f := range []struct {
		key string
		dst *string
	}{{"id", &rec.ID}, {"type", &rec.Type}, {"name", &rec.Name}, {"cloudName", &rec.CloudName}, {"created", &rec.Created}} {
		switch x := m[f.key].(type) {
		case string:
			*f.dst = x
		case nil:
		default:
			return nil, fmt.Errorf("%s: want a string, got %T", f.key, x)
		}
	}
	for _, f := range []struct {
		key string
		dst *map[string]any
	}{{"properties", &rec.Properties}, {"outputs", &rec.Outputs}} {
		switch x := m[f.key].(type) {
		case map[string]any:
			*f.dst = x
		case nil:
		default:
			return nil, fmt.Errorf("%s: want an object, got %T", f.key, x)
		}
	}
	return rec, nil
}
