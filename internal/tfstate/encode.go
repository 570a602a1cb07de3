package tfstate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Form is how a state's JSON is laid out.
type Form uint8

const (
	// Compact is what OpenTofu writes to remote backends (s3, gcs, http)
	// and backup files: one line, and a newline.
	Compact Form = iota
	// Indented is what its local backend writes to terraform.tfstate: the
	// compact form indented by two spaces, and two newlines.
	Indented
)

// Encode writes f as OpenTofu 1.12 writes a state: its fields in its
// order, resources sorted by module, mode, type and name, instances by key
// and deposed key, outputs by name, in form. Encode sorts f's resources and
// instances in place.
func Encode(f *File, form Form) ([]byte, error) {
	if f == nil {
		return nil, fmt.Errorf("encode state: no state")
	}
	sortFile(f)
	b := make([]byte, 0, 1024)
	b = append(b, `{"version":4,"terraform_version":`...)
	b = appendString(b, f.TerraformVersion)
	b = append(b, `,"serial":`...)
	b = strconv.AppendUint(b, f.Serial, 10)
	b = append(b, `,"lineage":`...)
	b = appendString(b, f.Lineage)
	b = append(b, `,"outputs":{`...)
	names := make([]string, 0, len(f.Outputs))
	for n := range f.Outputs {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		o := f.Outputs[n]
		if o == nil || !json.Valid(o.Value) || !json.Valid(o.Type) {
			return nil, fmt.Errorf("encode state: output %s: its value and type must be JSON", n)
		}
		b = appendString(b, n)
		b = append(b, `:{"value":`...)
		b = append(b, compactHTML(o.Value)...)
		b = append(b, `,"type":`...)
		b = append(b, compactHTML(o.Type)...)
		if o.Sensitive {
			b = append(b, `,"sensitive":true`...)
		}
		if o.Deprecated != "" {
			b = append(b, `,"deprecated":`...)
			b = appendString(b, o.Deprecated)
		}
		b = append(b, '}')
	}
	b = append(b, `},"resources":[`...)
	for i, r := range f.Resources {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendResource(b, r); err != nil {
			return nil, fmt.Errorf("encode state: %s: %w", r.Addr(), err)
		}
	}
	b = append(b, `],"check_results":`...)
	b = appendCheckResults(b, f.CheckResults)
	b = append(b, "}\n"...)
	return Reform(b, form)
}

// Reform lays out compact, a state as Encode writes it in the Compact
// form, in form: compact itself, or indented.
func Reform(compact []byte, form Form) ([]byte, error) {
	if form != Indented {
		return compact, nil
	}
	var out bytes.Buffer
	out.Grow(len(compact) * 3 / 2)
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("encode state: indent: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func appendResource(b []byte, r *Resource) ([]byte, error) {
	b = append(b, '{')
	if r.Module != "" {
		b = append(b, `"module":`...)
		b = appendString(b, r.Module)
		b = append(b, ',')
	}
	if r.Mode != Managed && r.Mode != Data {
		return nil, fmt.Errorf("mode %d is neither managed nor data", r.Mode)
	}
	b = append(b, `"mode":`...)
	b = appendString(b, r.Mode.String())
	b = append(b, `,"type":`...)
	b = appendString(b, r.Type)
	b = append(b, `,"name":`...)
	b = appendString(b, r.Name)
	if r.Provider != "" {
		b = append(b, `,"provider":`...)
		b = appendString(b, r.Provider)
	}
	b = append(b, `,"instances":[`...)
	for i, in := range r.Instances {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendInstance(b, in); err != nil {
			return nil, fmt.Errorf("instance %s: %w", r.InstanceAddr(in.Key), err)
		}
	}
	return append(b, "]}"...), nil
}

func appendInstance(b []byte, in *Instance) ([]byte, error) {
	b = append(b, '{')
	comma := false
	field := func(name string) {
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
	}
	switch in.Key.Kind {
	case IntKey:
		field("index_key")
		b = strconv.AppendInt(b, int64(in.Key.Int), 10)
	case StringKey:
		field("index_key")
		b = appendString(b, in.Key.Str)
	}
	if in.Status != "" {
		field("status")
		b = appendString(b, in.Status)
	}
	if in.Deposed != "" {
		field("deposed")
		b = appendString(b, in.Deposed)
	}
	if in.Provider != "" {
		field("provider")
		b = appendString(b, in.Provider)
	}
	field("schema_version")
	b = strconv.AppendUint(b, in.SchemaVersion, 10)
	if len(in.Attributes) > 0 {
		if !json.Valid(in.Attributes) {
			return nil, fmt.Errorf("attributes are not JSON")
		}
		field("attributes")
		b = append(b, compactHTML(in.Attributes)...)
	}
	if len(in.AttributesFlat) > 0 {
		field("attributes_flat")
		keys := make([]string, 0, len(in.AttributesFlat))
		for k := range in.AttributesFlat {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, in.AttributesFlat[k])
		}
		b = append(b, '}')
	}
	field("sensitive_attributes")
	b = appendPaths(b, in.Sensitive)
	if len(in.Private) > 0 {
		field("private")
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, in.Private)
		b = append(b, '"')
	}
	if len(in.Dependencies) > 0 {
		field("dependencies")
		b = append(b, '[')
		for i, d := range in.Dependencies {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, d)
		}
		b = append(b, ']')
	}
	if in.CreateBeforeDestroy {
		field("create_before_destroy")
		b = append(b, "true"...)
	}
	if in.SkipDestroy {
		field("skip_destroy")
		b = append(b, "true"...)
	}
	if len(in.Identity) > 0 {
		if !json.Valid(in.Identity) {
			return nil, fmt.Errorf("identity is not JSON")
		}
		field("identity")
		b = append(b, compactHTML(in.Identity)...)
	}
	if in.IdentitySchemaVersion != nil {
		field("identity_schema_version")
		b = strconv.AppendUint(b, *in.IdentitySchemaVersion, 10)
	}
	return append(b, '}'), nil
}

// appendCheckResults writes check results as OpenTofu does: null for
// none, objects null for an aggregate without any.
func appendCheckResults(b []byte, cs []*CheckResult) []byte {
	if len(cs) == 0 {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"object_kind":`...)
		b = appendString(b, c.Kind)
		b = append(b, `,"config_addr":`...)
		b = appendString(b, c.Addr)
		b = append(b, `,"status":`...)
		b = appendString(b, c.Status)
		b = append(b, `,"objects":`...)
		if len(c.Objects) == 0 {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j, o := range c.Objects {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"object_addr":`...)
				b = appendString(b, o.Addr)
				b = append(b, `,"status":`...)
				b = appendString(b, o.Status)
				if len(o.FailureMessages) > 0 {
					b = append(b, `,"failure_messages":[`...)
					for k, m := range o.FailureMessages {
						if k > 0 {
							b = append(b, ',')
						}
						b = appendString(b, m)
					}
					b = append(b, ']')
				}
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// sortFile orders resources and instances as OpenTofu writes them. The
// sort is stable, as OpenTofu's.
func sortFile(f *File) {
	slices.SortStableFunc(f.Resources, func(a, b *Resource) int {
		if c := strings.Compare(a.Module, b.Module); c != 0 {
			return c
		}
		if c := strings.Compare(a.Mode.String(), b.Mode.String()); c != 0 {
			return c
		}
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, r := range f.Resources {
		slices.SortStableFunc(r.Instances, func(a, b *Instance) int {
			if c := a.Key.compare(b.Key); c != 0 {
				return c
			}
			return strings.Compare(a.Deposed, b.Deposed)
		})
	}
}
