package tfstate

import (
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// The wire structs read by wireReader (wirereader.go), field by field as
// encoding/json reads them through their tags.

var (
	fileFields     = []string{"version", "encrypted_data", "metadata", "terraform_version", "serial", "lineage", "outputs", "resources", "check_results"}
	outputFields   = []string{"value", "type", "sensitive", "deprecated"}
	resourceFields = []string{"module", "mode", "type", "name", "provider", "instances"}
	instanceFields = []string{"index_key", "status", "deposed", "provider", "schema_version", "attributes", "attributes_flat",
		"sensitive_attributes", "private", "dependencies", "create_before_destroy", "skip_destroy", "identity", "identity_schema_version"}
	checkResultFields = []string{"object_kind", "config_addr", "status", "objects"}
	checkObjectFields = []string{"object_addr", "status", "failure_messages"}
)

// readWire reads a state into w as json.Unmarshal does; false: it gave
// up, and w is not to be used. each, when not nil, is handed each
// resource as it is read, in place of w.Resources (the resource and its
// instances are the reader's again once each returns); false from it
// gives up.
func readWire(data []byte, w *wireFile, each func(*wireResource) bool) bool {
	r := &wireReader{data: data, each: each}
	if !r.open('{') {
		return false
	}
	r.readFields(fileFields, func(field int) {
		switch field {
		case 0:
			w.Version = r.raw()
		case 1:
			w.EncryptedData = r.raw()
		case 2:
			w.Kyku = r.raw()
		case 3:
			r.string(&w.TerraformVersion, false)
		case 4:
			r.uint(&w.Serial)
		case 5:
			r.string(&w.Lineage, false)
		case 6:
			r.outputs(&w.Outputs)
		case 7:
			r.resources(&w.Resources)
		case 8:
			r.checkResults(&w.CheckResults)
		}
	})
	return r.end()
}

func (r *wireReader) outputs(into *map[string]wireOutput) {
	objectMap(r, into, func() (o wireOutput) {
		if r.null() || !r.open('{') {
			return o
		}
		r.readFields(outputFields, func(field int) {
			switch field {
			case 0:
				o.Value = r.raw()
			case 1:
				o.Type = r.raw()
			case 2:
				r.bool(&o.Sensitive)
			case 3:
				r.string(&o.Deprecated, false)
			}
		})
		return o
	})
}

// objectMap reads an object (null: nil) into *into, each member's value
// by one; a name twice gives up, as a duplicate key is one encoding/json
// reads otherwise.
func objectMap[T any](r *wireReader, into *map[string]T, one func() T) {
	if r.null() {
		*into = nil
		return
	}
	if !r.open('{') {
		return
	}
	m := map[string]T{}
	for n := 0; ; {
		key, ok := r.key(&n)
		if !ok {
			break
		}
		name := string(key)
		if _, dup := m[name]; dup {
			r.giveUp()
			return
		}
		m[name] = one()
	}
	*into = m
}

func (r *wireReader) resources(into *[]wireResource) {
	if r.null() {
		*into = nil
		return
	}
	if !r.open('[') {
		return
	}
	var out []wireResource
	if r.each == nil {
		out = []wireResource{}
	}
	var insts []wireInstance // a resource's instances, reused when each takes them
	for n := 0; r.elem(&n); {
		var wr wireResource
		if r.each != nil {
			wr.Instances = insts[:0]
		}
		if !r.null() && r.open('{') {
			r.readFields(resourceFields, func(field int) {
				switch field {
				case 0:
					r.string(&wr.Module, true)
				case 1:
					r.string(&wr.Mode, true)
				case 2:
					r.string(&wr.Type, true)
				case 3:
					r.string(&wr.Name, false)
				case 4:
					r.string(&wr.Provider, true)
				case 5:
					r.instances(&wr.Instances)
				}
			})
		}
		if r.each == nil {
			out = append(out, wr)
			continue
		}
		if r.bad || !r.each(&wr) {
			r.giveUp()
			return
		}
		insts = wr.Instances
	}
	*into = out
}

// instances reads a list of instances into *into, reusing its array.
func (r *wireReader) instances(into *[]wireInstance) {
	if r.null() {
		*into = nil
		return
	}
	if !r.open('[') {
		return
	}
	out := (*into)[:0]
	if out == nil {
		out = []wireInstance{}
	}
	for n := 0; r.elem(&n); {
		out = append(out, wireInstance{})
		if !r.null() && r.open('{') {
			r.instance(&out[len(out)-1])
		}
	}
	*into = out
}

func (r *wireReader) instance(wi *wireInstance) {
	r.readFields(instanceFields, func(field int) {
		switch field {
		case 0:
			wi.IndexKey = r.raw()
		case 1:
			r.string(&wi.Status, true)
		case 2:
			r.string(&wi.Deposed, false)
		case 3:
			r.string(&wi.Provider, true)
		case 4:
			r.uint(&wi.SchemaVersion)
		case 5:
			wi.Attributes = r.raw()
		case 6:
			r.stringMap(&wi.AttributesFlat)
		case 7:
			wi.SensitiveAttributes = r.raw()
		case 8:
			if r.null() {
				wi.Private = nil
				return
			}
			var s string
			r.string(&s, false)
			wi.Private = &s
		case 9:
			r.strings(&wi.Dependencies)
		case 10:
			r.bool(&wi.CreateBeforeDestroy)
		case 11:
			r.bool(&wi.SkipDestroy)
		case 12:
			wi.Identity = r.raw()
		case 13:
			if r.null() {
				wi.IdentitySchemaVersion = nil
				return
			}
			var v uint64
			r.uint(&v)
			wi.IdentitySchemaVersion = &v
		}
	})
}

func (r *wireReader) checkResults(into *[]wireCheckResult) {
	objectList(r, into, checkResultFields, func(c *wireCheckResult, field int) {
		switch field {
		case 0:
			r.string(&c.ObjectKind, true)
		case 1:
			r.string(&c.ConfigAddr, false)
		case 2:
			r.string(&c.Status, true)
		case 3:
			r.checkObjects(&c.Objects)
		}
	})
}

func (r *wireReader) checkObjects(into *[]wireCheckObject) {
	objectList(r, into, checkObjectFields, func(o *wireCheckObject, field int) {
		switch field {
		case 0:
			r.string(&o.ObjectAddr, false)
		case 1:
			r.string(&o.Status, true)
		case 2:
			r.strings(&o.FailureMessages)
		}
	})
}

// objectList reads a list of objects (null: nil) into *into, each
// element's fields, of names, by set (a null element is T's zero value).
func objectList[T any](r *wireReader, into *[]T, names []string, set func(v *T, field int)) {
	list(r, into, func(v *T) {
		if !r.null() && r.open('{') {
			r.readFields(names, func(field int) { set(v, field) })
		}
	})
}

// list reads a list (null: nil) into *into, each element by elem from its
// zero value.
func list[T any](r *wireReader, into *[]T, elem func(v *T)) {
	if r.null() {
		*into = nil
		return
	}
	if !r.open('[') {
		return
	}
	out := []T{}
	for n := 0; r.elem(&n); {
		var v T
		elem(&v)
		out = append(out, v)
	}
	*into = out
}

// readFields reads the fields of the object just opened, calling set with
// each one's index in names (fields.field).
func (r *wireReader) readFields(names []string, set func(field int)) {
	f := fields{names: names}
	for n := 0; ; {
		k, ok := r.key(&n)
		if !ok {
			return
		}
		set(f.field(r, k))
	}
}

var (
	extraFields         = []string{"lineage", "serial", "digest", "prefix", "resources", "interrupted"}
	extraResourceFields = []string{"config", "cloudName", "protect", "providerId", "basis"}
	basisFields         = []string{"config", "provider", "readAt", "version"}
)

// readExtra reads what EncodeExtra wrote into e as json.Unmarshal does;
// false: it gave up, and e is not to be used.
func readExtra(data []byte, e *Extra) bool {
	r := &wireReader{data: data}
	if !r.open('{') {
		return false
	}
	r.readFields(extraFields, func(field int) {
		switch field {
		case 0:
			r.string(&e.Lineage, false)
		case 1:
			r.uint(&e.Serial)
		case 2:
			r.string(&e.Digest, false)
		case 3:
			r.string(&e.Prefix, false)
		case 4:
			r.extraResources(&e.Resources)
		case 5:
			r.stringMap(&e.Interrupted)
		}
	})
	return r.end()
}

func (r *wireReader) extraResources(into *map[string]*ExtraResource) {
	objectMap(r, into, func() *ExtraResource {
		if r.null() || !r.open('{') {
			return nil // a null resource; anything else gives up
		}
		x := &ExtraResource{}
		r.readFields(extraResourceFields, func(field int) {
			switch field {
			case 0:
				r.config(&x.Config)
			case 1:
				r.string(&x.CloudName, false)
			case 2:
				r.bool(&x.Protect)
			case 3:
				r.string(&x.ProviderID, false)
			case 4:
				r.basis(&x.Basis)
			}
		})
		return x
	})
}

// config reads an object into Kyku's canonical model, as encoding/json
// reads it into a map[string]any (value.ParseJSON's promise).
func (r *wireReader) config(into *map[string]any) {
	if r.null() {
		*into = nil
		return
	}
	if r.peek() != '{' {
		r.giveUp()
		return
	}
	raw := r.raw()
	if r.bad {
		return
	}
	v, err := value.ParseJSONWith(raw, r.names)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		r.giveUp()
		return
	}
	for k := range m {
		if _, ok := r.names[k]; !ok && len(r.names) < maxNames {
			if r.names == nil {
				r.names = map[string]string{}
			}
			r.names[k] = k
		}
	}
	*into = m
}

func (r *wireReader) basis(into **state.Basis) {
	if r.null() {
		*into = nil
		return
	}
	if !r.open('{') {
		return
	}
	b := &state.Basis{}
	r.readFields(basisFields, func(field int) {
		switch field {
		case 0:
			r.string(&b.Config, false)
		case 1:
			r.string(&b.Provider, true)
		case 2:
			raw := r.raw()
			if !r.bad && b.ReadAt.UnmarshalJSON(raw) != nil {
				r.giveUp()
			}
		case 3:
			r.string(&b.Version, true)
		}
	})
	*into = b
}

// stringMap reads an object of strings (a null value: "").
func (r *wireReader) stringMap(into *map[string]string) {
	objectMap(r, into, func() (v string) {
		r.string(&v, false)
		return v
	})
}
