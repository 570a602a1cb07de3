package tfconfig

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

func newModule(dir string) *Module {
	return &Module{
		Dir:               dir,
		RequiredProviders: map[string]*RequiredProvider{},
		Providers:         map[string]*ProviderBlock{},
		Variables:         map[string]*Variable{},
		Locals:            map[string]*Local{},
		Outputs:           map[string]*Output{},
		Resources:         map[string]*Resource{},
		Calls:             map[string]*Call{},
		Checks:            map[string]*Check{},
		Children:          map[string]*Module{},
	}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func duplicate(summary, detail string, rng hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}
}

// appendFile adds a primary file's blocks to m: a name given twice is an
// error.
func (m *Module) appendFile(f *file) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, rp := range f.requiredProviders {
		if first, dup := m.RequiredProviders[rp.Name]; dup {
			diags = append(diags, duplicate("Duplicate required provider",
				fmt.Sprintf("Provider %s was already required at %s. Each provider may be required only once.", rp.Name, first.Range), rp.Range))
			continue
		}
		m.RequiredProviders[rp.Name] = rp
	}
	for _, b := range f.backends {
		if m.Backend != nil {
			diags = append(diags, duplicate("Duplicate backend configuration",
				fmt.Sprintf("A module may have only one backend configuration. The backend was previously configured at %s.", m.Backend.DeclRange), b.DeclRange))
			continue
		}
		m.Backend = b
	}
	for _, p := range f.providers {
		if first, dup := m.Providers[p.Key()]; dup {
			detail := fmt.Sprintf("A default (non-aliased) provider configuration for %q was already given at %s. If multiple configurations are required, set the \"alias\" argument for alternative configurations.", first.Name, first.DeclRange)
			if first.Alias != "" {
				detail = fmt.Sprintf("A provider configuration for %q with alias %q was already given at %s. Each configuration for the same provider must have a distinct alias.", first.Name, first.Alias, first.DeclRange)
			}
			diags = append(diags, duplicate("Duplicate provider configuration", detail, p.DeclRange))
			continue
		}
		m.Providers[p.Key()] = p
	}
	for _, v := range f.variables {
		if first, dup := m.Variables[v.Name]; dup {
			diags = append(diags, duplicate("Duplicate variable declaration",
				fmt.Sprintf("A variable named %q was already declared at %s. Variable names must be unique within a module.", v.Name, first.DeclRange), v.DeclRange))
		}
		m.Variables[v.Name] = v
	}
	for _, l := range f.locals {
		if first, dup := m.Locals[l.Name]; dup {
			diags = append(diags, duplicate("Duplicate local value definition",
				fmt.Sprintf("A local value named %q was already defined at %s. Local value names must be unique within a module.", l.Name, first.DeclRange), l.DeclRange))
		}
		m.Locals[l.Name] = l
	}
	for _, o := range f.outputs {
		if first, dup := m.Outputs[o.Name]; dup {
			diags = append(diags, duplicate("Duplicate output definition",
				fmt.Sprintf("An output named %q was already defined at %s. Output names must be unique within a module.", o.Name, first.DeclRange), o.DeclRange))
		}
		m.Outputs[o.Name] = o
	}
	for _, c := range f.calls {
		if first, dup := m.Calls[c.Name]; dup {
			diags = append(diags, duplicate("Duplicate module call",
				fmt.Sprintf("A module call named %q was already defined at %s. Module calls must have unique names within a module.", c.Name, first.DeclRange), c.DeclRange))
		}
		m.Calls[c.Name] = c
	}
	for _, r := range f.resources {
		diags = append(diags, m.addResource(r, "")...)
	}
	for _, c := range f.checks {
		if first, dup := m.Checks[c.Name]; dup {
			diags = append(diags, duplicate(fmt.Sprintf("Duplicate check %q configuration", c.Name),
				fmt.Sprintf("A check block named %q was already declared at %s. Check blocks must be unique within each module.", c.Name, first.DeclRange), c.DeclRange))
			continue
		}
		m.Checks[c.Name] = c
		if c.Data != nil {
			diags = append(diags, m.addResource(c.Data, ", including within check blocks")...)
		}
	}
	m.Moved = append(m.Moved, f.moved...)
	m.Imports = append(m.Imports, f.imports...)
	m.Removed = append(m.Removed, f.removed...)
	return diags
}

func (m *Module) addResource(r *Resource, where string) hcl.Diagnostics {
	first, dup := m.Resources[r.Key()]
	if !dup {
		m.Resources[r.Key()] = r
		return nil
	}
	if r.Mode == Data {
		return hcl.Diagnostics{duplicate(fmt.Sprintf("Duplicate data %q configuration", r.Type),
			fmt.Sprintf("A %s data resource named %q was already declared at %s. Resource names must be unique per type in each module%s.", r.Type, r.Name, first.DeclRange, where), r.DeclRange)}
	}
	return hcl.Diagnostics{duplicate(fmt.Sprintf("Duplicate resource %q configuration", r.Type),
		fmt.Sprintf("A %s resource named %q was already declared at %s. Resource names must be unique per type in each module.", r.Type, r.Name, first.DeclRange), r.DeclRange)}
}

// mergeFile merges an override file into m, as OpenTofu does: each block
// changes the block of its name, which must exist; an argument given
// replaces the original's, nested blocks of a type given replace all of
// the original's of that type.
func (m *Module) mergeFile(f *file) hcl.Diagnostics {
	var diags hcl.Diagnostics
	// OpenTofu's words for each kind of block an override names but the
	// primary files lack.
	missing := func(summary, detail string, rng hcl.Range) {
		diags = append(diags, duplicate(summary, detail, rng))
	}
	for _, rp := range f.requiredProviders {
		m.RequiredProviders[rp.Name] = rp
	}
	for _, b := range f.backends {
		m.Backend = b
	}
	for _, p := range f.providers {
		base, ok := m.Providers[p.Key()]
		if !ok {
			missing("Missing base provider configuration for override",
				fmt.Sprintf("There is no %s provider configuration with the alias %q. An override file can only override an aliased provider configuration that was already defined in a primary configuration file.", p.Name, p.Alias), p.DeclRange)
			continue
		}
		base.Body = mergeBodies(base.Body, p.Body)
	}
	for _, v := range f.variables {
		base, ok := m.Variables[v.Name]
		if !ok {
			missing("Missing base variable declaration to override",
				fmt.Sprintf("There is no variable named %q. An override file can only override a variable that was already declared in a primary configuration file.", v.Name), v.DeclRange)
			continue
		}
		diags = append(diags, base.merge(v)...)
	}
	for _, l := range f.locals {
		if _, ok := m.Locals[l.Name]; !ok {
			missing("Missing base local value definition to override",
				fmt.Sprintf("There is no local value named %q. An override file can only override a local value that was already defined in a primary configuration file.", l.Name), l.DeclRange)
			continue
		}
		m.Locals[l.Name] = l
	}
	for _, o := range f.outputs {
		base, ok := m.Outputs[o.Name]
		if !ok {
			missing("Missing base output definition to override",
				fmt.Sprintf("There is no output named %q. An override file can only override an output that was already defined in a primary configuration file.", o.Name), o.DeclRange)
			continue
		}
		if o.Expr != nil {
			base.Expr = o.Expr
		}
		if o.Description != "" {
			base.Description = o.Description
		}
		base.Sensitive = base.Sensitive || o.Sensitive
	}
	for _, c := range f.calls {
		base, ok := m.Calls[c.Name]
		if !ok {
			missing("Missing module call to override",
				fmt.Sprintf("There is no module call named %q. An override file can only override a module call that was defined in a primary configuration file.", c.Name), c.DeclRange)
			continue
		}
		if c.Source != "" || c.SourceExpr != nil {
			base.Source, base.SourceExpr, base.SourceRange = c.Source, c.SourceExpr, c.SourceRange
		}
		if c.Version != "" || c.VersionExpr != nil {
			base.Version, base.VersionExpr, base.VersionRange = c.Version, c.VersionExpr, c.VersionRange
		}
		if c.Count != nil {
			base.Count = c.Count
		}
		if c.ForEach != nil {
			base.ForEach = c.ForEach
		}
		if len(c.Providers) > 0 {
			base.Providers = c.Providers
		}
		for name, a := range c.Inputs {
			base.Inputs[name] = a
		}
	}
	for _, r := range f.resources {
		base, ok := m.Resources[r.Key()]
		if !ok {
			if r.Mode == Data {
				missing("Missing data resource to override",
					fmt.Sprintf("There is no %s data resource named %q. An override file can only override a data block defined in a primary configuration file.", r.Type, r.Name), r.DeclRange)
			} else {
				missing("Missing resource to override",
					fmt.Sprintf("There is no %s resource named %q. An override file can only override a resource block defined in a primary configuration file.", r.Type, r.Name), r.DeclRange)
			}
			continue
		}
		diags = append(diags, base.merge(r)...)
	}
	return diags
}

func (v *Variable) merge(o *Variable) hcl.Diagnostics {
	// An override's decoding set the defaults of what it left out: only
	// what differs from them is taken.
	if o.Description != "" {
		v.Description = o.Description
	}
	if o.Default != cty.NilVal {
		v.Default = o.Default
	}
	if o.Type != cty.DynamicPseudoType {
		v.Type, v.Defaults, v.Literal = o.Type, o.Defaults, o.Literal
	}
	if o.Sensitive {
		v.Sensitive = true
	}
	if !o.Nullable {
		v.Nullable = false
	}
	if o.ConstSet {
		v.Const, v.ConstSet = o.Const, true
	}
	v.Validations = append(v.Validations, o.Validations...)
	return nil
}

func (r *Resource) merge(o *Resource) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if o.Count != nil {
		r.Count = o.Count
	}
	if o.ForEach != nil {
		r.ForEach = o.ForEach
	}
	if o.Provider != nil {
		r.Provider = o.Provider
	}
	if o.CreateBeforeDestroy {
		r.CreateBeforeDestroy = true
	}
	if o.PreventDestroy != nil {
		r.PreventDestroy = o.PreventDestroy
	}
	if o.Destroy != nil {
		r.Destroy = o.Destroy
	}
	if len(o.IgnoreChanges) > 0 {
		r.IgnoreChanges = o.IgnoreChanges
	}
	r.IgnoreAll = r.IgnoreAll || o.IgnoreAll
	if len(o.DependsOn) > 0 {
		diags = append(diags, duplicate("Unsupported override", "The depends_on argument may not be overridden.", o.DependsOn[0].SourceRange()))
	}
	body, ok := mergeResourceBodies(r.Body, o.Body)
	if !ok {
		diags = append(diags, duplicate("Unsupported override",
			"Kyku merges an override file into a file of the same syntax only: write the override as native syntax (.tf) for a .tf file, as JSON for a .tf.json file.", o.DeclRange))
	}
	r.Body = body
	return diags
}

// mergeResourceBodies merges override o into base b: arguments replace
// arguments, block types given replace every block of their type
// (dynamic blocks counting as their type).
func mergeResourceBodies(b, o *Body) (*Body, bool) {
	switch {
	case b.Native != nil && o.Native != nil:
		out := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, SrcRange: b.Native.SrcRange, EndRange: b.Native.EndRange}
		maps.Copy(out.Attributes, b.Native.Attributes)
		maps.Copy(out.Attributes, o.Native.Attributes)
		replaced := map[string]bool{}
		for _, blk := range o.Native.Blocks {
			replaced[blockType(blk)] = true
		}
		for _, blk := range b.Native.Blocks {
			if !replaced[blockType(blk)] {
				out.Blocks = append(out.Blocks, blk)
			}
		}
		out.Blocks = append(out.Blocks, o.Native.Blocks...)
		return &Body{Native: out, Range: b.Range}, true
	case b.JSON != nil && o.JSON != nil:
		out := hcl.Attributes{}
		maps.Copy(out, b.JSON)
		maps.Copy(out, o.JSON)
		return &Body{JSON: out, Range: b.Range}, true
	}
	return b, false
}

// blockType is the type of the blocks blk makes: a dynamic block's label.
func blockType(blk *hclsyntax.Block) string {
	if blk.Type == "dynamic" && len(blk.Labels) == 1 {
		return blk.Labels[0]
	}
	return blk.Type
}

// mergeBodies merges an override provider body into base.
func mergeBodies(base, o hcl.Body) hcl.Body {
	bn, ok1 := base.(*hclsyntax.Body)
	on, ok2 := o.(*hclsyntax.Body)
	if ok1 && ok2 {
		merged, _ := mergeResourceBodies(&Body{Native: bn}, &Body{Native: on})
		return merged.Native
	}
	return o
}
