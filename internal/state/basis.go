package state

import (
	"fmt"
	"time"
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

// fields are what a Basis is written as (keys sorted: its fields' order).
func (b *Basis) fields() map[string]any {
	m := map[string]any{"config": b.Config, "provider": b.Provider, "readAt": b.ReadAt.Format(time.RFC3339Nano)}
	if b.Version != "" {
		m["version"] = b.Version
	}
	return m
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
