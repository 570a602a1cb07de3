package engine

import (
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// checkName adds a diagnostic at r when the provider says its cloud would
// refuse the cloud name a create or replace of ch gives it.
func (e *Engine) checkName(diags *diag.Diagnostics, r *config.Resource, ch plan.Change) {
	if ch.Action != plan.Create && ch.Action != plan.Replace {
		return
	}
	if err := e.provider.CheckName(r.Type, ch.CloudName); err != nil {
		diags.Add(r.Pos, "resource %s: %s refuses its name %q: %v", value.QuoteName(r.Name), e.provider.Name(), ch.CloudName, err)
	}
}
