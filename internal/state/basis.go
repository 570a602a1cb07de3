package state

import (
	"fmt"
	"time"

	"github.com/kyku/action/internal/value"
)

// Basis is what one resource was last applied from, in digests: a plan
// whose own digests for the resource are these takes it from state
// without reading the cloud or asking its provider (engine, reads.go).
// It holds no value in clear.
type Basis struct {
	// Config digests the resource's resolved configuration: its type,
	// its values with every reference resolved, ignore_changes, its
	// lifecycle (protect, replace_triggered_by, create-before-destroy),
	// depends_on and what it marks sensitive.
	Config string `json:"config"`
	// Provider digests the configuration of the provider that serves it
	// (its alias's settings, its source).
	Provider string `json:"provider"`
	// ReadAt is when the object was last read from the cloud (or written
	// to it, which answers with the object), in UTC.
	ReadAt time.Time `json:"readAt"`
	// Version is that provider's version ("" when it has none to say).
	Version string `json:"version,omitempty"`
}

// Same reports whether b and o were recorded from the same configuration,
// provider configuration and provider version (ReadAt aside).
func (b *Basis) Same(o *Basis) bool {
	return b != nil && o != nil && b.Config == o.Config && b.Provider == o.Provider && b.Version == o.Version
}

// appendJSON appends b as an object, its keys sorted (its fields'
// order), as value.AppendJSON writes one (depth < 0) or AppendJSONIndent
// indents one depth levels deep: each entry of the journal and each
// resource of a state file carries one, written without a map made of it
// first.
func (b *Basis) appendJSON(dst []byte, depth int) []byte {
	dst = append(dst, '{')
	dst = value.AppendString(basisKey(dst, depth, "config", true), b.Config)
	dst = value.AppendString(basisKey(dst, depth, "provider", false), b.Provider)
	// RFC 3339 is digits, "-:.TZ+": nothing in it a JSON string escapes
	dst = append(b.ReadAt.AppendFormat(append(basisKey(dst, depth, "readAt", false), '"'), time.RFC3339Nano), '"')
	if b.Version != "" {
		dst = value.AppendString(basisKey(dst, depth, "version", false), b.Version)
	}
	if depth >= 0 {
		dst = indentLine(dst, depth)
	}
	return append(dst, '}')
}

// basisKey starts the entry key of a Basis's object depth levels deep.
func basisKey(dst []byte, depth int, key string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	if depth >= 0 {
		dst = indentLine(dst, depth+1)
	}
	dst = append(append(append(dst, '"'), key...), '"', ':')
	if depth >= 0 {
		dst = append(dst, ' ')
	}
	return dst
}

// indentLine starts a new line indented depth levels ("  " each).
func indentLine(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, "  "...)
	}
	return dst
}

// basisValue reads a basis object decoded as a value (null: none).
func basisValue(v any, key string) (*Basis, error) {
	m, err := mapValue(v, "", key)
	if m == nil || err != nil {
		return nil, err
	}
	b := &Basis{}
	for k, e := range m {
		s, ok := e.(string)
		if !ok && e != nil {
			return nil, fmt.Errorf("%s.%s: want a string, got %s", key, k, kind(e))
		}
		switch k {
		case "config":
			b.Config = s
		case "provider":
			b.Provider = s
		case "version":
			b.Version = s
		case "readAt":
			if e == nil {
				continue
			}
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return nil, fmt.Errorf("%s.readAt: not a time: %q", key, s)
			}
			b.ReadAt = t
		}
	}
	return b, nil
}
