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
		switch f.num {
		case 1:
			s, err := d.schema(f.bytes)
			d.out.Provider = s
			return err
		case 2, 3:
			name, s, err := d.entry(f.bytes)
			if err != nil {
				return err
			}
			if f.num == 2 {
				d.out.ResourceTypes[name] = s
			} else {
				d.out.DataSources[name] = s
			}
		case 4:
			return decodeDiagnostic(f.bytes, &d.diags)
		case 5:
			s, err := d.schema(f.bytes)
			d.out.ProviderMeta = s
			return err
		case 6:
			return eachField(f.bytes, func(c field) error {
				switch c.num {
				case 1:
					d.out.PlanDestroy = c.x != 0
				case 2:
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
		switch f.num {
		case 1:
			name = string(f.bytes)
		case 2:
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
		switch f.num {
		case 1:
			s.Version = int64(f.x)
		case 2:
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
		switch f.num {
		case 2:
			name, a, err := d.attribute(f.bytes)
			if err != nil {
				return err
			}
			blk.Attributes[name] = a
		case 3:
			return d.nestedBlock(f.bytes, blk)
		case 6:
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
		switch f.num {
		case 1:
			name = string(f.bytes)
		case 2:
			seen = true
			return d.block(f.bytes, &nb.Block)
		case 3:
			nb.Nesting = tfschema.Nesting(f.x)
		case 4:
			nb.MinItems = int(f.x)
		case 5:
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
	writeOnly, nested := 10, 0
	if d.protocol == 6 {
		writeOnly, nested = 11, 10
	}
	err := eachField(b, func(f field) error {
		switch int(f.num) {
		case 1:
			name = string(f.bytes)
		case 2:
			typ = f.bytes
		case 4:
			a.Required = f.x != 0
		case 5:
			a.Optional = f.x != 0
		case 6:
			a.Computed = f.x != 0
		case 7:
			a.Sensitive = f.x != 0
		case 9:
			a.Deprecated = f.x != 0
		case writeOnly:
			a.WriteOnly = f.x != 0
		case nested:
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
		switch f.num {
		case 1:
			name, a, err := d.attribute(f.bytes)
			if err != nil {
				return err
			}
			o.Attributes[name] = a
		case 3:
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
