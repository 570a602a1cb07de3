package value

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeAll reads a document with the Decoder's field-by-field calls only
// (Value for numbers and literals), building what ParseJSON builds.
func decodeAll(data []byte) (any, error) {
	d := NewDecoder(data, nil)
	var walk func() (any, error)
	walk = func() (any, error) {
		switch d.Next() {
		case '{':
			m := map[string]any{}
			err := d.Object(func(k string) error {
				v, err := walk()
				m[k] = v
				return err
			})
			return m, err
		case '[':
			a := []any{}
			err := d.Array(func() error {
				v, err := walk()
				a = append(a, v)
				return err
			})
			return a, err
		case '"':
			s, _, err := d.String()
			return s, err
		case 'n':
			if ok, err := d.Null(); ok || err != nil {
				return nil, err
			}
		}
		return d.Value()
	}
	v, err := walk()
	if err != nil {
		return nil, err
	}
	return v, d.End()
}

// The Decoder accepts, yields and refuses (with the same message) exactly
// what ParseJSON does.
func FuzzDecoder(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":{"b":[{"c":"d"}]},"e":[[],{}]}`, `[{"a":1} , "x" ]`, `{"a":nul}`, `{"a":[1 2]}`, `{"a":1 "b":2}`, ` null `, `[null,n]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := ParseJSON(data)
		got, err := decodeAll(data)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("Decoder(%q): err %v, ParseJSON: %v", data, err, wantErr)
		}
		if err == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Decoder(%q) (-ParseJSON +Decoder):\n%s", data, diff)
			}
		}
	})
}
