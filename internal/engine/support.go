package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// CheckSupport asks p about every resource of cfg at once
// (provider.Checker.CheckResources) and returns its refusals as
// diagnostics positioned at the refused property, list element or field
// (or the resource), all collected; nil when p accepts everything. It is
// pure: no state, no cloud. Plan calls it first (and again once
// auto-subnets are injected); `kyku validate` calls it to validate a
// config against a provider without planning.
func CheckSupport(p provider.Provider, cfg *config.Config) error {
	if cfg == nil {
		return nil
	}
	return refusals(cfg, p.CheckResources(desired(cfg)))
}

// Validate is CheckSupport, then, when cfg has a type whose provider
// keeps its own state (Terraform providers: their schemas, their own
// validation), p's refusals of cfg's resources and data sources
// (provider.Validator.ValidateConfigs), positioned: what plan and `kyku
// validate` check before anything else. It may start provider
// processes; it calls no cloud.
func Validate(ctx context.Context, p provider.Provider, cfg *config.Config) error {
	if err := CheckSupport(p, cfg); err != nil {
		return err
	}
	if cfg == nil || !hasSelfPlanned(p, cfg) {
		return nil
	}
	refused, err := p.ValidateConfigs(ctx, desired(cfg))
	if err != nil {
		return fmt.Errorf("validate the configuration with its providers: %w", err)
	}
	return refusalsAndReads(ctx, p, cfg, refused)
}

// refusalsAndReads is refusals(cfg, refused) and checkOutputReads's, all
// at once.
func refusalsAndReads(ctx context.Context, p provider.Provider, cfg *config.Config, refused []provider.Refusal) error {
	var diags diag.Diagnostics
	for _, ref := range refused {
		addRefusal(&diags, cfg.Resource(ref.Resource), ref)
	}
	reads, err := checkOutputReads(ctx, p, cfg)
	if err != nil {
		return err
	}
	diags = append(diags, reads...)
	diags.Sort()
	return diags.Err()
}

// checkOutputReads refuses, at each output, a reference of its value to
// an attribute its resource's type lacks (provider.Validator.CheckReads):
// it would read as null.
func checkOutputReads(ctx context.Context, p provider.Provider, cfg *config.Config) (diag.Diagnostics, error) {
	if len(cfg.Outputs) == 0 {
		return nil, nil
	}
	reads := make(map[string]any, len(cfg.Outputs))
	at := make(map[string]diag.Pos, len(cfg.Outputs))
	var rs []provider.Desired // those the outputs read
	seen := map[string]bool{}
	for _, o := range cfg.Outputs {
		reads[o.Name], at[o.Name] = o.Value, o.Pos
		for _, ref := range value.Refs(o.Value) {
			if r := cfg.Resource(ref.Resource); r != nil && !seen[r.Name] {
				seen[r.Name] = true
				rs = append(rs, desiredOf(r))
			}
		}
	}
	if len(rs) == 0 {
		return nil, nil
	}
	refused, err := p.CheckReads(ctx, rs, reads)
	if err != nil {
		return nil, fmt.Errorf("check what the outputs read: %w", err)
	}
	var diags diag.Diagnostics
	for _, ref := range refused {
		pos := at[ref.Resource]
		if ref.Summary != "" && pos.InTerraformFile() {
			diags.Add(pos, "%s: %s", ref.Summary, ref.Detail)
			continue
		}
		diags.Add(pos, "output %s: %s", value.QuoteName(ref.Resource), ref.Reason)
	}
	return diags, nil
}

// hasSelfPlanned reports whether cfg has a resource or data source that
// p's provider plans itself (only then are plugin providers started).
func hasSelfPlanned(p provider.Provider, cfg *config.Config) bool {
	for _, r := range cfg.Resources {
		if p.Schema(r.Type).OwnState {
			return true
		}
	}
	return false
}

// checkCloud asks the provider about every resource of cfg
// (provider.Validator.CheckCloud; auto-subnets included), retrying
// transient errors; refusals are positioned diagnostics.
func (e *Engine) checkCloud(ctx context.Context, cfg *config.Config) error {
	var refused []provider.Refusal
	err := e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		refused, err = e.provider.CheckCloud(ctx, desired(cfg))
		return err
	})
	if err != nil {
		return fmt.Errorf("check the configuration against %s: %w", e.provider.Name(), err)
	}
	return refusals(cfg, refused)
}

// desired is every resource of cfg as providers check it.
func desired(cfg *config.Config) []provider.Desired {
	rs := make([]provider.Desired, len(cfg.Resources))
	for i, r := range cfg.Resources {
		rs[i] = desiredOf(r)
	}
	return rs
}

// desiredOf is r as providers check it.
func desiredOf(r *config.Resource) provider.Desired {
	return provider.Desired{Name: r.Name, Type: r.Type, Properties: r.Properties, Data: r.Data}
}

// refusals turns refusals of cfg's resources into sorted diagnostics.
func refusals(cfg *config.Config, refused []provider.Refusal) error {
	var diags diag.Diagnostics
	for _, ref := range refused {
		addRefusal(&diags, cfg.Resource(ref.Resource), ref)
	}
	diags.Sort()
	return diags.Err()
}

// addRefusal adds ref as a diagnostic at the deepest part of its path r's
// configuration knows the position of.
func addRefusal(diags *diag.Diagnostics, r *config.Resource, ref provider.Refusal) {
	if r == nil { // a provider naming a resource the config lacks: still say it
		diags.Add(diag.Pos{}, "resource %s: %s", value.QuoteName(ref.Resource), ref.Reason)
		return
	}
	pos := r.Pos
	if ref.Path != "" {
		pos = propPos(r, ref.Path)
	}
	if ref.Summary == "Unsupported argument" && slices.Contains(r.BlockProps, ref.Path) {
		// Written as a block: OpenTofu refuses the block type.
		ref.Summary, ref.Detail = "Unsupported block type", fmt.Sprintf("Blocks of type %q are not expected here.", ref.Path)
	}
	if ref.Summary != "" && pos.InTerraformFile() {
		// OpenTofu's diagnostic, where OpenTofu would say it.
		if ref.Detail == "" {
			diags.Add(pos, "%s", ref.Summary)
		} else {
			diags.Add(pos, "%s: %s", ref.Summary, ref.Detail)
		}
		return
	}
	if ref.Path == "" {
		diags.Add(pos, "resource %s (%s): %s", value.QuoteName(r.Name), r.Type, ref.Reason)
		return
	}
	diags.Add(pos, "resource %s (%s): property %q: %s", value.QuoteName(r.Name), r.Type, ref.Path, ref.Reason)
}

// propPos is where path ("ingress[2].cidr") of r is written: the path
// itself, else its nearest parent the config has a position for, else the
// resource.
func propPos(r *config.Resource, path string) diag.Pos {
	if pos, ok := r.PropPos.Nearest(path); ok {
		return pos
	}
	return r.Pos
}
