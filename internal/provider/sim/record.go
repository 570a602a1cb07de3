package sim

import (
	"fmt"

	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// The object file format, read and written without reflection (a plan
// reads every object, an apply writes one per change): what
// json.Unmarshal and json.MarshalIndent of a record read and write, which
// record_test.go holds these to.

// vocabulary holds the words of object files (their fields, every type's
// property and output names, zones): decoding shares these strings
// instead of allocating them per object.
var vocabulary = func() map[string]string {
	words := []string{"id", "type", "name", "cloudName", "created", "properties", "outputs", "privateIp", "publicIp", "endpoint"}
	words = append(words, zones...)
	for _, tn := range schema.Names() {
		t, _ := schema.Lookup(tn)
		words = append(words, tn)
		words = append(words, t.SortedProps()...)
		words = append(words, t.Outputs...)
	}
	m := make(map[string]string, len(words))
	for _, w := range words {
		m[w] = w
	}
	return m
}()

// decodeRecord parses an object file. Unknown keys are ignored; a key of
// the wrong JSON type is an error, as it is for json.Unmarshal.
func decodeRecord(b []byte) (*record, error) {
	v, err := value.ParseJSONWith(b, vocabulary)
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

// encode renders an object file: pretty-printed, for people editing it.
func encode(rec *record) ([]byte, error) {
	b := make([]byte, 0, 512)
	b = append(b, "{\n  \"id\": "...)
	b = value.AppendString(b, rec.ID)
	b = append(b, ",\n  \"type\": "...)
	b = value.AppendString(b, rec.Type)
	b = append(b, ",\n  \"name\": "...)
	b = value.AppendString(b, rec.Name)
	b = append(b, ",\n  \"cloudName\": "...)
	b = value.AppendString(b, rec.CloudName)
	b = append(b, ",\n  \"created\": "...)
	b = value.AppendString(b, rec.Created)
	var err error
	b = append(b, ",\n  \"properties\": "...)
	if b, err = appendMap(b, rec.Properties); err != nil {
		return nil, fmt.Errorf("sim: encode %s %s: %w", rec.Type, rec.ID, err)
	}
	b = append(b, ",\n  \"outputs\": "...)
	if b, err = appendMap(b, rec.Outputs); err != nil {
		return nil, fmt.Errorf("sim: encode %s %s: %w", rec.Type, rec.ID, err)
	}
	return append(b, "\n}\n"...), nil
}

// appendMap writes a map field one level deep; a nil map is null.
func appendMap(b []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	return value.AppendJSONIndent(b, m, "  ", 1)
}
