package tfplugin

import (
	"context"
	"fmt"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfschema"
)

// Every call takes and returns cty values of the schema's types (see
// package tfschema for Kyku's values; validate, plan and apply also take
// values already encoded, EncodeConfig's, and plan and apply answer
// Kyku's values when asked: Values), and returns the provider's
// diagnostics beside an error: the error is for the call itself (the
// transport, a crash, an undecodable answer); the diagnostics, with
// their attribute paths, are the provider's judgement of the request and
// may hold errors too (Diagnostics.Err).

// ValidateProviderConfig asks the provider to check its configuration
// (protocol 5: PrepareProviderConfig, whose prepared configuration, when
// the provider sends one, is returned; otherwise config is).
func (p *Provider) ValidateProviderConfig(ctx context.Context, config cty.Value) (cty.Value, tfschema.Diagnostics, error) {
	s, err := p.Schema(ctx)
	if err != nil {
		return cty.NilVal, nil, err
	}
	ty := s.Provider.Block.ImpliedType()
	dv, err := encode(config, ty)
	if err != nil {
		return cty.NilVal, nil, err
	}
	resp := &diagsResponse{diagField: validateProviderRespDiagnostics}
	if p.protocol == 5 {
		resp.valueField = prepareProviderRespPreparedConfig
	}
	if err := p.invoke(ctx, p.names.validateProvider, configOnly{config: dv}, resp); err != nil {
		return cty.NilVal, nil, err
	}
	if !resp.value.present() {
		return config, resp.diags, nil
	}
	prepared, err := resp.value.value(ty)
	if err != nil {
		return cty.NilVal, resp.diags, p.badAnswer("PrepareProviderConfig", err)
	}
	return prepared, resp.diags, nil
}

// ConfigureProvider configures the provider (credentials, region);
// terraformVersion is what the provider is told its client is.
func (p *Provider) ConfigureProvider(ctx context.Context, config cty.Value, terraformVersion string) (tfschema.Diagnostics, error) {
	s, err := p.Schema(ctx)
	if err != nil {
		return nil, err
	}
	dv, err := encode(config, s.Provider.Block.ImpliedType())
	if err != nil {
		return nil, err
	}
	resp := &diagsResponse{diagField: configureRespDiagnostics}
	err = p.invoke(ctx, p.names.configure, configureRequest{terraformVersion: terraformVersion, config: dv}, resp)
	return resp.diags, err
}

// ValidateResourceConfig asks the provider to check a resource's
// configuration (its own rules, beyond the schema's).
func (p *Provider) ValidateResourceConfig(ctx context.Context, typeName string, config cty.Value) (tfschema.Diagnostics, error) {
	return p.validate(ctx, typeName, config, false)
}

// ValidateDataResourceConfig is ValidateResourceConfig for a data
// source.
func (p *Provider) ValidateDataResourceConfig(ctx context.Context, typeName string, config cty.Value) (tfschema.Diagnostics, error) {
	return p.validate(ctx, typeName, config, true)
}

// ValidateEncoded is ValidateResourceConfig (data: ValidateDataResourceConfig)
// of a configuration already encoded (EncodeConfig).
func (p *Provider) ValidateEncoded(ctx context.Context, typeName string, data bool, config []byte) (tfschema.Diagnostics, error) {
	if _, err := p.resourceSchema(ctx, typeName, data); err != nil {
		return nil, err
	}
	return p.validateValue(ctx, typeName, dynamicValue{msgpack: config}, data)
}

func (p *Provider) validate(ctx context.Context, typeName string, config cty.Value, data bool) (tfschema.Diagnostics, error) {
	rs, err := p.resourceSchema(ctx, typeName, data)
	if err != nil {
		return nil, err
	}
	dv, err := encode(config, rs.Block.ImpliedType())
	if err != nil {
		return nil, err
	}
	return p.validateValue(ctx, typeName, dv, data)
}

func (p *Provider) validateValue(ctx context.Context, typeName string, dv dynamicValue, data bool) (tfschema.Diagnostics, error) {
	method := p.names.validateResource
	if data {
		method = p.names.validateData
	}
	resp := &diagsResponse{diagField: validateRespDiagnostics}
	err := p.invoke(ctx, method, typedConfig{typeName: p.wireType(typeName), config: dv, caps: !data}, resp)
	return resp.diags, err
}

// UpgradeResourceState hands the provider state written by schema
// version version (as JSON, the form state keeps) and returns it in the
// current schema's form. Every state read from storage goes through it
// before any other call, as Terraform does, also when the versions are
// equal (providers normalise there).
func (p *Provider) UpgradeResourceState(ctx context.Context, typeName string, version int64, rawJSON []byte) (cty.Value, tfschema.Diagnostics, error) {
	rs, err := p.resourceSchema(ctx, typeName, false)
	if err != nil {
		return cty.NilVal, nil, err
	}
	resp := &stateResponse{stateField: upgradeRespUpgradedState, diagField: upgradeRespDiagnostics}
	if err := p.invoke(ctx, p.names.upgrade, upgradeRequest{typeName: p.wireType(typeName), version: version, rawJSON: rawJSON}, resp); err != nil {
		return cty.NilVal, nil, err
	}
	if resp.diags.HasErrors() {
		return cty.NilVal, resp.diags, nil
	}
	v, err := resp.state.value(rs.Block.ImpliedType())
	if err != nil {
		return cty.NilVal, resp.diags, p.badAnswer("UpgradeResourceState", err)
	}
	return v, resp.diags, nil
}

// ReadRequest is a refresh of one resource.
type ReadRequest struct {
	TypeName string
	State    cty.Value
	Private  []byte
}

// ReadResponse is the resource as the provider finds it: NewState null
// means it is gone.
type ReadResponse struct {
	NewState    cty.Value
	Private     []byte
	Diagnostics tfschema.Diagnostics
}

// ReadResource refreshes a resource from its cloud.
func (p *Provider) ReadResource(ctx context.Context, r ReadRequest) (ReadResponse, error) {
	rs, err := p.resourceSchema(ctx, r.TypeName, false)
	if err != nil {
		return ReadResponse{}, err
	}
	ty := rs.Block.ImpliedType()
	dv, err := encode(r.State, ty)
	if err != nil {
		return ReadResponse{}, err
	}
	resp := &stateResponse{stateField: readRespNewState, diagField: readRespDiagnostics, privateField: readRespPrivate}
	if err := p.invoke(ctx, p.names.read, readRequest{typeName: p.wireType(r.TypeName), state: dv, private: r.Private, meta: p.meta()}, resp); err != nil {
		return ReadResponse{}, err
	}
	out := ReadResponse{Private: resp.private, Diagnostics: resp.diags}
	if out.NewState, err = resp.state.value(ty); err != nil {
		return out, p.badAnswer("ReadResource", err)
	}
	return out, nil
}

// PlanRequest asks how a resource would change. PriorState null is a
// create, ProposedNewState (tfschema.ProposedNew) null a destroy.
type PlanRequest struct {
	TypeName                             string
	PriorState, ProposedNewState, Config cty.Value
	PriorPrivate                         []byte
	// ProposedMsgpack and ConfigMsgpack, when set, are sent instead of
	// ProposedNewState and Config: the values already encoded
	// (EncodeConfig; a create's proposed new state is its configuration).
	ProposedMsgpack, ConfigMsgpack []byte
	// Values: the planned state is decoded as Kyku's values
	// (PlanResponse.PlannedValues) instead of as PlannedState.
	Values bool
}

// PlanResponse is the provider's plan: the state apply must produce
// (unknown where it is known only after apply), the paths whose change
// forces a replace, and private data apply gets back. PlannedMsgpack is
// PlannedState as the provider sent it, for a saved plan to carry
// exactly.
type PlanResponse struct {
	PlannedState cty.Value
	// PlannedValues, when the request asked for Values, is the planned
	// state as Kyku's values (tfschema.FromCtyObject of it); PlannedState
	// is then not decoded.
	PlannedValues    map[string]any
	PlannedMsgpack   []byte
	RequiresReplace  []cty.Path
	PlannedPrivate   []byte
	LegacyTypeSystem bool
	Diagnostics      tfschema.Diagnostics
}

// PlanResourceChange plans one resource change.
func (p *Provider) PlanResourceChange(ctx context.Context, r PlanRequest) (PlanResponse, error) {
	rs, err := p.resourceSchema(ctx, r.TypeName, false)
	if err != nil {
		return PlanResponse{}, err
	}
	ty := rs.Block.ImpliedType()
	var req planRequest
	req.typeName, req.priorPrivate, req.meta = p.wireType(r.TypeName), r.PriorPrivate, p.meta()
	if req.prior, err = encode(r.PriorState, ty); err != nil {
		return PlanResponse{}, err
	}
	if req.proposed, err = encodeOr(r.ProposedMsgpack, r.ProposedNewState, ty); err != nil {
		return PlanResponse{}, err
	}
	if req.config, err = encodeOr(r.ConfigMsgpack, r.Config, ty); err != nil {
		return PlanResponse{}, err
	}
	resp := &planResponse{}
	if err := p.invoke(ctx, p.names.plan, req, resp); err != nil {
		return PlanResponse{}, err
	}
	out := PlanResponse{
		PlannedMsgpack: resp.planned.msgpack, RequiresReplace: resp.requiresReplace,
		PlannedPrivate: resp.private, LegacyTypeSystem: resp.legacy, Diagnostics: resp.diags,
	}
	if resp.diags.HasErrors() {
		return out, nil
	}
	if r.Values {
		out.PlannedValues, err = resp.planned.values(ty)
	} else {
		out.PlannedState, err = resp.planned.value(ty)
	}
	if err != nil {
		return out, p.badAnswer("PlanResourceChange", err)
	}
	return out, nil
}

// ApplyRequest carries out a planned change: PlannedState and
// PlannedPrivate exactly as PlanResourceChange returned them.
type ApplyRequest struct {
	TypeName                         string
	PriorState, PlannedState, Config cty.Value
	PlannedPrivate                   []byte
	// PlannedMsgpack, when set, is sent instead of PlannedState: the
	// planned state exactly as a saved plan holds it. ConfigMsgpack, when
	// set, is sent instead of Config (EncodeConfig).
	PlannedMsgpack, ConfigMsgpack []byte
	// Values: the new state is decoded as Kyku's values
	// (ApplyResponse.NewValues) instead of as NewState.
	Values bool
	// AnswerTo, for a create whose intent is journaled, is where the
	// journal keeper (Config.Keeper) writes the provider's answer, as a
	// state.Answer of Address and TypeName, before Kyku is given it.
	// Empty, or without a keeper: the call is Kyku's own. Note is the
	// Note of the note at AnswerTo (state.Answer.Note) as its maker
	// wrote it; empty: read from the note as the call is sent.
	AnswerTo, Address, Note string
}

// ApplyResponse is the resource after the change: NewState null after a
// destroy. A failed apply may still return a NewState (what was created
// before the failure): keep it.
type ApplyResponse struct {
	NewState cty.Value
	// NewValues, when the request asked for Values, is the new state as
	// Kyku's values (tfschema.FromCtyObject of it), and NewMsgpack the
	// new state as the provider sent it; NewState is then not decoded,
	// unless the new state is not an object (null, unknown) or was not
	// sent in msgpack (then NewState is set as without Values).
	NewValues        map[string]any
	NewMsgpack       []byte
	Private          []byte
	LegacyTypeSystem bool
	Diagnostics      tfschema.Diagnostics
}

// ApplyResourceChange applies one change. Cancelling ctx does not cut
// the call: the provider is asked to stop (StopProvider) and its answer
// awaited for Config.StopGrace, so that what it did is not lost; only
// then is the call abandoned.
func (p *Provider) ApplyResourceChange(ctx context.Context, r ApplyRequest) (ApplyResponse, error) {
	rs, err := p.resourceSchema(ctx, r.TypeName, false)
	if err != nil {
		return ApplyResponse{}, notSent(err)
	}
	ty := rs.Block.ImpliedType()
	var req applyRequest
	req.typeName, req.plannedPrivate, req.meta = p.wireType(r.TypeName), r.PlannedPrivate, p.meta()
	if req.prior, err = encode(r.PriorState, ty); err != nil {
		return ApplyResponse{}, notSent(fmt.Errorf("ApplyResourceChange %s: prior state: %w", r.TypeName, err))
	}
	if r.PlannedMsgpack != nil {
		req.planned = dynamicValue{msgpack: r.PlannedMsgpack}
	} else if req.planned, err = encode(r.PlannedState, ty); err != nil {
		return ApplyResponse{}, notSent(fmt.Errorf("ApplyResourceChange %s: planned state: %w", r.TypeName, err))
	}
	if req.config, err = encodeOr(r.ConfigMsgpack, r.Config, ty); err != nil {
		return ApplyResponse{}, notSent(fmt.Errorf("ApplyResourceChange %s: config: %w", r.TypeName, err))
	}

	callCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	done := make(chan struct{})
	stopWatch := context.AfterFunc(ctx, func() {
		go func() { _ = p.Stop(callCtx) }() // may take a while
		t := time.NewTimer(p.cfg.StopGrace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel(fmt.Errorf("interrupted, and no answer within %s: %w", p.cfg.StopGrace, context.Cause(ctx)))
		case <-done:
		}
	})
	resp := newApplyResponse()
	switch {
	case p.usesKeeper(r):
		err = p.invokeKept(callCtx, p.names.apply, req, resp, r)
	case r.AnswerTo != "":
		// Noted for a keeper the provider runs without (launch fell
		// back): marked asked as the keeper would, so that a kill leaves
		// the intent refused, never closed as a create not asked. The
		// call is Kyku's own, made now: its note is the one this apply
		// made, whatever its Note.
		var note *answerFile
		note, err = openNote(r.AnswerTo, r.Address)
		if err == nil {
			if err = note.markAsked(state.Answer{Address: r.Address, Type: r.TypeName, Asked: true}, nil); err != nil {
				note.close()
			}
		}
		if err != nil {
			return ApplyResponse{}, notSent(err)
		}
		err = p.invoke(callCtx, p.names.apply, req, resp)
		note.close()
	default:
		err = p.invoke(callCtx, p.names.apply, req, resp)
	}
	close(done)
	stopWatch()
	if err != nil {
		return ApplyResponse{}, err
	}
	if r.Values {
		return p.applyValues(resp, ty)
	}
	return p.applyAnswer(resp, ty)
}

// newApplyResponse is ApplyResourceChange's answer, to decode.
func newApplyResponse() *stateResponse {
	return &stateResponse{stateField: applyRespNewState, privateField: applyRespPrivate, diagField: applyRespDiagnostics, legacyField: applyRespLegacyTypeSystem}
}

// applyAnswer is resp, ApplyResourceChange's decoded answer, with its
// new state of type ty.
func (p *Provider) applyAnswer(resp *stateResponse, ty cty.Type) (ApplyResponse, error) {
	out := ApplyResponse{Private: resp.private, LegacyTypeSystem: resp.legacy, Diagnostics: resp.diags}
	var err error
	if out.NewState, err = resp.state.value(ty); err != nil {
		return out, p.badAnswer("ApplyResourceChange", err)
	}
	return out, nil
}

// applyValues is applyAnswer with the new state as Kyku's values; as a
// cty value (NewState) too when it is not an object's (null, unknown) or
// not in msgpack.
func (p *Provider) applyValues(resp *stateResponse, ty cty.Type) (ApplyResponse, error) {
	if len(resp.state.msgpack) == 0 {
		return p.applyAnswer(resp, ty)
	}
	out := ApplyResponse{Private: resp.private, LegacyTypeSystem: resp.legacy, Diagnostics: resp.diags, NewMsgpack: resp.state.msgpack}
	var err error
	if out.NewValues, err = resp.state.values(ty); err != nil {
		return out, p.badAnswer("ApplyResourceChange", err)
	}
	if out.NewValues == nil {
		return p.applyAnswer(resp, ty)
	}
	return out, nil
}

// ImportedResource is one resource an import found.
type ImportedResource struct {
	TypeName string
	State    cty.Value
	Private  []byte
}

// ImportResourceState finds an existing cloud object by its ID. The
// state it returns is partial: read it (ReadResource) before use.
func (p *Provider) ImportResourceState(ctx context.Context, typeName, id string) ([]ImportedResource, tfschema.Diagnostics, error) {
	if _, err := p.resourceSchema(ctx, typeName, false); err != nil {
		return nil, nil, err
	}
	resp := &importResponse{}
	if err := p.invoke(ctx, p.names.importState, importRequest{typeName: p.wireType(typeName), id: id}, resp); err != nil {
		return nil, nil, err
	}
	out := make([]ImportedResource, 0, len(resp.imported))
	for _, ir := range resp.imported {
		ir.typeName = p.localType(ir.typeName)
		rs, err := p.resourceSchema(ctx, ir.typeName, false)
		if err != nil {
			return nil, resp.diags, p.badAnswer("ImportResourceState", err)
		}
		v, err := ir.state.value(rs.Block.ImpliedType())
		if err != nil {
			return nil, resp.diags, p.badAnswer("ImportResourceState", err)
		}
		out = append(out, ImportedResource{TypeName: ir.typeName, State: v, Private: ir.private})
	}
	return out, resp.diags, nil
}

// ReadDataSource reads a data source with its configuration.
func (p *Provider) ReadDataSource(ctx context.Context, typeName string, config cty.Value) (cty.Value, tfschema.Diagnostics, error) {
	rs, err := p.resourceSchema(ctx, typeName, true)
	if err != nil {
		return cty.NilVal, nil, err
	}
	ty := rs.Block.ImpliedType()
	dv, err := encode(config, ty)
	if err != nil {
		return cty.NilVal, nil, err
	}
	resp := &stateResponse{stateField: readDataRespState, diagField: readDataRespDiagnostics}
	if err := p.invoke(ctx, p.names.readData, readDataRequest{typeName: p.wireType(typeName), config: dv, meta: p.meta()}, resp); err != nil {
		return cty.NilVal, nil, err
	}
	if resp.diags.HasErrors() {
		return cty.NilVal, resp.diags, nil
	}
	v, err := resp.state.value(ty)
	if err != nil {
		return cty.NilVal, resp.diags, p.badAnswer("ReadDataSource", err)
	}
	return v, resp.diags, nil
}

// Stop asks the provider to cancel what it is doing (StopProvider), once
// per process: later calls return at once.
func (p *Provider) Stop(ctx context.Context) error {
	var err error
	p.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		resp := &stopResponse{}
		if err = p.invoke(ctx, p.names.stop, empty{}, resp); err == nil && resp.err != "" {
			err = fmt.Errorf("provider %s: stop: %s", p.cfg.Name, resp.err)
		}
	})
	return err
}

func (p *Provider) badAnswer(method string, err error) error {
	return &InvalidAnswerError{Err: fmt.Errorf("provider %s: %s: invalid answer: %w", p.cfg.Name, method, err)}
}

// InvalidAnswerError is an answer of the provider's that does not decode
// with its schema.
type InvalidAnswerError struct{ Err error }

func (e *InvalidAnswerError) Error() string { return e.Err.Error() }
func (e *InvalidAnswerError) Unwrap() error { return e.Err }
