package state

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/kyku/action/internal/value"
)

// The state file and journal line formats, read and written without
// reflection: a plan decodes the whole state and an apply encodes it (and
// a journal line per change). The bytes are those encoding/json writes for
// these types (codec_test.go holds them to it); reading takes what it
// reads, with keys matched exactly.

// decodeFile converts a parsed state document into a File.
func decodeFile(v any) (*File, error) {
	var f File
	if v == nil {
		return &f, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object, got %s", kind(v))
	}
	if mv, ok := m["metadata"]; ok && mv != nil {
		md, ok := mv.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("metadata: want an object, got %s", kind(mv))
		}
		version, err := intField(md, "version", "metadata")
		if err != nil {
			return nil, err
		}
		f.Metadata.Version = int(version)
		if f.Metadata.Serial, err = intField(md, "serial", "metadata"); err != nil {
			return nil, err
		}
		for _, s := range []struct {
			key string
			dst *string
		}{{"prefix", &f.Metadata.Prefix}, {"lineage", &f.Metadata.Lineage}, {"environment", &f.Metadata.Environment}} {
			if *s.dst, err = stringField(md, s.key, "metadata"); err != nil {
				return nil, err
			}
		}
	}
	if rv, ok := m["resources"]; ok && rv != nil {
		rm, ok := rv.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("resources: want an object, got %s", kind(rv))
		}
		f.Resources = make(map[string]*Resource, len(rm))
		for name, x := range rm {
			if x == nil {
				f.Resources[name] = nil
				continue
			}
			r, err := decodeResource(x, "resources."+name)
			if err != nil {
				return nil, err
			}
			f.Resources[name] = r
		}
	}
	var err error
	if f.Outputs, err = mapField(m, "outputs", ""); err != nil {
		return nil, err
	}
	return &f, nil
}

func decodeResource(v any, where string) (*Resource, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object, got %s", where, kind(v))
	}
	r := &Resource{}
	var err error
	for _, s := range []struct {
		key string
		dst *string
	}{{"name", &r.Name}, {"type", &r.Type}, {"cloudName", &r.CloudName}, {"providerId", &r.ProviderID}} {
		if *s.dst, err = stringField(m, s.key, where); err != nil {
			return nil, err
		}
	}
	if r.Config, err = mapField(m, "config", where); err != nil {
		return nil, err
	}
	if r.Outputs, err = mapField(m, "outputs", where); err != nil {
		return nil, err
	}
	switch d := m["dependencies"].(type) {
	case nil:
	case []any:
		r.Dependencies = make([]string, len(d))
		for i, e := range d {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s.dependencies[%d]: want a string, got %s", where, i, kind(e))
			}
			r.Dependencies[i] = s
		}
	default:
		return nil, fmt.Errorf("%s.dependencies: want a list, got %s", where, kind(d))
	}
	switch p := m["protect"].(type) {
	case nil:
	case bool:
		r.Protect = p
	default:
		return nil, fmt.Errorf("%s.protect: want a boolean, got %s", where, kind(p))
	}
	return r, nil
}

func stringField(m map[string]any, key, where string) (string, error) {
	switch x := m[key].(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	default:
		return "", fmt.Errorf("%s: want a string, got %s", dotted(where, key), kind(x))
	}
}

func intField(m map[string]any, key, where string) (int64, error) {
	switch x := m[key].(type) {
	case nil:
		return 0, nil
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, fmt.Errorf("%s: want an integer, got %v", dotted(where, key), x)
		}
		return int64(x), nil
	default:
		return 0, fmt.Errorf("%s: want an integer, got %s", dotted(where, key), kind(x))
	}
}

func mapField(m map[string]any, key, where string) (map[string]any, error) {
	switch x := m[key].(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	default:
		return nil, fmt.Errorf("%s: want an object, got %s", dotted(where, key), kind(x))
	}
}

func dotted(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// appendFile writes f indented by two spaces, as json.MarshalIndent does.
func appendFile(b []byte, f *File) ([]byte, error) {
	md := f.Metadata
	b = append(b, "{\n  \"metadata\": {\n    \"version\": "...)
	b = strconv.AppendInt(b, int64(md.Version), 10)
	b = append(b, ",\n    \"prefix\": "...)
	b = value.AppendString(b, md.Prefix)
	b = append(b, ",\n    \"lineage\": "...)
	b = value.AppendString(b, md.Lineage)
	b = append(b, ",\n    \"serial\": "...)
	b = strconv.AppendInt(b, md.Serial, 10)
	if md.Environment != "" {
		b = append(b, ",\n    \"environment\": "...)
		b = value.AppendString(b, md.Environment)
	}
	b = append(b, "\n  },\n  \"resources\": "...)
	if len(f.Resources) == 0 {
		b = append(b, "{}"...)
	} else {
		names := make([]string, 0, len(f.Resources))
		for n := range f.Resources {
			names = append(names, n)
		}
		slices.Sort(names)
		b = append(b, '{')
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = value.AppendString(b, n)
			b = append(b, ": "...)
			var err error
			if b, err = appendResource(b, f.Resources[n], 2); err != nil {
				return nil, fmt.Errorf("resource %q: %w", n, err)
			}
		}
		b = append(b, "\n  }"...)
	}
	if len(f.Outputs) > 0 {
		b = append(b, ",\n  \"outputs\": "...)
		var err error
		if b, err = value.AppendJSONIndent(b, f.Outputs, "  ", 1); err != nil {
			return nil, fmt.Errorf("outputs: %w", err)
		}
	}
	return append(b, "\n}"...), nil
}

// appendResource writes r as a value depth levels deep: indented by two
// spaces per level, or compact when depth is negative.
func appendResource(b []byte, r *Resource, depth int) ([]byte, error) {
	if r == nil {
		return append(b, "null"...), nil
	}
	n := 0
	field := func(key string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		if depth >= 0 {
			b = append(b, '\n')
			for i := 0; i <= depth; i++ {
				b = append(b, "  "...)
			}
		}
		b = value.AppendString(b, key)
		b = append(b, ':')
		if depth >= 0 {
			b = append(b, ' ')
		}
	}
	str := func(key, s string, omitEmpty bool) {
		if s == "" && omitEmpty {
			return
		}
		field(key)
		b = value.AppendString(b, s)
	}
	obj := func(key string, m map[string]any) error {
		if len(m) == 0 {
			return nil
		}
		field(key)
		var err error
		if depth >= 0 {
			b, err = value.AppendJSONIndent(b, m, "  ", depth+1)
		} else {
			b, err = value.AppendJSON(b, m)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	}
	b = append(b, '{')
	str("name", r.Name, false)
	str("type", r.Type, false)
	str("cloudName", r.CloudName, true)
	str("providerId", r.ProviderID, true)
	if err := obj("config", r.Config); err != nil {
		return nil, err
	}
	if err := obj("outputs", r.Outputs); err != nil {
		return nil, err
	}
	if len(r.Dependencies) > 0 {
		field("dependencies")
		b = append(b, '[')
		for i, d := range r.Dependencies {
			if i > 0 {
				b = append(b, ',')
			}
			if depth >= 0 {
				b = append(b, '\n')
				for k := 0; k <= depth+1; k++ {
					b = append(b, "  "...)
				}
			}
			b = value.AppendString(b, d)
		}
		if depth >= 0 {
			b = append(b, '\n')
			for k := 0; k <= depth; k++ {
				b = append(b, "  "...)
			}
		}
		b = append(b, ']')
	}
	if r.Protect {
		field("protect")
		b = append(b, "true"...)
	}
	if depth >= 0 {
		b = append(b, '\n')
		for i := 0; i < depth; i++ {
			b = append(b, "  "...)
		}
	}
	return append(b, '}'), nil
}

// AppendEntry appends e as one compact JSON line (without the newline), as
// json.Marshal writes it.
func AppendEntry(b []byte, e Entry) ([]byte, error) {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"baseSerial":`...)
	b = strconv.AppendInt(b, e.BaseSerial, 10)
	b = append(b, `,"lineage":`...)
	b = value.AppendString(b, e.Lineage)
	b = append(b, `,"op":`...)
	b = value.AppendString(b, string(e.Op))
	b = append(b, `,"name":`...)
	b = value.AppendString(b, e.Name)
	if e.From != "" {
		b = append(b, `,"from":`...)
		b = value.AppendString(b, e.From)
	}
	if e.Resource != nil {
		b = append(b, `,"resource":`...)
		var err error
		if b, err = appendResource(b, e.Resource, -1); err != nil {
			return nil, fmt.Errorf("journal entry %d: %w", e.Seq, err)
		}
	}
	return append(b, '}'), nil
}
