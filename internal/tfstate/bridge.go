package tfstate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Bridge maps a Terraform state to Kyku's state model and back, keeping
// what the model has no place for: a Kyku write changes only the instances
// and outputs whose values changed, and leaves every other byte as
// OpenTofu wrote it.
//
// In Kyku's model, each current object of a managed resource instance is a
// state.Resource named by its Terraform address
// (module.net.aws_subnet.private[0]): Type is its resource type, Outputs
// its attributes (null ones left out), ProviderID its "id" attribute (its
// address when it has none), and Dependencies, SchemaVersion and Private
// are the instance's; Sensitive names the top-level attributes of its
// sensitive paths, SensitiveWithin the paths inside those secret only in
// parts (withinpaths.go). Root outputs are Outputs, with OutputTypes and
// OutputSensitivity. An address's first deposed object (one a
// create_before_destroy replacement made and had yet to destroy) is
// state.DeposedName of its address, which Kyku's next plan destroys, and
// Kyku's deposed objects are written back as deposed objects. Data
// resources, further deposed objects, tainted status,
// create_before_destroy, provider addresses, identities and check results
// stay in the Terraform state only (Tainted and Deposed list those Kyku
// must know of). What Kyku's model holds and a Terraform state does not
// (Config, CloudName, Protect, the deploy prefix) is Extra. Kyku's own
// types keep their Config and CloudName in their attributes too
// (kykutypes.go).
type Bridge struct {
	orig    *File
	opts    BridgeOptions
	st      *state.File                // what State hands out: itself first, copies after
	handed  bool                       // st was handed out: what State hands out next is a copy of given and outs
	meta    state.Metadata             // st's, as NewBridge made it
	intr    map[string]string          // st's Interrupted, as NewBridge made it
	given   map[string]*state.Resource // as handed out, by name (a copy of its own; see reparsed)
	current map[string]*Instance       // the current object of each, by name
	// reparsed names the resources of given kept without their
	// attributes (Outputs), by their type: givenOf parses them again from
	// their instance's bytes when a write or a later State needs them,
	// so that a plan, which needs neither, does not keep a second copy of
	// every object's attributes (a quarter of its live heap).
	reparsed map[string]string
	outs     map[string]givenOutput
	tainted  []string
	// kykuTypes are the types kykuType gave, by type and provider.
	kykuTypes map[[2]string]string
	deposed   []DeposedObject
}

// BridgeOptions say what a Terraform state does not.
type BridgeOptions struct {
	// Workspace is the Terraform workspace, Kyku's environment ("" for
	// the default one).
	Workspace string
	// Extra is what Kyku kept beside the state; it applies only to the
	// state version it was written with. The bridge takes its values
	// over (the state handed out holds them): the caller neither reads
	// nor changes them afterwards.
	Extra *Extra
	// Provider returns the provider configuration address of a resource
	// new to the state (provider["registry.opentofu.org/hashicorp/aws"]);
	// nil, or "", takes the provider its type implies, as OpenTofu does
	// for a resource with no provider argument.
	Provider func(InstanceAddr) string
	// KykuType is the type Kyku's model gives a resource of type typ
	// whose provider configuration is provider (tfconfig.KykuType: an
	// aliased configuration's resources are typed by it,
	// aws-west_instance); nil: typ.
	KykuType func(typ, provider string) string
	// Empties is what each top-level attribute and nested block of a
	// resource type (Kyku's model's type) holds when unset: a new
	// instance is written with every one its attributes leave out, as
	// OpenTofu writes it (Kyku's model leaves null attributes out); nil,
	// or a nil answer: as Kyku's model holds them.
	Empties func(typ string) map[string]any
}

// DeposedObject is an object a create_before_destroy replacement deposed
// and did not destroy: OpenTofu destroys it on its next apply.
type DeposedObject struct {
	Addr string // the instance's address
	Key  string // the deposed key
	ID   string // its "id" attribute
}

type givenOutput struct {
	value, typ any
	sensitive  bool
}

// NewBridge maps f into Kyku's model. It refuses a state whose objects
// Kyku cannot read: attributes only in Terraform 0.11's flat form.
func NewBridge(f *File, opts BridgeOptions) (*Bridge, error) {
	n := 0 // the instances, at most one resource each: maps made to size, not grown
	for _, r := range f.Resources {
		if r.Mode == Managed {
			n += len(r.Instances)
		}
	}
	b := &Bridge{orig: f, opts: opts, given: make(map[string]*state.Resource, n), current: make(map[string]*Instance, n),
		reparsed: make(map[string]string, n), outs: map[string]givenOutput{}}
	st := state.New("", f.Lineage, opts.Workspace)
	st.Resources = make(map[string]*state.Resource, n)
	st.Metadata.Serial = int64(f.Serial)
	extra := opts.Extra
	var interrupted map[string]string
	if extra != nil && extra.Lineage == f.Lineage {
		interrupted = extra.Interrupted
	}
	if extra != nil && (extra.Lineage != f.Lineage || extra.Serial != f.Serial) {
		extra = nil // OpenTofu wrote the state since
	}
	if extra != nil {
		st.Metadata.Prefix = extra.Prefix
	}
	names := map[string]string{} // the attribute names met so far (attrValuesWith)
	for _, r := range f.Resources {
		if r.Mode != Managed {
			continue
		}
		kt := kykuTypeOf(r)
		for _, in := range r.Instances {
			name := r.InstanceAddr(in.Key)
			if in.Attributes == nil {
				return nil, fmt.Errorf("%s: its attributes are in Terraform 0.11's flat form, which kyku does not read; let tofu rewrite the state first (tofu apply -refresh-only)", name)
			}
			attrs, err := attrValuesWith(in.Attributes, names)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			for k := range attrs {
				if _, ok := names[k]; !ok && len(names) < maxNames {
					names[k] = k
				}
			}
			types := unwrapDynamic(r.Type, attrs)
			if in.Deposed != "" {
				if dep := state.DeposedName(name); st.Resources[dep] == nil {
					// Kyku's model holds one deposed object an address:
					// the first, which its next plan destroys.
					sr := &state.Resource{
						Name: dep, Type: b.kykuType(r), ProviderID: idOf(attrs, name), Outputs: attrs,
						Dependencies: slices.Clone(in.Dependencies), SchemaVersion: int64(in.SchemaVersion),
						Private: slices.Clone(in.Private), Types: types,
					}
					sr.Sensitive, sr.SensitiveWithin = modelSensitive(in.Sensitive)
					st.Resources[dep], b.given[dep], b.current[dep] = sr, sr.Clone(), in
					continue
				}
				id, _ := attrs["id"].(string)
				b.deposed = append(b.deposed, DeposedObject{Addr: name, Key: in.Deposed, ID: id})
				continue
			}
			sr := &state.Resource{
				Name: name, Type: b.kykuType(r), ProviderID: idOf(attrs, name), Outputs: attrs,
				Dependencies: slices.Clone(in.Dependencies), SchemaVersion: int64(in.SchemaVersion),
				Private: slices.Clone(in.Private), Types: types, SkipDestroy: in.SkipDestroy,
			}
			sr.Sensitive, sr.SensitiveWithin = modelSensitive(in.Sensitive)
			if kt != nil {
				fromKykuAttrs(kt, sr)
			}
			if extra != nil {
				if x := extra.Resources[name]; x != nil {
					if kt == nil { // a Kyku type's are in its attributes
						sr.Config, sr.CloudName = x.Config, x.CloudName
					}
					sr.Protect = x.Protect
					if x.Basis != nil {
						b := *x.Basis
						sr.Basis = &b
					}
					if x.ProviderID != "" {
						sr.ProviderID = x.ProviderID
					}
				}
			}
			if in.Status == "tainted" {
				b.tainted = append(b.tainted, name)
			}
			st.Resources[name] = sr
			if kt == nil { // a Kyku type's attributes are its Config and Outputs: kept whole
				attrs := sr.Outputs
				sr.Outputs = nil
				b.given[name] = sr.Clone()
				sr.Outputs = attrs
				b.reparsed[name] = r.Type
			} else {
				b.given[name] = sr.Clone()
			}
			b.current[name] = in
		}
	}
	for name, o := range f.Outputs {
		v, typ, err := outputValues(o)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", name, err)
		}
		if st.Outputs == nil {
			st.Outputs, st.OutputTypes, st.OutputSensitivity = map[string]any{}, map[string]any{}, map[string]bool{}
		}
		st.Outputs[name], st.OutputTypes[name], st.OutputSensitivity[name] = v, typ, o.Sensitive
		b.outs[name] = givenOutput{value: value.Copy(v), typ: value.Copy(typ), sensitive: o.Sensitive}
	}
	for name, typ := range interrupted {
		if st.Resources[name] != nil && extra == nil {
			continue // OpenTofu recorded an object there since (tofu import)
		}
		if st.Interrupted == nil {
			st.Interrupted = map[string]string{}
		}
		st.Interrupted[name] = typ
	}
	b.st, b.meta, b.intr = st, st.Metadata, maps.Clone(st.Interrupted)
	return b, nil
}

// maxNames bounds the attribute names NewBridge shares between objects.
const maxNames = 4096

// State returns Kyku's view of the state, the caller's to change: the
// first call hands out the one NewBridge built (the bridge keeps copies
// of its own to patch against, given and outs), each later call a copy of
// what the first handed out was.
func (b *Bridge) State() *state.File {
	if !b.handed {
		b.handed = true
		return b.st
	}
	st := &state.File{Metadata: b.meta, Resources: make(map[string]*state.Resource, len(b.given)), Interrupted: maps.Clone(b.intr)}
	for name, r := range b.given {
		c := r.Clone()
		if typ, ok := b.reparsed[name]; ok {
			c.Outputs = reparse(typ, b.current[name])
		}
		st.Resources[name] = c
	}
	for name, o := range b.outs {
		if st.Outputs == nil {
			st.Outputs, st.OutputTypes, st.OutputSensitivity = map[string]any{}, map[string]any{}, map[string]bool{}
		}
		st.Outputs[name], st.OutputTypes[name], st.OutputSensitivity[name] = value.Copy(o.value), value.Copy(o.typ), o.sensitive
	}
	return st
}

// givenOf is given[name] with its attributes, in of type typ being its
// current instance.
func (b *Bridge) givenOf(name, typ string, in *Instance) *state.Resource {
	g := b.given[name]
	if _, ok := b.reparsed[name]; !ok || g == nil {
		return g
	}
	c := *g
	c.Outputs = reparse(typ, in)
	return &c
}

// reparse is the attributes of in, of a resource of type typ, as
// NewBridge made them. NewBridge parsed the same bytes without error.
func reparse(typ string, in *Instance) map[string]any {
	attrs, err := attrValues(in.Attributes)
	if err != nil {
		panic("tfstate: attributes parsed once fail to parse again: " + err.Error())
	}
	unwrapDynamic(typ, attrs)
	return attrs
}

// Tainted lists the instances OpenTofu marked tainted (a failed create):
// OpenTofu replaces them on its next apply.
func (b *Bridge) Tainted() []string { return slices.Clone(b.tainted) }

// Deposed lists the deposed objects Kyku's model does not hold (an
// address's second and later): OpenTofu destroys them on its next apply.
func (b *Bridge) Deposed() []DeposedObject { return slices.Clone(b.deposed) }

// idOf is a Terraform object's ID in Kyku's model: its "id" attribute, or
// its address when it has none.
func idOf(attrs map[string]any, name string) string {
	if id, ok := attrs["id"].(string); ok && id != "" {
		return id
	}
	return name
}

// sensitiveNames are the top-level attributes paths start at, sorted.
func sensitiveNames(paths []Path) []string {
	var names []string
	for _, p := range paths {
		if t := p.Top(); t != "" {
			names = append(names, t)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// File is the Terraform state holding next: the state the bridge was made
// from, with the instances and outputs Kyku changed, added or removed,
// next's lineage and serial, and the rest as it was. Extra is what next
// holds that the Terraform state has no place for.
func (b *Bridge) File(next *state.File) (*File, *Extra, error) {
	if next.Metadata.Serial < 0 {
		return nil, nil, fmt.Errorf("serial %d is negative", next.Metadata.Serial)
	}
	out := &File{
		TerraformVersion: b.orig.TerraformVersion, Serial: uint64(next.Metadata.Serial), Lineage: next.Metadata.Lineage,
		Outputs: map[string]*Output{}, CheckResults: b.orig.CheckResults,
	}
	if out.TerraformVersion == "" {
		out.TerraformVersion = WriterVersion
	}
	groups := map[string]*Resource{}
	for _, r := range b.orig.Resources {
		nr := *r
		nr.Instances = nil
		for _, in := range r.Instances {
			name := r.InstanceAddr(in.Key)
			if in.Deposed != "" {
				name = state.DeposedName(name)
			}
			if r.Mode != Managed || b.current[name] != in {
				nr.Instances = append(nr.Instances, in) // a data resource, a deposed object Kyku does not hold
				continue
			}
			sr := next.Resources[name]
			if sr == nil {
				continue // destroyed, or forgotten
			}
			pin, err := patchInstance(in, b.givenOf(name, r.Type, in), sr)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			nr.Instances = append(nr.Instances, pin)
		}
		if len(r.Instances) > 0 && len(nr.Instances) == 0 {
			continue // its last instance is gone: so is the resource
		}
		groups[nr.Addr()] = &nr
		out.Resources = append(out.Resources, &nr)
	}
	for _, name := range sortedNames(next.Resources) {
		if b.current[name] != nil {
			continue
		}
		if err := b.add(out, groups, name, next.Resources[name]); err != nil {
			return nil, nil, err
		}
	}
	if err := b.outputs(out, next); err != nil {
		return nil, nil, err
	}
	return out, extraOf(next, out), nil
}

// add puts a resource instance new to the state into out: a deposed
// object (state.DeposedName) as a deposed object of its address.
func (b *Bridge) add(out *File, groups map[string]*Resource, name string, sr *state.Resource) error {
	addr, deposed := state.DeposedOf(name)
	a, err := ParseInstanceAddr(addr)
	if deposed {
		name = addr
	}
	if err != nil {
		return fmt.Errorf("resource %s: a Terraform state holds resources by their Terraform address: %w", name, err)
	}
	switch {
	case a.String() != name:
		return fmt.Errorf("resource %s: write its address as %s", name, a.String())
	case a.Mode != Managed:
		return fmt.Errorf("resource %s: a data resource is not kept in kyku's state", name)
	case stateType(sr) != a.Type && (b.opts.KykuType == nil || b.opts.KykuType(a.Type, b.provider(a)) != sr.Type):
		return fmt.Errorf("resource %s: its type %s is not the type of its address", name, sr.Type)
	}
	filled := sr
	if b.opts.Empties != nil && modelKykuType(sr) == nil {
		if empty := b.opts.Empties(sr.Type); len(empty) > 0 {
			c := *sr
			c.Outputs = make(map[string]any, len(sr.Outputs)+len(empty))
			maps.Copy(c.Outputs, sr.Outputs)
			for name, v := range empty {
				if _, ok := c.Outputs[name]; !ok {
					c.Outputs[name] = v
				}
			}
			filled = &c
		}
	}
	in, err := patchInstance(&Instance{Key: a.Key}, nil, filled)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if deposed {
		in.Deposed = deposedKey(sr)
	}
	g := groups[(&Resource{Module: a.Module, Mode: a.Mode, Type: a.Type, Name: a.Name}).Addr()]
	if g == nil {
		g = &Resource{Module: a.Module, Mode: a.Mode, Type: a.Type, Name: a.Name, Provider: b.provider(a)}
		groups[g.Addr()] = g
		out.Resources = append(out.Resources, g)
	} else if g.Provider == "" {
		// Its instances name their provider instances (a provider with
		// for_each): only the configuration knows this one's.
		if b.opts.Provider == nil || b.opts.Provider(a) == "" {
			return fmt.Errorf("resource %s: its provider instance is not known (the resource's instances each name theirs)", name)
		}
		in.Provider = b.opts.Provider(a)
	}
	g.Instances = append(g.Instances, in)
	return nil
}

// kykuType is the type Kyku's model gives r's instances: the type its
// provider configuration gives it (BridgeOptions.KykuType), else r's.
func (b *Bridge) kykuType(r *Resource) string {
	if b.opts.KykuType == nil {
		return r.Type
	}
	key := [2]string{r.Type, r.Provider} // a state of 50,000 resources has a few of these
	if t, ok := b.kykuTypes[key]; ok {
		return t
	}
	t := b.opts.KykuType(r.Type, r.Provider)
	if t == "" {
		t = r.Type
	}
	if b.kykuTypes == nil {
		b.kykuTypes = map[[2]string]string{}
	}
	b.kykuTypes[key] = t
	return t
}

// deposedKey is the key a deposed object Kyku adds to the state is held
// by: 8 hexadecimal digits, as OpenTofu's, made from the object's ID so
// that writing the state again keeps it.
func deposedKey(sr *state.Resource) string {
	sum := sha256.Sum256([]byte(sr.Name + "\x00" + sr.ProviderID))
	return hex.EncodeToString(sum[:4])
}

// provider is the provider configuration address of a new resource.
func (b *Bridge) provider(a InstanceAddr) string {
	_, kyku := schema.ByHCLType(a.Type)
	if b.opts.Provider != nil {
		// Kyku's own types are recorded under a provider whose type is
		// kyku, whichever source the configuration names: under another,
		// they would no longer read as Kyku's.
		if p := b.opts.Provider(a); p != "" && (!kyku || isKykuProvider(p)) {
			return p
		}
	}
	if kyku {
		return KykuProvider
	}
	prefix, _, _ := strings.Cut(a.Type, "_")
	if prefix == "terraform" {
		return `provider["terraform.io/builtin/terraform"]`
	}
	return `provider["registry.opentofu.org/hashicorp/` + prefix + `"]`
}

// patchInstance is orig (nil: a new instance) holding next: orig itself
// when next is what the bridge handed out as given; otherwise orig with
// what changed written over it.
func patchInstance(orig *Instance, given, next *state.Resource) (*Instance, error) {
	if given != nil && sameResource(given, next) {
		return orig, nil
	}
	if next.SchemaVersion < 0 {
		return nil, fmt.Errorf("schema version %d is negative", next.SchemaVersion)
	}
	in := *orig
	if want := stateAttrs(next); given == nil || !value.Equal(stateAttrs(given), want) {
		attrs, err := patchAttrs(orig.Attributes, want)
		if err != nil {
			return nil, err
		}
		in.Attributes = attrs
	}
	in.SchemaVersion = uint64(next.SchemaVersion)
	in.Private = slices.Clone(next.Private)
	in.SkipDestroy = next.SkipDestroy
	if deps := configDeps(next.Dependencies); !slices.Equal(deps, configDeps(orig.Dependencies)) {
		in.Dependencies = deps
	}
	names, within := stateSecret(next)
	in.Sensitive = sensitivePaths(orig.Sensitive, names, within)
	if given != nil && next.ProviderID != given.ProviderID {
		in.Status = "" // another object: a tainted one was replaced
	}
	return &in, nil
}

// sameResource reports whether a and b hold the same.
func sameResource(a, b *state.Resource) bool {
	return a.Name == b.Name && a.Type == b.Type && a.CloudName == b.CloudName && a.ProviderID == b.ProviderID &&
		value.Equal(a.Config, b.Config) && value.Equal(a.Outputs, b.Outputs) &&
		slices.Equal(a.Dependencies, b.Dependencies) && a.Protect == b.Protect && a.SkipDestroy == b.SkipDestroy &&
		a.SchemaVersion == b.SchemaVersion && slices.Equal(a.Private, b.Private) && slices.Equal(a.Sensitive, b.Sensitive) &&
		maps.EqualFunc(a.SensitiveWithin, b.SensitiveWithin, slices.Equal) && value.Equal(a.Types, b.Types)
}

// outputs puts next's outputs into out: each as it was when its value,
// type and sensitivity are, as OpenTofu writes it otherwise. A null output
// is not kept, as OpenTofu keeps none.
func (b *Bridge) outputs(out *File, next *state.File) error {
	for _, name := range sortedNames(next.Outputs) {
		v := next.Outputs[name]
		if v == nil {
			continue
		}
		typ, sensitive := next.OutputTypes[name], next.OutputSensitivity[name]
		if g, ok := b.outs[name]; ok && value.Equal(g.value, v) && (typ == nil || value.Equal(g.typ, typ)) && g.sensitive == sensitive {
			out.Outputs[name] = b.orig.Outputs[name]
			continue
		}
		o, err := newOutput(v, typ, sensitive)
		if err != nil {
			return fmt.Errorf("output %s: %w", name, err)
		}
		if was := b.orig.Outputs[name]; was != nil {
			o.Deprecated = was.Deprecated
		}
		out.Outputs[name] = o
	}
	return nil
}

// extraOf is what next holds that its Terraform state out has no place for.
func extraOf(next *state.File, out *File) *Extra {
	e := &Extra{Lineage: out.Lineage, Serial: out.Serial, Prefix: next.Metadata.Prefix, Interrupted: maps.Clone(next.Interrupted)}
	for name, sr := range next.Resources {
		x := &ExtraResource{Protect: sr.Protect}
		if modelKykuType(sr) == nil { // a Kyku type's are in its attributes
			x.Config, x.CloudName = value.CopyMap(sr.Config), sr.CloudName
		}
		if sr.Basis != nil {
			b := *sr.Basis
			x.Basis = &b
		}
		if sr.ProviderID != idOf(sr.Outputs, name) {
			x.ProviderID = sr.ProviderID
		}
		if !x.empty() {
			if e.Resources == nil {
				e.Resources = map[string]*ExtraResource{}
			}
			e.Resources[name] = x
		}
	}
	return e
}
