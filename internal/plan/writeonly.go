package plan

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/value"
)

// Write-only attributes (Plan.WriteOnly) are sent to their provider and
// kept nowhere: a plan file leaves their configured values out of its
// embedded configuration, with the secrets only they hold, and whatever
// applies it or compares with it first takes them again from the
// configuration it was planned from (WithWriteOnly), which must hash to
// the plan's hashes. Terraform asks again for the ephemeral values a
// saved plan did not keep in the same way.

// ErrWriteOnlyLeftOut is wrapped by WithWriteOnly's errors.
var ErrWriteOnlyLeftOut = errors.New("the plan file leaves out the values of write-only attributes")

// WriteOnlyLeftOut lists, sorted, the properties ("resource.property")
// whose values a plan file leaves out: empty when it leaves none.
func (p *Plan) WriteOnlyLeftOut() []string {
	var out []string
	for name, props := range p.WriteOnly {
		for _, prop := range props {
			out = append(out, name+"."+prop)
		}
	}
	slices.Sort(out)
	return out
}

// holdsWriteOnly reports whether p's configuration holds a value
// p.WriteOnly names (none does in a plan file).
func (p *Plan) holdsWriteOnly() bool {
	if p.Config == nil {
		return false
	}
	for _, r := range p.Config.Resources {
		for _, n := range p.WriteOnly[r.Name] {
			if _, ok := r.Properties[n]; ok {
				return true
			}
		}
	}
	return false
}

// savedForm is p as a plan file holds it: its configuration without the
// values p.WriteOnly names, nor the secrets that only they held. p is
// not changed.
func savedForm(p *Plan) *Plan {
	if len(p.WriteOnly) == 0 || p.Config == nil {
		return p
	}
	var gone []string
	c := p.editWriteOnly(func(name string, props map[string]any) {
		for _, n := range p.WriteOnly[name] {
			gone = value.AppendLeaves(gone, props[n])
			delete(props, n)
		}
	})
	kept := keptTexts(c)
	c.Secrets = slices.DeleteFunc(c.Secrets, func(s string) bool {
		return holds(gone, s) && !holds(kept, s)
	})
	q := *p
	q.Config = c
	return &q
}

// editWriteOnly is a copy of p's configuration in which edit changed the
// properties (a copy) of each resource p.WriteOnly names; the other
// resources are shared.
func (p *Plan) editWriteOnly(edit func(name string, props map[string]any)) *config.Config {
	c := p.Config.Clone()
	for i, r := range c.Resources {
		if len(p.WriteOnly[r.Name]) == 0 {
			continue
		}
		nr := *r
		nr.Properties = maps.Clone(r.Properties)
		edit(r.Name, nr.Properties)
		c.Resources[i] = &nr
	}
	return c
}

// keptTexts are the texts of c's values: its resources' properties, its
// outputs and its providers' settings.
func keptTexts(c *config.Config) []string {
	var out []string
	for _, r := range c.Resources {
		out = value.AppendLeaves(out, r.Properties)
	}
	for _, o := range c.Outputs {
		out = value.AppendLeaves(out, o.Value)
	}
	for _, s := range c.Provider.Settings {
		out = append(out, s)
	}
	for _, pp := range c.Providers {
		out = value.AppendLeaves(out, pp.Config)
	}
	return out
}

// holds reports whether one of texts holds s.
func holds(texts []string, s string) bool {
	for _, t := range texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// WithWriteOnly returns p (a plan file's) with the values it left out
// taken from cfg, the configuration it was planned from, and cfg's
// secrets; refused (ErrWriteOnlyLeftOut) unless the configuration then
// hashes to the plan's configHash and secretsHash. p itself is not
// changed; a plan that left nothing out (one in memory) is returned as it
// is.
func (p *Plan) WithWriteOnly(cfg *config.Config) (*Plan, error) {
	if len(p.WriteOnly) == 0 || p.Config == nil || p.holdsWriteOnly() {
		return p, nil
	}
	left := strings.Join(p.WriteOnlyLeftOut(), ", ")
	if cfg == nil {
		return nil, fmt.Errorf("%w (%s): give the configuration it was planned from, with the same variables", ErrWriteOnlyLeftOut, left)
	}
	c := p.editWriteOnly(func(name string, props map[string]any) {
		from := cfg.Resource(name)
		if from == nil {
			return
		}
		for _, n := range p.WriteOnly[name] {
			if v, ok := from.Properties[n]; ok {
				props[n] = v
			}
		}
	})
	c.Secrets = slices.Clone(cfg.Secrets)
	if c.Hash() != p.ConfigHash || c.SecretsHash() != p.SecretsHash {
		return nil, fmt.Errorf("%w (%s), and the configuration given to take them from is not the one planned (it differs, or its variables do)", ErrWriteOnlyLeftOut, left)
	}
	q := *p
	q.Config = c
	return &q, nil
}
