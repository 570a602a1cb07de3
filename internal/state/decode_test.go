package state

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/value"
)

// refDecode is Decode as it was, parsing the document into maps first: the
// reference parseFile is held to.
func refDecode(name string, data []byte) (*File, error) {
	v, err := value.ParseJSON(data)
	var f *File
	if err == nil {
		f, err = refDecodeFile(v)
	}
	if err != nil {
		if verr := checkVersion(name, data); verr != nil {
			return nil, verr
		}
		return nil, fmt.Errorf("%s: %w: %v", name, ErrCorrupt, err)
	}
	if f.Metadata.Version != Version {
		if verr := checkVersion(name, data); verr != nil {
			return nil, verr
		}
	}
	if f.Metadata.Lineage == "" {
		return nil, fmt.Errorf("%s: %w: no metadata.lineage", name, ErrCorrupt)
	}
	if f.Resources == nil {
		f.Resources = map[string]*Resource{}
	}
	for n, r := range f.Resources {
		if r == nil {
			return nil, fmt.Errorf("%s: %w: resource %q is null", name, ErrCorrupt, n)
		}
		r.Name = n
	}
	return f, nil
}

var decodeSeeds = []string{
	`{"metadata":{"version":1,"lineage":"l","serial":3,"prefix":"p"},"resources":{"a":{"name":"x","type":"Vm","config":{"s":1},"outputs":{"id":"1"},"dependencies":["b"],"protect":true,"skipDestroy":true}},"outputs":{"o":2}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"type":"null_resource","schemaVersion":1,"private":"eyJhIjoxfQ=="}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"private":"not base64!"}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"schemaVersion":1.5}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"type":"Vm"},"a":null}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":null,"a":{"type":"Vm"}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":5,"a":{"type":"Vm"}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"type":5,"type":"Vm","dependencies":[1],"dependencies":null}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"type":5}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"dependencies":["x",2]}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"protect":"yes"}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"skipDestroy":1}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"sensitive":["t"],"sensitiveWithin":{"t":[".p","[0]"],"u":null}}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"sensitiveWithin":{"t":[1]}}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"sensitiveWithin":{"t":".p"}}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"sensitiveWithin":[]}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"config":[]}}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":[]}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":null,"outputs":null}`,
	`{"metadata":{"version":1,"lineage":"l"},"outputs":7}`,
	`{"metadata":{"version":1,"lineage":"l"},"outputs":{"a":1},"outputSensitivity":{"a":true}}`,
	`{"metadata":{"version":1,"lineage":"l"},"outputSensitivity":{"a":"yes"}}`,
	`{"metadata":{"version":1,"lineage":"l"},"outputSensitivity":[]}`,
	`{"metadata":{"version":1,"lineage":"l"},"outputSensitivity":null}`,
	`{"metadata":{"version":1,"lineage":"l"},"interrupted":{"a":"fwtest_item"}}`,
	`{"metadata":{"version":1,"lineage":"l"},"interrupted":{"a":true}}`,
	`{"metadata":{"version":1,"lineage":"l"},"interrupted":[]}`,
	`{"metadata":{"version":1.5,"lineage":"l"}}`, `{"metadata":{"version":2,"lineage":"l"}}`,
	`{"metadata":{"version":1,"lineage":"l"},"metadata":{"version":1}}`,
	`{"metadata":{"version":"1","lineage":"l"},"metadata":{"version":1,"lineage":"m"}}`,
	`{"metadata":null}`, `{"metadata":[]}`, `null`, `[]`, `"x"`, `{}`, `{"metadata":{"version":1,"lineage":"l"}} x`,
	`{"resources":{"a":{"type":5}},"metadata":{"version":"x"}}`, `{"x":[1,{"y":2}],"metadata":{"serial":1e3,"lineage":"l","version":1}}`,
	`{"metadata":{"version":1,"lineage":"l"},"resources":{"a":{"type":"Vm"},"b":{"name":`,
}

// Decode reads what it read when it parsed the whole document into maps
// first: the same File, or an error of the same kind (and the same message
// when the document leaves no choice of which bad resource to name).
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		b, err := Encode(randomFile(r))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := refDecode("s", data)
		got, err := Decode("s", data)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("Decode(%q): err %v, by maps: %v", data, err, wantErr)
		}
		if err != nil {
			for _, kind := range []error{ErrCorrupt, ErrUnsupportedVersion} {
				if errors.Is(err, kind) != errors.Is(wantErr, kind) {
					t.Fatalf("Decode(%q): err %v, by maps: %v", data, err, wantErr)
				}
			}
			// Of several bad resources, the maps named any one (their
			// order is random), Decode the first in the document.
			perResource := func(err error) bool {
				return strings.Contains(err.Error(), ": resources.") || strings.Contains(err.Error(), "is null")
			}
			if perResource(err) != perResource(wantErr) || !perResource(err) && err.Error() != wantErr.Error() {
				t.Fatalf("Decode(%q): err %v, by maps: %v", data, err, wantErr)
			}
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Decode(%q) (-by maps +Decode):\n%s", data, diff)
		}
	})
}

// refDecodeFile is how Decode read a state before parseFile: the whole
// document parsed into maps first, then read from them.
func refDecodeFile(v any) (*File, error) {
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
		version, err := refIntField(md, "version", "metadata")
		if err != nil {
			return nil, err
		}
		f.Metadata.Version = int(version)
		if f.Metadata.Serial, err = refIntField(md, "serial", "metadata"); err != nil {
			return nil, err
		}
		for _, s := range []struct {
			key string
			dst *string
		}{{"prefix", &f.Metadata.Prefix}, {"lineage", &f.Metadata.Lineage}, {"environment", &f.Metadata.Environment}} {
			if *s.dst, err = refStringField(md, s.key, "metadata"); err != nil {
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
			r, err := refDecodeResource(x, "resources."+name)
			if err != nil {
				return nil, err
			}
			f.Resources[name] = r
		}
	}
	var err error
	if f.Outputs, err = refMapField(m, "outputs", ""); err != nil {
		return nil, err
	}
	if f.OutputTypes, err = refMapField(m, "outputTypes", ""); err != nil {
		return nil, err
	}
	sens, err := refMapField(m, "outputSensitivity", "")
	if err != nil {
		return nil, err
	}
	if sens != nil {
		f.OutputSensitivity = map[string]bool{}
		for k, v := range sens {
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("outputSensitivity.%s: want a boolean, got %s", k, kind(v))
			}
			f.OutputSensitivity[k] = b
		}
	}
	intr, err := refMapField(m, "interrupted", "")
	if err != nil {
		return nil, err
	}
	if intr != nil {
		f.Interrupted = map[string]string{}
		for k, v := range intr {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("interrupted.%s: want a string, got %s", k, kind(v))
			}
			f.Interrupted[k] = s
		}
	}
	return &f, nil
}

func refDecodeResource(v any, where string) (*Resource, error) {
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
		if *s.dst, err = refStringField(m, s.key, where); err != nil {
			return nil, err
		}
	}
	if r.Config, err = refMapField(m, "config", where); err != nil {
		return nil, err
	}
	if r.Outputs, err = refMapField(m, "outputs", where); err != nil {
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
	switch p := m["skipDestroy"].(type) {
	case nil:
	case bool:
		r.SkipDestroy = p
	default:
		return nil, fmt.Errorf("%s.skipDestroy: want a boolean, got %s", where, kind(p))
	}
	if r.SchemaVersion, err = refIntField(m, "schemaVersion", where); err != nil {
		return nil, err
	}
	switch p := m["private"].(type) {
	case nil:
	case string:
		if p != "" {
			if r.Private, err = base64.StdEncoding.DecodeString(p); err != nil {
				return nil, fmt.Errorf("%s.private: not base64", where)
			}
		}
	default:
		return nil, fmt.Errorf("%s.private: want a string, got %s", where, kind(p))
	}
	for key, dst := range map[string]any{"sensitive": &r.Sensitive, "sensitiveWithin": &r.SensitiveWithin} {
		if m[key] == nil {
			continue
		}
		data, _ := json.Marshal(m[key])
		if err := json.Unmarshal(data, dst); err != nil {
			return nil, fmt.Errorf("%s.%s: %v", where, key, err)
		}
	}
	switch b := m["basis"].(type) {
	case nil:
	case map[string]any:
		data, _ := json.Marshal(b)
		r.Basis = &Basis{}
		if err := json.Unmarshal(data, r.Basis); err != nil {
			return nil, fmt.Errorf("%s.basis: %v", where, err)
		}
	default:
		return nil, fmt.Errorf("%s.basis: want an object, got %s", where, kind(b))
	}
	return r, nil
}

func refStringField(m map[string]any, key, where string) (string, error) {
	switch x := m[key].(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	default:
		return "", fmt.Errorf("%s: want a string, got %s", refDotted(where, key), kind(x))
	}
}

func refIntField(m map[string]any, key, where string) (int64, error) {
	switch x := m[key].(type) {
	case nil:
		return 0, nil
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, fmt.Errorf("%s: want an integer, got %v", refDotted(where, key), x)
		}
		return int64(x), nil
	default:
		return 0, fmt.Errorf("%s: want an integer, got %s", refDotted(where, key), kind(x))
	}
}

func refMapField(m map[string]any, key, where string) (map[string]any, error) {
	switch x := m[key].(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	default:
		return nil, fmt.Errorf("%s: want an object, got %s", refDotted(where, key), kind(x))
	}
}

func refDotted(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}
