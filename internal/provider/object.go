package provider

import (
	"errors"
	"fmt"
)

// NewObject returns the Object with provider ID id: outputs (nil for none)
// always carry "id", as the engine's references to the object expect.
func NewObject(id, cloudName string, props, outputs map[string]any) Object {
	if outputs == nil {
		outputs = map[string]any{}
	}
	outputs["id"] = id
	return Object{ID: id, CloudName: cloudName, Properties: props, Outputs: outputs}
}

// NotFound says that what (e.g. "network 4711") does not exist: it wraps
// ErrNotFound.
func NotFound(what string) error { return fmt.Errorf("%s: %w", what, ErrNotFound) }

// IsNotFound reports whether err (or anything it wraps) is ErrNotFound.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
