package tfprovider

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
)

// configured is a resource's configuration for its provider: encoded as
// the protocol carries it, straight from the properties where they are
// plain (tfplugin.EncodeConfig), and as a cty value only for a caller
// that needs one (value).
type configured struct {
	tfplugin.EncodedConfig
	block *tfschema.Block
	props map[string]any
}

// configure encodes props, the configuration of a value of block; the
// diagnostics are tfschema.Config's.
func configure(block *tfschema.Block, props map[string]any) (configured, tfschema.Diagnostics, error) {
	enc, ds, err := tfplugin.EncodeConfig(block, props)
	return configured{EncodedConfig: enc, block: block, props: props}, ds, err
}

// value is tfschema.Config's value of the configuration, built at the
// first call that needs it.
func (c *configured) value() cty.Value {
	if c.Value == cty.NilVal {
		c.Value, _ = tfschema.Config(c.block, c.props)
	}
	return c.Value
}

// learnConfig learns the secrets of a configuration (learn), building its
// value only when its block holds a sensitive or write-only attribute.
func (p *Provider) learnConfig(c *configured) {
	if p.cfg.Learn != nil && c.block.HasSecrets() {
		p.learn(c.block, c.value())
	}
}

// planRequest is the PlanResourceChange of c against prior. A create of
// a configuration written straight from its properties proposes the
// configuration itself (what tfschema.ProposedNew gives against no
// prior state); a create of a block without secrets asks for the planned
// state as values only (nothing reads its cty value).
func planRequest(typ string, prior cty.Value, priorPrivate []byte, c *configured) tfplugin.PlanRequest {
	r := tfplugin.PlanRequest{TypeName: typ, PriorState: prior, PriorPrivate: priorPrivate, ConfigMsgpack: c.Msgpack}
	create := prior.IsKnown() && prior.IsNull()
	if create && c.Value == cty.NilVal {
		r.ProposedMsgpack = c.Msgpack
	} else {
		r.ProposedNewState = tfschema.ProposedNew(c.block, prior, c.value())
	}
	r.Values = create && !c.block.HasSecrets()
	return r
}

// plannedValues is the planned state of resp, a PlanResourceChange of
// block, as values: those of its cty value, unless the request asked for
// values only (planRequest); then nothing of it is a secret to learn or a
// write-only value to refuse.
func (p *Provider) plannedValues(block *tfschema.Block, resp tfplugin.PlanResponse, typ, name string) (map[string]any, error) {
	if resp.PlannedState == cty.NilVal {
		return resp.PlannedValues, nil
	}
	if err := p.plannedOK(block, resp.PlannedState, typ, name); err != nil {
		return nil, err
	}
	return tfschema.FromCtyObject(resp.PlannedState), nil
}

// encodedState is Stored.Value of an object a create answered as values
// (tfplugin.ApplyRequest.Values): its new state as the provider sent it,
// in msgpack of type ty, decoded only when a later call needs the value
// (storedValue).
type encodedState struct {
	msgpack []byte
	ty      cty.Type
}
