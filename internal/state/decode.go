package state

import (
	"encoding/base64"
	"fmt"
	"math"

	"github.com/kyku/action/internal/value"
)

// parseFile decodes a state document in one pass over data, straight into
// a File: the document, its metadata and each resource are read field by
// field (value.Decoder) rather than built as maps only to be read once and
// dropped; config and outputs, maps in the model, are the only maps. A
// plan decodes the whole state, and at 10,000 resources those maps and the
// second pass over them, in a map's random order, were a good part of it.
//
// What it accepts, and the error it gives, are those of decoding the
// parsed document as a whole: a repeated key's last value wins (its error
// too), a syntax error anywhere comes first, then the first bad field in
// the order metadata (version, serial, prefix, lineage, environment),
// resources, outputs, outputTypes. It returns, in document order, the
// names of the resources that are null, for Decode to refuse.
func parseFile(data []byte) (*File, []string, error) {
	d := value.NewDecoder(data, nil)
	f := &File{}
	switch d.Next() {
	case '{':
	case 'n':
		if _, err := d.Null(); err != nil {
			return nil, nil, err
		}
		if err := d.End(); err != nil {
			return nil, nil, err
		}
		return f, nil, nil // as json.Unmarshal of null: nothing set
	default:
		v, err := d.Value()
		if err == nil {
			err = d.End()
		}
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("want a JSON object, got %s", kind(v))
	}
	var mdErr, outErr, typesErr, sensErr, intErr error
	var res resources
	err := d.Object(func(key string) error {
		var err error
		switch key {
		case "metadata":
			f.Metadata, mdErr = Metadata{}, nil
			mdErr, err = decodeMetadata(d, &f.Metadata)
		case "resources":
			// Room for a resource per 256 bytes of state (a resource
			// takes 300 and more): the list rarely grows.
			res = resources{entries: make([]resourceEntry, 0, len(data)/256)}
			err = res.decode(d)
		case "outputs":
			f.Outputs, outErr = nil, nil
			var v any
			if v, err = d.Value(); err == nil {
				f.Outputs, outErr = mapValue(v, "", key)
			}
		case "outputTypes":
			f.OutputTypes, typesErr = nil, nil
			var v any
			if v, err = d.Value(); err == nil {
				f.OutputTypes, typesErr = mapValue(v, "", key)
			}
		case "outputSensitivity":
			f.OutputSensitivity, sensErr = nil, nil
			var v any
			if v, err = d.Value(); err == nil {
				f.OutputSensitivity, sensErr = boolsValue(v, key)
			}
		case "interrupted":
			f.Interrupted, intErr = nil, nil
			var v any
			if v, err = d.Value(); err == nil {
				f.Interrupted, intErr = stringsValue(v, key)
			}
		default:
			_, err = d.Value()
		}
		return err
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, nil, err
	}
	nulls := res.build(f) // finds the first bad resource
	for _, err := range []error{mdErr, res.err, outErr, typesErr, sensErr, intErr} {
		if err != nil {
			return nil, nil, err
		}
	}
	return f, nulls, nil
}

// fieldErrs holds, per field of one object, the error of the field's last
// value (nil when it decoded); its order is the order fields are checked in.
type fieldErrs [14]error

func (e *fieldErrs) first() error {
	for _, err := range e {
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeMetadata reads the metadata object into md (null leaves it zero).
// It returns the first bad field's error, and any syntax error apart.
func decodeMetadata(d *value.Decoder, md *Metadata) (bad, syntax error) {
	const where = "metadata"
	switch d.Next() {
	case '{':
	case 'n':
		_, err := d.Null()
		return nil, err
	default:
		v, err := d.Value()
		if err != nil {
			return nil, err
		}
		return fmt.Errorf("metadata: want an object, got %s", kind(v)), nil
	}
	var errs fieldErrs
	err := d.Object(func(key string) error {
		var err error
		switch key {
		case "version":
			var n int64
			n, errs[0], err = intValue(d, where, key)
			md.Version = int(n)
		case "serial":
			md.Serial, errs[1], err = intValue(d, where, key)
		case "prefix":
			md.Prefix, errs[2], err = stringValue(d, where, key)
		case "lineage":
			md.Lineage, errs[3], err = stringValue(d, where, key)
		case "environment":
			md.Environment, errs[4], err = stringValue(d, where, key)
		default:
			_, err = d.Value()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return errs.first(), nil
}

// resources is the resources object as read, in document order: the map
// is built at the end, at its final size.
type resources struct {
	entries []resourceEntry
	errs    map[int]error // entry → why it is bad (rare)
	err     error         // the object itself is not one
	null    bool          // the object is null
	bad     bool          // some entry is null or has an error
}

type resourceEntry struct {
	name string
	r    *Resource // nil: null, or bad (see errs)
}

func (rs *resources) decode(d *value.Decoder) error {
	switch d.Next() {
	case '{':
	case 'n':
		rs.null = true
		_, err := d.Null()
		return err
	default:
		v, err := d.Value()
		if err == nil {
			rs.err = fmt.Errorf("resources: want an object, got %s", kind(v))
		}
		return err
	}
	return d.Object(func(name string) error {
		e := resourceEntry{name: name}
		var bad, err error
		switch d.Next() {
		case '{':
			e.r, bad, err = decodeResource(d, name)
		case 'n':
			_, err = d.Null()
		default:
			var v any
			if v, err = d.Value(); err == nil {
				bad = fmt.Errorf("resources.%s: want an object, got %s", name, kind(v))
			}
		}
		if bad != nil {
			if rs.errs == nil {
				rs.errs = map[int]error{}
			}
			rs.errs[len(rs.entries)] = bad
		}
		if e.r == nil {
			rs.bad = true
		}
		rs.entries = append(rs.entries, e)
		return err
	})
}

// build puts the resources into f (a repeated name: the last one) and
// returns the names of the null ones; a bad entry sets rs.err.
func (rs *resources) build(f *File) []string {
	if rs.null || len(rs.entries) == 0 {
		if !rs.null {
			f.Resources = make(map[string]*Resource)
		}
		return nil
	}
	f.Resources = make(map[string]*Resource, len(rs.entries))
	for _, e := range rs.entries {
		f.Resources[e.name] = e.r
	}
	if !rs.bad {
		return nil
	}
	last := make(map[string]int, len(rs.entries))
	for i, e := range rs.entries {
		last[e.name] = i
	}
	var nulls []string
	for i, e := range rs.entries {
		if last[e.name] != i {
			continue
		}
		bad := rs.errs[i]
		if bad != nil && rs.err == nil {
			rs.err = bad
		}
		if e.r == nil && bad == nil {
			nulls = append(nulls, e.name)
		}
	}
	return nulls
}

// decodeResource reads one resource object (Name is its key in the
// resources object). It returns the first bad field's error apart from
// any syntax error.
func decodeResource(d *value.Decoder, name string) (r *Resource, bad, syntax error) {
	r = &Resource{}
	var errs fieldErrs
	err := d.Object(func(key string) error {
		var err error
		switch key {
		case "name":
			r.Name, errs[0], err = stringValue(d, "", key)
		case "type":
			r.Type, errs[1], err = stringValue(d, "", key)
		case "cloudName":
			r.CloudName, errs[2], err = stringValue(d, "", key)
		case "providerId":
			r.ProviderID, errs[3], err = stringValue(d, "", key)
		case "config", "outputs":
			var v any
			if v, err = d.Value(); err != nil {
				return err
			}
			m, bad := mapValue(v, "", key)
			if key == "config" {
				r.Config, errs[4] = m, bad
			} else {
				r.Outputs, errs[5] = m, bad
			}
		case "dependencies":
			r.Dependencies, errs[6], err = namesValue(d, key)
		case "sensitive":
			r.Sensitive, errs[10], err = namesValue(d, key)
		case "sensitiveWithin":
			var v any
			if v, err = d.Value(); err != nil {
				return err
			}
			r.SensitiveWithin, errs[12] = pathsValue(v, key)
		case "basis":
			var v any
			if v, err = d.Value(); err != nil {
				return err
			}
			r.Basis, errs[11] = basisValue(v, key)
		case "protect", "skipDestroy":
			var v any
			if v, err = d.Value(); err != nil {
				return err
			}
			out, i := &r.Protect, 7
			if key == "skipDestroy" {
				out, i = &r.SkipDestroy, 13
			}
			switch p := v.(type) {
			case nil:
				*out, errs[i] = false, nil
			case bool:
				*out, errs[i] = p, nil
			default:
				errs[i] = fmt.Errorf("%s: want a boolean, got %s", key, kind(p))
			}
		case "schemaVersion":
			r.SchemaVersion, errs[8], err = intValue(d, "", key)
		case "private":
			var s string
			if s, errs[9], err = stringValue(d, "", key); err == nil && errs[9] == nil && s != "" {
				if r.Private, err = base64.StdEncoding.DecodeString(s); err != nil {
					r.Private, errs[9], err = nil, fmt.Errorf("%s: not base64", key), nil
				}
			}
		default:
			_, err = d.Value()
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if err := errs.first(); err != nil {
		return nil, fmt.Errorf("resources.%s.%w", name, err), nil
	}
	r.Name = name
	return r, nil, nil
}

// pathsValue reads an object of lists of strings, or null (nil).
func pathsValue(v any, key string) (map[string][]string, error) {
	m, err := mapValue(v, "", key)
	if m == nil || err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(m))
	for k, e := range m {
		if e == nil {
			out[k] = nil
			continue
		}
		l, ok := e.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: want a list, got %s", dotted(key, k), kind(e))
		}
		paths := make([]string, len(l))
		for i, p := range l {
			s, ok := p.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d]: want a string, got %s", dotted(key, k), i, kind(p))
			}
			paths[i] = s
		}
		out[k] = paths
	}
	return out, nil
}

// stringValue reads a string or null ("") field; bad is a value of
// another kind, syntax a syntax error (as for the other fields).
func stringValue(d *value.Decoder, where, key string) (s string, bad, syntax error) {
	s, ok, err := d.String()
	if ok || err != nil {
		return s, nil, err
	}
	v, err := d.Value()
	if err != nil || v == nil {
		return "", nil, err
	}
	return "", fmt.Errorf("%s: want a string, got %s", dotted(where, key), kind(v)), nil
}

// intValue reads an integral number or null (0) field.
func intValue(d *value.Decoder, where, key string) (n int64, bad, syntax error) {
	v, err := d.Value()
	if err != nil {
		return 0, nil, err
	}
	switch x := v.(type) {
	case nil:
		return 0, nil, nil
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, fmt.Errorf("%s: want an integer, got %v", dotted(where, key), x), nil
		}
		return int64(x), nil, nil
	default:
		return 0, fmt.Errorf("%s: want an integer, got %s", dotted(where, key), kind(x)), nil
	}
}

// mapValue checks that a field's value is an object or null (nil).
func mapValue(v any, where, key string) (map[string]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	default:
		return nil, fmt.Errorf("%s: want an object, got %s", dotted(where, key), kind(x))
	}
}

// boolsValue reads an object of booleans, or null (nil).
func boolsValue(v any, key string) (map[string]bool, error) {
	m, err := mapValue(v, "", key)
	if m == nil || err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(m))
	for k, e := range m {
		b, ok := e.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: want a boolean, got %s", dotted(key, k), kind(e))
		}
		out[k] = b
	}
	return out, nil
}

// stringsValue reads an object of strings, or null (nil).
func stringsValue(v any, key string) (map[string]string, error) {
	m, err := mapValue(v, "", key)
	if m == nil || err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s: want a string, got %s", dotted(key, k), kind(e))
		}
		out[k] = s
	}
	return out, nil
}

// namesValue reads a list of strings, or null (nil).
func namesValue(d *value.Decoder, key string) (names []string, bad, syntax error) {
	switch d.Next() {
	case '[':
	case 'n':
		_, err := d.Null()
		return nil, nil, err
	default:
		v, err := d.Value()
		if err != nil {
			return nil, nil, err
		}
		return nil, fmt.Errorf("%s: want a list, got %s", key, kind(v)), nil
	}
	names = []string{}
	err := d.Array(func() error {
		s, ok, err := d.String()
		if ok || err != nil {
			names = append(names, s)
			return err
		}
		v, err := d.Value()
		if err == nil && bad == nil {
			bad = fmt.Errorf("%s[%d]: want a string, got %s", key, len(names), kind(v))
		}
		names = append(names, "")
		return err
	})
	if err != nil || bad != nil {
		return nil, bad, err
	}
	return names, nil, nil
}

func dotted(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}
