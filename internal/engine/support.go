package engine

import (
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// CheckSupport asks p, when it is a provider.ResourceChecker, about every
// resource of cfg and returns its refusals as diagnostics positioned at the
// refused property (or the resource), all collected; nil when p accepts
// everything or checks nothing. Plan calls it first; front doors may call
// it to validate a config against a provider without planning.
func CheckSupport(p provider.Provider, cfg *config.Config) error {
	c, ok := p.(provider.ResourceChecker)
	if !ok || cfg == nil {
		return nil
	}
	var diags diag.Diagnostics
	for _, r := range cfg.Resources {
		for _, ref := range c.CheckResource(r.Name, r.Type, r.Properties) {
			pos := r.Pos
			if pp, ok := r.PropPos[ref.Property]; ok && ref.Property != "" {
				pos = pp
			}
			if ref.Property != "" {
				diags.Add(pos, "resource %s (%s): property %q: %s", value.QuoteName(r.Name), r.Type, ref.Property, ref.Reason)
			} else {
				diags.Add(pos, "resource %s (%s): %s", value.QuoteName(r.Name), r.Type, ref.Reason)
			}
		}
	}
	diags.Sort()
	return diags.Err()
}
