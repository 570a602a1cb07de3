package tfprovider

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfschema"
)

// Secrets and write-only attributes. Only the provider's schema says
// which of its attributes are sensitive or write-only, so the provider
// tells the run's scrubber (Config.Learn) of every such value it sends or
// receives, before the call: a refusal at validation or plan, an apply's
// error or a read's may quote it.
//
// Write-only attributes (OpenTofu 1.11's): the configured value goes to
// the provider (ValidateResourceConfig, PlanResourceChange and
// ApplyResourceChange's config) and nowhere else. A provider's answer
// that holds one (planned state, new state, an upgraded, read or
// imported state) is refused, as OpenTofu refuses it, naming the
// attribute, never its value. WriteOnly names them to the engine, which
// keeps none of what was configured there; a reference to one, which
// could only read null, is refused (Router.ValidateConfigs).

// learn tells Config.Learn the secrets of each of vs (values of block).
func (p *Provider) learn(block *tfschema.Block, vs ...cty.Value) {
	if p.cfg.Learn == nil {
		return
	}
	var texts []string
	for _, v := range vs {
		texts = block.AppendSecrets(texts, v)
	}
	if len(texts) > 0 {
		p.cfg.Learn(texts...)
	}
}

// writeOnlyAnswered refuses a provider's answer v (to what(), e.g. `the
// plan of aws_db_instance "db"`) that holds a value at a write-only
// attribute. what is called only then: a plan and a create per resource
// need not format a text that no error shows.
func (p *Provider) writeOnlyAnswered(block *tfschema.Block, v cty.Value, what func() string) error {
	paths := block.WriteOnlyPaths(v)
	if len(paths) == 0 {
		return nil
	}
	names := make([]string, len(paths))
	for i, path := range paths {
		names[i] = fmt.Sprintf("%q", kykuPath(path))
	}
	return fmt.Errorf("provider %s answered %s with a value for the write-only attribute %s, which must be null: "+
		"a bug in the provider; Kyku keeps nothing of it", p.cfg.Name, what(), strings.Join(names, ", "))
}

// plannedOK refuses a planned state that holds a write-only value.
func (p *Provider) plannedOK(block *tfschema.Block, planned cty.Value, typ, name string) error {
	p.learn(block, planned)
	return p.writeOnlyAnswered(block, planned, func() string { return fmt.Sprintf("the plan of %s %q", typ, name) })
}

// writeOnlyInData refuses a data source's configuration that sets a
// write-only attribute: only managed resources have them.
func writeOnlyInData(block *tfschema.Block, cfgVal cty.Value) tfschema.Diagnostics {
	var ds tfschema.Diagnostics
	for _, path := range block.WriteOnlyPaths(cfgVal) {
		ds = append(ds, tfschema.Diagnostic{Severity: tfschema.Error, Path: path,
			Summary: "write-only attribute in a data source", Detail: "only managed resources take write-only attributes; leave it unset"})
	}
	return ds
}
