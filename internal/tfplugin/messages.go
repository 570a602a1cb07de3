package tfplugin

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/kyku/action/internal/tfschema"
)

// dynamicValue is the protocol's DynamicValue: a value in msgpack (what
// Kyku sends) or JSON (what some old providers answer).
type dynamicValue struct {
	msgpack, json []byte
}

func (d dynamicValue) appendTo(b []byte) []byte {
	b = appendBytes(b, dynMsgpack, d.msgpack)
	return appendBytes(b, dynJSON, d.json)
}

func (d *dynamicValue) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch {
		case f.isBytes(dynMsgpack):
			d.msgpack = f.bytes
		case f.isBytes(dynJSON):
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
		return UnmarshalMsgpack(d.msgpack, ty)
	case len(d.json) > 0:
		return ctyjson.Unmarshal(d.json, ty)
	}
	return cty.NullVal(ty), nil
}

// values decodes the value, an object of type ty, as Kyku's values
// (tfschema.FromCtyObject of value(ty)); an absent value is null (nil).
func (d dynamicValue) values(ty cty.Type) (map[string]any, error) {
	if len(d.msgpack) > 0 {
		return DecodeValues(d.msgpack, ty)
	}
	v, err := d.value(ty)
	if err != nil {
		return nil, err
	}
	return tfschema.FromCtyObject(v), nil
}

// nullMsgpack is any null value (of a type not dynamic) in msgpack.
var nullMsgpack = []byte{0xc0}

// encodeOr is msgpack, when set, as a DynamicValue, else v as one of type ty.
func encodeOr(msgpack []byte, v cty.Value, ty cty.Type) (dynamicValue, error) {
	if msgpack != nil {
		return dynamicValue{msgpack: msgpack}, nil
	}
	return encode(v, ty)
}

// encode is v as a DynamicValue of type ty.
func encode(v cty.Value, ty cty.Type) (dynamicValue, error) {
	if v == cty.NilVal || ty != cty.DynamicPseudoType && !v.IsMarked() && v.IsKnown() && v.IsNull() && v.Type().Equals(ty) {
		return dynamicValue{msgpack: nullMsgpack}, nil // a create's prior state
	}
	// room for a small resource's value at once, instead of growing
	// from nothing by copying
	b, err := AppendMsgpack(make([]byte, 0, 64), v, ty)
	if err != nil {
		return dynamicValue{}, fmt.Errorf("encode value: %w", err)
	}
	return dynamicValue{msgpack: b}, nil
}

// diagnostics decodes one repeated Diagnostic field into ds.
func decodeDiagnostic(b []byte, ds *tfschema.Diagnostics) error {
	var d tfschema.Diagnostic
	err := eachField(b, func(f field) error {
		switch {
		case f.isVarint(diagSeverity):
			d.Severity = tfschema.Severity(f.x)
		case f.isBytes(diagSummary):
			d.Summary = string(f.bytes)
		case f.isBytes(diagDetail):
			d.Detail = string(f.bytes)
		case f.isBytes(diagAttribute):
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
		if !f.isBytes(pathSteps) {
			return nil
		}
		return eachField(f.bytes, func(s field) error {
			switch {
			case s.isBytes(stepAttributeName):
				p = p.GetAttr(string(s.bytes))
			case s.isBytes(stepElementKeyString):
				p = p.Index(cty.StringVal(string(s.bytes)))
			case s.isVarint(stepElementKeyInt):
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
	b = appendString(b, validateReqTypeName, r.typeName)
	b = appendMessage(b, validateReqConfig, r.config)
	if r.caps {
		b = appendMessage(b, validateResourceReqCapabilities, clientCapabilities{})
	}
	return b
}

// configOnly is the request of ValidateProviderConfig (5:
// PrepareProviderConfig).
type configOnly struct{ config dynamicValue }

func (r configOnly) appendTo(b []byte) []byte {
	return appendMessage(b, validateProviderReqConfig, r.config)
}

// configureRequest is ConfigureProvider's (5: Configure).
type configureRequest struct {
	terraformVersion string
	config           dynamicValue
}

func (r configureRequest) appendTo(b []byte) []byte {
	b = appendString(b, configureReqTerraformVersion, r.terraformVersion)
	b = appendMessage(b, configureReqConfig, r.config)
	return appendMessage(b, configureReqCapabilities, clientCapabilities{})
}

// diagsResponse is a response of only diagnostics, in field diagField;
// valueField, when not zero, holds a value (prepared_config of protocol
// 5's PrepareProviderConfig).
type diagsResponse struct {
	diagField, valueField bytesField
	diags                 tfschema.Diagnostics
	value                 dynamicValue
}

func (r *diagsResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch {
		case f.isBytes(r.diagField):
			return decodeDiagnostic(f.bytes, &r.diags)
		case r.valueField != 0 && f.isBytes(r.valueField):
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

func (r rawState) appendTo(b []byte) []byte { return appendBytes(b, rawStateJSON, r.json) }

func (r upgradeRequest) appendTo(b []byte) []byte {
	b = appendString(b, upgradeReqTypeName, r.typeName)
	b = appendVarint(b, upgradeReqVersion, uint64(r.version))
	return appendMessage(b, upgradeReqRawState, rawState{json: r.rawJSON})
}

type readRequest struct {
	typeName string
	state    dynamicValue
	private  []byte
	meta     *dynamicValue
}

func (r readRequest) appendTo(b []byte) []byte {
	b = appendString(b, readReqTypeName, r.typeName)
	b = appendMessage(b, readReqCurrentState, r.state)
	b = appendBytes(b, readReqPrivate, r.private)
	if r.meta != nil {
		b = appendMessage(b, readReqProviderMeta, *r.meta)
	}
	return appendMessage(b, readReqCapabilities, clientCapabilities{})
}

type planRequest struct {
	typeName                string
	prior, proposed, config dynamicValue
	priorPrivate            []byte
	meta                    *dynamicValue
}

func (r planRequest) appendTo(b []byte) []byte {
	b = appendString(b, planReqTypeName, r.typeName)
	b = appendMessage(b, planReqPriorState, r.prior)
	b = appendMessage(b, planReqProposedNewState, r.proposed)
	b = appendMessage(b, planReqConfig, r.config)
	b = appendBytes(b, planReqPriorPrivate, r.priorPrivate)
	if r.meta != nil {
		b = appendMessage(b, planReqProviderMeta, *r.meta)
	}
	return appendMessage(b, planReqCapabilities, clientCapabilities{})
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
		switch {
		case f.isBytes(planRespPlannedState):
			return r.planned.decode(f.bytes)
		case f.isBytes(planRespRequiresReplace):
			p, err := decodePath(f.bytes)
			r.requiresReplace = append(r.requiresReplace, p)
			return err
		case f.isBytes(planRespPlannedPrivate):
			r.private = f.bytes
		case f.isBytes(planRespDiagnostics):
			return decodeDiagnostic(f.bytes, &r.diags)
		case f.isVarint(planRespLegacyTypeSystem):
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
	b = appendString(b, applyReqTypeName, r.typeName)
	b = appendMessage(b, applyReqPriorState, r.prior)
	b = appendMessage(b, applyReqPlannedState, r.planned)
	b = appendMessage(b, applyReqConfig, r.config)
	b = appendBytes(b, applyReqPlannedPrivate, r.plannedPrivate)
	if r.meta != nil {
		b = appendMessage(b, applyReqProviderMeta, *r.meta)
	}
	return b
}

// stateResponse is the response of ReadResource (state, diagnostics,
// private), ApplyResourceChange (state, private, diagnostics, legacy),
// UpgradeResourceState and ReadDataSource (state, diagnostics): the
// fields' numbers are each message's.
type stateResponse struct {
	stateField, privateField, diagField bytesField
	legacyField                         varintField

	state   dynamicValue
	private []byte
	diags   tfschema.Diagnostics
	legacy  bool
}

func (r *stateResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch {
		case f.isBytes(r.stateField):
			return r.state.decode(f.bytes)
		case f.isBytes(r.diagField):
			return decodeDiagnostic(f.bytes, &r.diags)
		case r.privateField != 0 && f.isBytes(r.privateField):
			r.private = f.bytes
		case r.legacyField != 0 && f.isVarint(r.legacyField):
			r.legacy = f.x != 0
		}
		return nil
	})
}

type importRequest struct {
	typeName, id string
}

func (r importRequest) appendTo(b []byte) []byte {
	b = appendString(b, importReqTypeName, r.typeName)
	b = appendString(b, importReqID, r.id)
	return appendMessage(b, importReqCapabilities, clientCapabilities{})
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
		switch {
		case f.isBytes(importRespImportedResources):
			var ir importedResource
			err := eachField(f.bytes, func(g field) error {
				switch {
				case g.isBytes(importedTypeName):
					ir.typeName = string(g.bytes)
				case g.isBytes(importedState):
					return ir.state.decode(g.bytes)
				case g.isBytes(importedPrivate):
					ir.private = g.bytes
				}
				return nil
			})
			r.imported = append(r.imported, ir)
			return err
		case f.isBytes(importRespDiagnostics):
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
	b = appendString(b, readDataReqTypeName, r.typeName)
	b = appendMessage(b, readDataReqConfig, r.config)
	if r.meta != nil {
		b = appendMessage(b, readDataReqProviderMeta, *r.meta)
	}
	return appendMessage(b, readDataReqCapabilities, clientCapabilities{})
}

type stopResponse struct{ err string }

func (r *stopResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		if f.isBytes(stopRespError) {
			r.err = string(f.bytes)
		}
		return nil
	})
}
