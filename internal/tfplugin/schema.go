package tfplugin

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/kyku/action/internal/tfschema"
)

// schemaDecoder reads GetProviderSchema's response. Attribute types are
// JSON; most repeat ("string", ["map","string"]), so each distinct one is
// parsed once.
type schemaDecoder struct {
	protocol int
	types    map[string]cty.Type
	out      tfschema.ProviderSchema
	diags    tfschema.Diagnostics
}

func (d *schemaDecoder) decode(b []byte) error {
	d.types = map[string]cty.Type{}
	d.out.ResourceTypes = map[string]*tfschema.Schema{}
	d.out.DataSources = map[string]*tfschema.Schema{}
	err := eachField(b, func(f field) error {
		switch {
		case f.isBytes(schemaRespProvider):
			s, err := d.schema(f.bytes)
			d.out.Provider = s
			return err
		case f.isBytes(schemaRespResourceSchemas), f.isBytes(schemaRespDataSourceSchemas):
			name, s, err := d.entry(f.bytes)
			if err != nil {
				return err
			}
			if f.isBytes(schemaRespResourceSchemas) {
				d.out.ResourceTypes[name] = s
			} else {
				d.out.DataSources[name] = s
			}
		case f.isBytes(schemaRespDiagnostics):
			return decodeDiagnostic(f.bytes, &d.diags)
		case f.isBytes(schemaRespFunctions):
			return d.functionEntry(f.bytes, &d.out.Functions)
		case f.isBytes(schemaRespProviderMeta):
			s, err := d.schema(f.bytes)
			d.out.ProviderMeta = s
			return err
		case f.isBytes(schemaRespServerCapabilities):
			return eachField(f.bytes, func(c field) error {
				switch {
				case c.isVarint(serverCapsPlanDestroy):
					d.out.PlanDestroy = c.x != 0
				case c.isVarint(serverCapsGetProviderSchemaOptional):
					d.out.GetProviderSchemaOptional = c.x != 0
				}
				return nil
			})
		}
		return nil
	})
	d.types = nil
	return err
}

// entry reads one map<string, Schema> entry.
func (d *schemaDecoder) entry(b []byte) (string, *tfschema.Schema, error) {
	var name string
	var s *tfschema.Schema
	err := eachField(b, func(f field) error {
		switch {
		case f.isBytes(schemaEntryKey):
			name = string(f.bytes)
		case f.isBytes(schemaEntryValue):
			var err error
			s, err = d.schema(f.bytes)
			return err
		}
		return nil
	})
	if err == nil && s == nil {
		s = &tfschema.Schema{Block: emptyBlock()}
	}
	return name, s, err
}

func emptyBlock() *tfschema.Block {
	b := &tfschema.Block{Attributes: map[string]*tfschema.Attribute{}, BlockTypes: map[string]*tfschema.NestedBlock{}}
	b.Finish()
	return b
}

func (d *schemaDecoder) schema(b []byte) (*tfschema.Schema, error) {
	s := &tfschema.Schema{}
	err := eachField(b, func(f field) error {
		switch {
		case f.isVarint(schemaVersion):
			s.Version = int64(f.x)
		case f.isBytes(schemaBlock):
			blk := &tfschema.Block{}
			if err := d.block(f.bytes, blk); err != nil {
				return err
			}
			s.Block = blk
		}
		return nil
	})
	if s.Block == nil {
		s.Block = emptyBlock()
	} else {
		s.Block.Finish()
	}
	return s, err
}

func (d *schemaDecoder) block(b []byte, blk *tfschema.Block) error {
	blk.Attributes = map[string]*tfschema.Attribute{}
	blk.BlockTypes = map[string]*tfschema.NestedBlock{}
	return eachField(b, func(f field) error {
		switch {
		case f.isBytes(blockAttributes):
			name, a, err := d.attribute(f.bytes)
			if err != nil {
				return err
			}
			blk.Attributes[name] = a
		case f.isBytes(blockBlockTypes):
			return d.nestedBlock(f.bytes, blk)
		case f.isVarint(blockDeprecated):
			blk.Deprecated = f.x != 0
		}
		return nil
	})
}

func (d *schemaDecoder) nestedBlock(b []byte, parent *tfschema.Block) error {
	nb := &tfschema.NestedBlock{}
	var name string
	seen := false
	err := eachField(b, func(f field) error {
		switch {
		case f.isBytes(nestedBlockTypeName):
			name = string(f.bytes)
		case f.isBytes(nestedBlockBlock):
			seen = true
			return d.block(f.bytes, &nb.Block)
		case f.isVarint(nestedBlockNesting):
			nb.Nesting = tfschema.Nesting(f.x)
		case f.isVarint(nestedBlockMinItems):
			nb.MinItems = int(f.x)
		case f.isVarint(nestedBlockMaxItems):
			nb.MaxItems = int(f.x)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !seen {
		nb.Block = *emptyBlock()
	}
	if nb.Nesting < tfschema.NestingSingle || nb.Nesting > tfschema.NestingGroup {
		return fmt.Errorf("block type %q: invalid nesting mode %d", name, nb.Nesting)
	}
	parent.BlockTypes[name] = nb
	return nil
}

func (d *schemaDecoder) attribute(b []byte) (string, *tfschema.Attribute, error) {
	a := &tfschema.Attribute{}
	var name string
	var typ []byte
	// Protocol 5 has no nested attribute types: 0 is no field's number.
	writeOnly, nested := attr5WriteOnly, bytesField(0)
	if d.protocol == 6 {
		writeOnly, nested = attr6WriteOnly, attr6NestedType
	}
	err := eachField(b, func(f field) error {
		switch {
		case f.isBytes(attrName):
			name = string(f.bytes)
		case f.isBytes(attrType):
			typ = f.bytes
		case f.isVarint(attrRequired):
			a.Required = f.x != 0
		case f.isVarint(attrOptional):
			a.Optional = f.x != 0
		case f.isVarint(attrComputed):
			a.Computed = f.x != 0
		case f.isVarint(attrSensitive):
			a.Sensitive = f.x != 0
		case f.isVarint(attrDeprecated):
			a.Deprecated = f.x != 0
		case f.isVarint(writeOnly):
			a.WriteOnly = f.x != 0
		case f.isBytes(nested):
			o, err := d.object(f.bytes)
			a.NestedType = o
			return err
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	if a.NestedType == nil {
		ty, err := d.typeOf(typ)
		if err != nil {
			return "", nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		a.Type = ty
	}
	return name, a, nil
}

func (d *schemaDecoder) object(b []byte) (*tfschema.Object, error) {
	o := &tfschema.Object{Attributes: map[string]*tfschema.Attribute{}}
	err := eachField(b, func(f field) error {
		switch {
		case f.isBytes(objectAttributes):
			name, a, err := d.attribute(f.bytes)
			if err != nil {
				return err
			}
			o.Attributes[name] = a
		case f.isVarint(objectNesting):
			o.Nesting = tfschema.Nesting(f.x)
		}
		return nil
	})
	if err == nil && (o.Nesting < tfschema.NestingSingle || o.Nesting > tfschema.NestingMap) {
		err = fmt.Errorf("nested attribute type: invalid nesting mode %d", o.Nesting)
	}
	return o, err
}

func (d *schemaDecoder) typeOf(b []byte) (cty.Type, error) {
	if ty, ok := d.types[string(b)]; ok {
		return ty, nil
	}
	ty, err := ctyjson.UnmarshalType(b)
	if err != nil {
		return cty.NilType, fmt.Errorf("type %s: %w", b, err)
	}
	d.types[string(b)] = ty
	return ty, nil
}
