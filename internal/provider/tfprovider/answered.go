package tfprovider

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/tfplugin"
)

// Answered is the object a create of typ made, read from response, the
// provider's answer to it as its journal keeper kept it (state.Answer):
// decoded with the provider's schema, write-only attributes left out.
// An answer without an object is an error wrapping provider.ErrNoObject
// (its diagnostics); one that does not decode, or holds unknown values,
// wraps provider.ErrUnusableAnswer; any other error is the provider's
// (it could not start, or tell its schema).
func (p *Provider) Answered(ctx context.Context, typ string, response []byte) (provider.Object, error) {
	pl, rs, release, err := p.resourceSchema(ctx, typ, false)
	if err != nil {
		return provider.Object{}, err
	}
	defer release()
	ar, err := pl.DecodeAnswer(ctx, typ, response)
	var invalid *tfplugin.InvalidAnswerError
	if errors.As(err, &invalid) {
		return provider.Object{}, provider.UnusableAnswer(err)
	}
	if err != nil {
		return provider.Object{}, err
	}
	p.learn(rs.Block, ar.NewState)
	if ar.NewState.IsNull() {
		err := diagsError(fmt.Sprintf("provider %s", p.cfg.Name), ar.Diagnostics)
		if err == nil {
			err = fmt.Errorf("provider %s answered the create of a %s with no object", p.cfg.Name, typ)
		}
		return provider.Object{}, provider.NoObject(err)
	}
	if !ar.NewState.IsWhollyKnown() {
		return provider.Object{}, provider.UnusableAnswer(fmt.Errorf("provider %s answered the create of a %s with unknown values", p.cfg.Name, typ))
	}
	return objectOf(rs.Block.NullWriteOnly(ar.NewState), ar.Private, rs, ""), nil
}

// Answered is the Terraform provider of typ's (Provider.Answered).
func (r *Router) Answered(ctx context.Context, typ string, response []byte) (provider.Object, error) {
	p, err := r.route(typ)
	if err != nil {
		return provider.Object{}, provider.UnusableAnswer(err)
	}
	if p == nil {
		return provider.Object{}, provider.UnusableAnswer(fmt.Errorf("%s is no Terraform provider's type", typ))
	}
	return p.Answered(ctx, typ, response)
}

// KeepsAnswers reports whether typ's creates go through a journal keeper,
// which keeps their answers (Config.Keeper, not sandboxed).
func (r *Router) KeepsAnswers(typ string) bool {
	p, err := r.route(typ)
	return err == nil && p != nil && p.KeepsAnswers(typ)
}

// KeepsAnswers reports whether the provider's creates go through a
// journal keeper, which keeps their answers: as its processes are
// launched (tfplugin.Config.KeepsAnswers).
func (p *Provider) KeepsAnswers(string) bool { return p.pluginConfig().KeepsAnswers() }
