package state

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/kyku/action/internal/value"
)

// The state file and journal line formats, read and written without
// reflection: a plan decodes the whole state and an apply encodes it (and
// a journal line per change). The bytes are those encoding/json writes for
// these types (codec_test.go holds them to it); reading takes what it
// reads, with keys matched exactly.

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number:
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
// With flush set, it hands b to flush after each resource once b holds
// chunk bytes, and goes on with what flush returns (b emptied): the file
// is streamed, never whole in memory.
func appendFile(b []byte, f *File, flush func([]byte) ([]byte, error)) ([]byte, error) {
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
			if flush != nil && len(b) >= chunk {
				if b, err = flush(b); err != nil {
					return nil, err
				}
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
	if len(f.OutputTypes) > 0 {
		b = append(b, ",\n  \"outputTypes\": "...)
		var err error
		if b, err = value.AppendJSONIndent(b, f.OutputTypes, "  ", 1); err != nil {
			return nil, fmt.Errorf("outputTypes: %w", err)
		}
	}
	if len(f.OutputSensitivity) > 0 {
		b = append(b, ",\n  \"outputSensitivity\": "...)
		m := make(map[string]any, len(f.OutputSensitivity))
		for k, v := range f.OutputSensitivity {
			m[k] = v
		}
		var err error
		if b, err = value.AppendJSONIndent(b, m, "  ", 1); err != nil {
			return nil, fmt.Errorf("outputSensitivity: %w", err)
		}
	}
	if len(f.Interrupted) > 0 {
		b = append(b, ",\n  \"interrupted\": "...)
		m := make(map[string]any, len(f.Interrupted))
		for k, v := range f.Interrupted {
			m[k] = v
		}
		var err error
		if b, err = value.AppendJSONIndent(b, m, "  ", 1); err != nil {
			return nil, fmt.Errorf("interrupted: %w", err)
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
	list := func(key string, names []string) {
		if len(names) == 0 {
			return
		}
		field(key)
		b = append(b, '[')
		for i, d := range names {
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
	list("dependencies", r.Dependencies)
	if r.Protect {
		field("protect")
		b = append(b, "true"...)
	}
	if r.SkipDestroy {
		field("skipDestroy")
		b = append(b, "true"...)
	}
	if r.SchemaVersion != 0 {
		field("schemaVersion")
		b = strconv.AppendInt(b, r.SchemaVersion, 10)
	}
	if len(r.Private) > 0 {
		field("private")
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, r.Private)
		b = append(b, '"')
	}
	list("sensitive", r.Sensitive)
	if len(r.SensitiveWithin) > 0 {
		m := make(map[string]any, len(r.SensitiveWithin))
		for n, paths := range r.SensitiveWithin {
			l := make([]any, len(paths))
			for i, p := range paths {
				l[i] = p
			}
			m[n] = l
		}
		if err := obj("sensitiveWithin", m); err != nil {
			return nil, err
		}
	}
	if r.Basis != nil {
		field("basis")
		d := -1 // compact
		if depth >= 0 {
			d = depth + 1
		}
		b = r.Basis.appendJSON(b, d)
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
	if e.Type != "" {
		b = append(b, `,"type":`...)
		b = value.AppendString(b, e.Type)
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
