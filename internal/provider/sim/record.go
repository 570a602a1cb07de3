package sim

import (
	"fmt"
	"slices"
	"sync"

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
var vocabulary = sync.OnceValue(func() map[string]string {
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
})

// decodeRecord parses an object file. Unknown keys are ignored; a key of
// the wrong JSON type is an error, as it is for json.Unmarshal (a repeated
// key: its last value counts). The object is read field by field
// (value.Decoder): a plan reads every object, and a map built per object
// only to be read once was a good part of what discovery allocated.
func decodeRecord(b []byte) (*record, error) {
	d := value.NewDecoder(b, vocabulary())
	switch d.Next() {
	case '{':
	case 'n':
		if _, err := d.Null(); err != nil {
			return nil, err
		}
		if err := d.End(); err != nil {
			return nil, err
		}
		return &record{}, nil // json.Unmarshal of null leaves the record as it is
	default:
		v, err := d.Value()
		if err == nil {
			err = d.End()
		}
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("want a JSON object, got %T", v)
	}
	rec := &record{}
	var bad [len(recordFields)]error // per field, the error of its last value
	err := d.Object(func(key string) error {
		i := slices.Index(recordFields[:], key)
		if i < 0 {
			_, err := d.Value()
			return err
		}
		if i < 5 { // a string
			s, ok, err := d.String()
			if ok || err != nil {
				*rec.str(i), bad[i] = s, nil
				return err
			}
		}
		v, err := d.Value()
		if err != nil {
			return err
		}
		bad[i] = nil
		switch x := v.(type) {
		case nil:
			if i < 5 {
				*rec.str(i) = ""
			} else {
				*rec.obj(i) = nil
			}
		case map[string]any:
			if i < 5 {
				bad[i] = fmt.Errorf("%s: want a string, got %T", key, x)
			} else {
				*rec.obj(i) = x
			}
		default:
			want := "an object"
			if i < 5 {
				want = "a string"
			}
			bad[i] = fmt.Errorf("%s: want %s, got %T", key, want, x)
		}
		return nil
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, err
	}
	for _, err := range bad {
		if err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// recordFields are the keys of an object file in the order decodeRecord
// checks them: five strings, then two objects.
var recordFields = [...]string{"id", "type", "name", "cloudName", "created", "properties", "outputs"}

func (r *record) str(i int) *string {
	return [...]*string{&r.ID, &r.Type, &r.Name, &r.CloudName, &r.Created}[i]
}

func (r *record) obj(i int) *map[string]any {
	return [...]*map[string]any{&r.Properties, &r.Outputs}[i-5]
}

// encode renders an object file: pretty-printed, for people editing it.
func encode(rec *record) ([]byte, error) {
	return appendRecord(make([]byte, 0, 512), rec)
}

// appendRecord is encode appending to b.
func appendRecord(b []byte, rec *record) ([]byte, error) {
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
