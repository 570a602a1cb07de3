// Package state owns the state file model and its versioned JSON encoding.
// It is pure: no I/O. A *File is not safe for concurrent mutation.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kyku/action/internal/value"
)

// Version is the state format this build writes and reads.
const Version = 1

// ErrCorrupt is wrapped by Decode for data that is not a valid state file.
var ErrCorrupt = errors.New("state is corrupt")

// ErrUnsupportedVersion is wrapped by Decode for a newer or unknown format.
var ErrUnsupportedVersion = errors.New("unsupported state version")

// File is the whole state of one environment.
type File struct {
	Metadata  Metadata             `json:"metadata"`
	Resources map[string]*Resource `json:"resources"`
	Outputs   map[string]any       `json:"outputs,omitempty"`
	// OutputTypes are, by name, the types of the outputs whose type the
	// apply that recorded them knew from a provider's schema (or Kyku's
	// own types), in Terraform's JSON type syntax (["map", "string"]), as
	// OpenTofu's state keeps them; an output not here takes its value's.
	OutputTypes map[string]any `json:"outputTypes,omitempty"`
	// OutputSensitivity says, for each output in Outputs, whether it was
	// sensitive when applied, so that a plan masks its old value although
	// the configuration no longer says so or no longer has it; nil in a
	// state written before Kyku recorded it (every old value is masked).
	OutputSensitivity map[string]bool `json:"outputSensitivity,omitempty"`
	// Interrupted are, by address, the types of the creates an apply
	// journaled the intent of (OpIntent) and never the outcome: the
	// provider may have made an object that no state records. A plan
	// refuses to create such an address again until the object is
	// imported there or the intent is dropped.
	Interrupted map[string]string `json:"interrupted,omitempty"`
}

// Metadata identifies a state's history: Lineage never changes after the
// first write; Serial rises with every write.
type Metadata struct {
	Version     int    `json:"version"`
	Prefix      string `json:"prefix"`
	Lineage     string `json:"lineage"`
	Serial      int64  `json:"serial"`
	Environment string `json:"environment,omitempty"`
}

// Resource is the last known state of one managed resource.
type Resource struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	CloudName  string         `json:"cloudName,omitempty"`
	ProviderID string         `json:"providerId,omitempty"`
	Config     map[string]any `json:"config,omitempty"` // resolved desired properties last applied
	// Outputs are what references read: a Kyku type's outputs, or, for a
	// Terraform provider's resource, every attribute value of its state
	// (null attributes left out), as Terraform's state keeps them.
	Outputs      map[string]any `json:"outputs,omitempty"`
	Dependencies []string       `json:"dependencies,omitempty"`
	Protect      bool           `json:"protect,omitempty"`
	// SkipDestroy: the configuration said lifecycle destroy = false when
	// it was last applied: the object is forgotten, not destroyed, once
	// the configuration no longer has it (and by a destroy), as OpenTofu
	// reads skip_destroy from its state.
	SkipDestroy bool `json:"skipDestroy,omitempty"`
	// SchemaVersion and Private, for a Terraform provider's resource, are
	// the version of its type's schema Outputs were written with and the
	// provider's private data (opaque; handed back with every call).
	SchemaVersion int64  `json:"schemaVersion,omitempty"`
	Private       []byte `json:"private,omitempty"`
	// Sensitive are the top-level properties (attributes) that held a
	// secret when last applied (plan.Change.Sensitive): plans and drift
	// reports keep masking them, also once the configuration no longer
	// says so or no longer has the resource, as Terraform's
	// sensitive_attributes.
	Sensitive []string `json:"sensitive,omitempty"`
	// SensitiveWithin, for a property of Sensitive that held a secret
	// only in parts (plan.Change.SensitiveWithin: a sensitive variable set
	// inside an object), lists the paths inside it whose values were
	// secret (value.Ref's Path syntax: `.password` for an object's
	// attribute, `["key"]` for a map's entry, `[0]` for a list's element),
	// as Terraform's sensitive_attributes keeps each sensitive path: plans
	// mask those parts alone. A property of Sensitive missing here is
	// secret whole (so is every one in a state written before Kyku kept
	// paths).
	SensitiveWithin map[string][]string `json:"sensitiveWithin,omitempty"`
	// Types are, for its attributes of any type (terraform_data's input,
	// output, triggers_replace), their types in Terraform's JSON type
	// syntax, as OpenTofu's state records them with the values
	// (config.Resource.DynamicTypes); one missing is its value's own.
	Types map[string]any `json:"types,omitempty"`
	// Basis is what the resource was last applied from (basis.go); nil
	// in a state written before Kyku recorded it: a plan reads it.
	Basis *Basis `json:"basis,omitempty"`
}

// New returns an empty state.
func New(prefix, lineage, env string) *File {
	return &File{
		Metadata:  Metadata{Version: Version, Prefix: prefix, Lineage: lineage, Environment: env},
		Resources: map[string]*Resource{},
	}
}

// Names returns the resource names, sorted (value.CompareNames: web[2]
// before web[10]).
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Resources))
	for n := range f.Resources {
		names = append(names, n)
	}
	slices.SortFunc(names, value.CompareNames)
	return names
}

// Clone returns a deep copy.
func (f *File) Clone() *File {
	c := &File{Metadata: f.Metadata, Resources: make(map[string]*Resource, len(f.Resources))}
	for n, r := range f.Resources {
		c.Resources[n] = r.Clone()
	}
	if f.Outputs != nil {
		c.Outputs = value.CopyMap(f.Outputs)
	}
	if f.OutputTypes != nil {
		c.OutputTypes = value.CopyMap(f.OutputTypes)
	}
	c.OutputSensitivity = maps.Clone(f.OutputSensitivity)
	c.Interrupted = maps.Clone(f.Interrupted)
	return c
}

// Clone returns a deep copy.
func (r *Resource) Clone() *Resource {
	c := *r
	c.Config = value.CopyMap(r.Config)
	c.Outputs = value.CopyMap(r.Outputs)
	c.Dependencies = append([]string(nil), r.Dependencies...)
	c.Sensitive = slices.Clone(r.Sensitive)
	if r.Types != nil {
		c.Types = value.CopyMap(r.Types)
	}
	if r.SensitiveWithin != nil {
		c.SensitiveWithin = make(map[string][]string, len(r.SensitiveWithin))
		for n, paths := range r.SensitiveWithin {
			c.SensitiveWithin[n] = slices.Clone(paths)
		}
	}
	if r.Basis != nil {
		b := *r.Basis
		c.Basis = &b
	}
	c.Private = append([]byte(nil), r.Private...)
	if r.Private == nil {
		c.Private = nil
	}
	return &c
}

// Encode returns the canonical JSON (indented, keys sorted, trailing newline).
func Encode(f *File) ([]byte, error) {
	if f.Resources == nil {
		f.Resources = map[string]*Resource{}
	}
	b, err := appendFile(make([]byte, 0, 256*len(f.Resources)+256), f, nil)
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return append(b, '\n'), nil
}

// chunk is how much EncodeTo gathers before writing.
const chunk = 32 << 10

// EncodeTo writes what Encode returns to w, in chunks: the state of
// thousands of resources is never whole in memory (it would be, at the
// very moment an apply holds the most: its plan and the new state).
func EncodeTo(w io.Writer, f *File) error {
	if f.Resources == nil {
		f.Resources = map[string]*Resource{}
	}
	flush := func(b []byte) ([]byte, error) {
		if _, err := w.Write(b); err != nil {
			return nil, err
		}
		return b[:0], nil
	}
	b, err := appendFile(make([]byte, 0, 2*chunk), f, flush)
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Decode parses a state file, refusing corrupt data and unknown versions.
// name is used in error messages (a path or an object key). Numbers decode
// as float64 and every value is canonical (package value) as decoded: one
// pass over the data without reflection, which a plan of thousands of
// resources pays for.
func Decode(name string, data []byte) (*File, error) {
	f, nulls, err := parseFile(data)
	if err != nil {
		// A newer format may not fit this build's types: say so rather
		// than "corrupt" when its version says it is one.
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
	if len(nulls) > 0 {
		return nil, fmt.Errorf("%s: %w: resource %q is null", name, ErrCorrupt, nulls[0])
	}
	return f, nil
}

// checkVersion reports data that is not JSON, has no metadata.version, or
// has a version this build does not read.
func checkVersion(name string, data []byte) error {
	var probe struct {
		Metadata *struct {
			Version *int `json:"version"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("%s: %w: %v", name, ErrCorrupt, err)
	}
	if probe.Metadata == nil || probe.Metadata.Version == nil {
		return fmt.Errorf("%s: %w: no metadata.version", name, ErrCorrupt)
	}
	if v := *probe.Metadata.Version; v != Version {
		return fmt.Errorf("%s: %w %d (this kyku reads version %d; upgrade kyku)", name, ErrUnsupportedVersion, v, Version)
	}
	return nil
}

func normMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return value.Normalize(m).(map[string]any)
}

// Op is what a journal entry does to a state.
type Op string

const (
	OpPut    Op = "put"
	OpDelete Op = "delete"
	OpMove   Op = "move" // From is Name from now on (a moved entry)
	// OpIntent is written, durably, before a provider is asked to create
	// Name (of type Type): until an OpPut or OpNoObject of Name follows,
	// an object may exist that no state records (File.Interrupted).
	OpIntent Op = "intent"
	// OpNoObject closes an OpIntent whose create the provider answered
	// with an error and no object.
	OpNoObject Op = "noobject"
)

// Entry is one finished change, appended durably to the journal beside the
// state before anything that depends on it starts.
type Entry struct {
	Seq        int64     `json:"seq"`
	BaseSerial int64     `json:"baseSerial"` // serial of the state the apply started from
	Lineage    string    `json:"lineage"`
	Op         Op        `json:"op"`
	Name       string    `json:"name"`
	From       string    `json:"from,omitempty"`     // for OpMove
	Type       string    `json:"type,omitempty"`     // for OpIntent
	Resource   *Resource `json:"resource,omitempty"` // for OpPut
}

// Fold applies journal entries to f in Seq order. Entries from another
// lineage, or whose base serial is older than f's serial (already folded),
// are ignored. It reports whether anything changed.
func Fold(f *File, entries []Entry) bool {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Seq < entries[j].Seq })
	changed := false
	for _, e := range entries {
		if e.Lineage != f.Metadata.Lineage || e.BaseSerial < f.Metadata.Serial {
			continue
		}
		switch e.Op {
		case OpPut:
			if e.Resource != nil {
				r := e.Resource.Clone()
				r.Name = e.Name
				r.Config = normMap(r.Config)
				r.Outputs = normMap(r.Outputs)
				f.Resources[e.Name] = r
				delete(f.Interrupted, e.Name) // the create's outcome
				changed = true
			}
		case OpIntent:
			if f.Interrupted == nil {
				f.Interrupted = map[string]string{}
			}
			f.Interrupted[e.Name] = e.Type
			changed = true
		case OpNoObject:
			if _, ok := f.Interrupted[e.Name]; ok {
				delete(f.Interrupted, e.Name)
				changed = true
			}
		case OpDelete:
			if _, ok := f.Resources[e.Name]; ok {
				delete(f.Resources, e.Name)
				changed = true
			}
		case OpMove:
			if f.Move(e.From, e.Name) == nil {
				changed = true
			}
		}
	}
	if len(f.Interrupted) == 0 {
		f.Interrupted = nil
	}
	return changed
}

// MoveIntent carries the open intent of an interrupted create of from
// (Interrupted), if any, to to: the object that create may have made is
// to's now. An intent at both is an error (one would be lost).
func (f *File) MoveIntent(from, to string) error {
	typ, ok := f.Interrupted[from]
	if !ok {
		return nil
	}
	if _, clash := f.Interrupted[to]; clash {
		return fmt.Errorf("move %q to %q: both have an open intent of an interrupted create", from, to)
	}
	delete(f.Interrupted, from)
	f.Interrupted[to] = typ
	return nil
}

// Move renames resource from to to, and every dependency on it: the cloud
// object is the same, only its name in state changes. It refuses a from
// that is not in f and a to that is.
func (f *File) Move(from, to string) error {
	r, ok := f.Resources[from]
	switch {
	case !ok:
		return fmt.Errorf("move %q to %q: %q is not in state", from, to, from)
	case f.Resources[to] != nil:
		return fmt.Errorf("move %q to %q: %q is in state already", from, to, to)
	}
	if err := f.MoveIntent(from, to); err != nil {
		return err
	}
	delete(f.Resources, from)
	r.Name = to
	f.Resources[to] = r
	for _, o := range f.Resources {
		for i, d := range o.Dependencies {
			if d == from {
				o.Dependencies[i] = to
			}
		}
	}
	return nil
}

// deposedSuffix marks the state entry of an object a create-before-destroy
// replace replaced and has yet to destroy. No configured name holds "~".
const deposedSuffix = "~deposed"

// DeposedName is the state name of name's object a create-before-destroy
// replace keeps until it is destroyed: a resource no configuration holds,
// so a plan destroys it if an apply did not. A Terraform state holds it
// as a deposed object of name (package tfstate).
func DeposedName(name string) string { return name + deposedSuffix }

// DeposedOf is the resource a deposed object's state name belongs to.
func DeposedOf(name string) (string, bool) { return strings.CutSuffix(name, deposedSuffix) }
