package tfplugin

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kyku/action/internal/tfschema"
)

// dynamicValue is the protocol's DynamicValue: a value in msgpack (what
// Kyku sends) or JSON (what some old providers answer).
type dynamicValue struct {
	msgpack, json []byte
}

func (d dynamicValue) appendTo(b []byte) []byte {
	b = appendBytes(b, 1, d.msgpack)
	return appendBytes(b, 2, d.json)
}

func (d *dynamicValue) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch f.num {
		case 1:
			d.msgpack = f.bytes
		case 2:
			d.json = f.bytes
		}
		return nil
	})
}

// present reports whether the field was sent at all.
func (d dynamicValue) present() bool { return d.msgpack != nil || d.json != nil }

// value decodes the value as type ty; an absent value is null.
func (d dynamicValue) value(ty cty.Type) (cty.Value, error) {
	switch {
	case len(d.msgpack) > 0:
		return ctymsgpack.Unmarshal(d.msgpack, ty)
	case len(d.json) > 0:
		return ctyjson.Unmarshal(d.json, ty)
	}
	return cty.NullVal(ty), nil
}

// encode is v as a DynamicValue of type ty.
func encode(v cty.Value, ty cty.Type) (dynamicValue, error) {
	if v == cty.NilVal {
		v = cty.NullVal(ty)
	}
	b, err := ctymsgpack.Marshal(v, ty)
	if err != nil {
		return dynamicValue{}, fmt.Errorf("encode value: %w", err)
	}
	return dynamicValue{msgpack: b}, nil
}

// diagnostics decodes one repeated Diagnostic field into ds.
func decodeDiagnostic(b []byte, ds *tfschema.Diagnostics) error {
	var d tfschema.Diagnostic
	err := eachField(b, func(f field) error {
		switch f.num {
		case 1:
			d.Severity = tfschema.Severity(f.x)
		case 2:
			d.Summary = string(f.bytes)
		case 3:
			d.Detail = string(f.bytes)
		case 4:
			p, err := decodePath(f.bytes)
			if err != nil {
				return err
			}
			d.Path = p
		}
		return nil
	})
	if err != nil {
		return err
	}
	if d.Severity != tfschema.Warning {
		d.Severity = tfschema.Error // INVALID counts as an error, as Terraform has it
	}
	*ds = append(*ds, d)
	return nil
}

// decodePath decodes an AttributePath.
func decodePath(b []byte) (cty.Path, error) {
	var p cty.Path
	err := eachField(b, func(f field) error {
		if f.num != 1 {
			return nil
		}
		return eachField(f.bytes, func(s field) error {
			switch s.num {
			case 1:
				p = p.GetAttr(string(s.bytes))
			case 2:
				p = p.Index(cty.StringVal(string(s.bytes)))
			case 3:
				p = p.Index(cty.NumberIntVal(int64(s.x)))
			}
			return nil
		})
	})
	return p, err
}

// typedConfig is the request of ValidateResourceConfig (5:
// ValidateResourceTypeConfig) and, without capabilities, of
// ValidateDataResourceConfig (5: ValidateDataSourceConfig).
type typedConfig struct {
	typeName string
	config   dynamicValue
	caps     bool
}

func (r typedConfig) appendTo(b []byte) []byte {
	b = appendString(b, 1, r.typeName)
	b = appendMessage(b, 2, r.config)
	if r.caps {
		b = appendMessage(b, 3, clientCapabilities{})
	}
	return b
}

// configOnly is the request of ValidateProviderConfig (5:
// PrepareProviderConfig).
type configOnly struct{ config dynamicValue }

func (r configOnly) appendTo(b []byte) []byte { return appendMessage(b, 1, r.config) }

// configureRequest is ConfigureProvider's (5: Configure).
type configureRequest struct {
	terraformVersion string
	config           dynamicValue
}

func (r configureRequest) appendTo(b []byte) []byte {
	b = appendString(b, 1, r.terraformVersion)
	b = appendMessage(b, 2, r.config)
	return appendMessage(b, 3, clientCapabilities{})
}

// diagsResponse is a response of only diagnostics, in field diagField;
// valueField, when not zero, holds a value (prepared_config of protocol
// 5's PrepareProviderConfig).
type diagsResponse struct {
	diagField, valueField protowire.Number
	diags                 tfschema.Diagnostics
	value                 dynamicValue
}

func (r *diagsResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch {
		case f.num == r.diagField:
			return decodeDiagnostic(f.bytes, &r.diags)
		case r.valueField != 0 && f.num == r.valueField:
			return r.value.decode(f.bytes)
		}
		return nil
	})
}

type upgradeRequest struct {
	typeName string
	version  int64
	rawJSON  []byte
}

type rawState struct{ json []byte }

func (r rawState) appendTo(b []byte) []byte { return appendBytes(b, 1, r.json) }

func (r upgradeRequest) appendTo(b []byte) []byte {
	b = appendString(b, 1, r.typeName)
	b = appendVarint(b, 2, uint64(r.version))
	return appendMessage(b, 3, rawState{json: r.rawJSON})
}

type readRequest struct {
	typeName string
	state    dynamicValue
	private  []byte
	meta     *dynamicValue
}

func (r readRequest) appendTo(b []byte) []byte {
	b = appendString(b, 1, r.typeName)
	b = appendMessage(b, 2, r.state)
	b = appendBytes(b, 3, r.private)
	if r.meta != nil {
		b = appendMessage(b, 4, *r.meta)
	}
	return appendMessage(b, 5, clientCapabilities{})
}

type planRequest struct {
	typeName                string
	prior, proposed, config dynamicValue
	priorPrivate            []byte
	meta                    *dynamicValue
}

func (r planRequest) appendTo(b []byte) []byte {
	b = appendString(b, 1, r.typeName)
	b = appendMessage(b, 2, r.prior)
	b = appendMessage(b, 3, r.proposed)
	b = appendMessage(b, 4, r.config)
	b = appendBytes(b, 5, r.priorPrivate)
	if r.meta != nil {
		b = appendMessage(b, 6, *r.meta)
	}
	return appendMessage(b, 7, clientCapabilities{})
}

type planResponse struct {
	planned         dynamicValue
	requiresReplace []cty.Path
	private         []byte
	diags           tfschema.Diagnostics
	legacy          bool
}

func (r *planResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch f.num {
		case 1:
			return r.planned.decode(f.bytes)
		case 2:
			p, err := decodePath(f.bytes)
			r.requiresReplace = append(r.requiresReplace, p)
			return err
		case 3:
			r.private = f.bytes
		case 4:
			return decodeDiagnostic(f.bytes, &r.diags)
		case 5:
			r.legacy = f.x != 0
		}
		return nil
	})
}

type applyRequest struct {
	typeName               string
	prior, planned, config dynamicValue
	plannedPrivate         []byte
	meta                   *dynamicValue
}

func (r applyRequest) appendTo(b []byte) []byte {
	b = appendString(b, 1, r.typeName)
	b = appendMessage(b, 2, r.prior)
	b = appendMessage(b, 3, r.planned)
	b = appendMessage(b, 4, r.config)
	b = appendBytes(b, 5, r.plannedPrivate)
	if r.meta != nil {
		b = appendMessage(b, 6, *r.meta)
	}
	return b
}

// stateResponse is the response of ReadResource (state 1, diagnostics 2,
// private 3), ApplyResourceChange (state 1, private 2, diagnostics 3,
// legacy 4), UpgradeResourceState and ReadDataSource (state 1,
// diagnostics 2).
type stateResponse struct {
	privateField, diagField, legacyField protowire.Number

	state   dynamicValue
	private []byte
	diags   tfschema.Diagnostics
	legacy  bool
}

func (r *stateResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch {
		case f.num == 1:
			return r.state.decode(f.bytes)
		case f.num == r.diagField:
			return decodeDiagnostic(f.bytes, &r.diags)
		case r.privateField != 0 && f.num == r.privateField:
			r.private = f.bytes
		case r.legacyField != 0 && f.num == r.legacyField:
			r.legacy = f.x != 0
		}
		return nil
	})
}

type importRequest struct {
	typeName, id string
}

func (r importRequest) appendTo(b []byte) []byte {
	b = appendString(b, 1, r.typeName)
	b = appendString(b, 2, r.id)
	return appendMessage(b, 3, clientCapabilities{})
}

type importedResource struct {
	typeName string
	state    dynamicValue
	private  []byte
}

type importResponse struct {
	imported []importedResource
	diags    tfschema.Diagnostics
}

func (r *importResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch f.num {
		case 1:
			var ir importedResource
			err := eachField(f.bytes, func(g field) error {
				switch g.num {
				case 1:
					ir.typeName = string(g.bytes)
				case 2:
					return ir.state.decode(g.bytes)
				case 3:
					ir.private = g.bytes
				}
				return nil
			})
			r.imported = append(r.imported, ir)
			return err
		case 2:
			return decodeDiagnostic(f.bytes, &r.diags)
		}
		return nil
	})
}

type readDataRequest struct {
	typeName string
	config   dynamicValue
	meta     *dynamicValue
}

func (r readDataRequest) appendTo(b []byte) []byte {
	b = appendString(b, 1, r.typeName)
	b = appendMessage(b, 2, r.config)
	if r.meta != nil {
		b = appendMessage(b, 3, *r.meta)
	}
	return appendMessage(b, 4, clientCapabilities{})
}

type stopResponse struct{ err string }

func (r *stopResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		if f.num == 1 {
			r.err = string(f.bytes)
		}
		return nil
	})
}
