package config

import (
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/value"
)

// appendCanonical writes what json.Marshal writes for
//
//	struct {
//		Provider  ProviderConfig `json:"provider"`
//		Resources []*Resource    `json:"resources"` // without auto-subnets
//		Outputs   []*Output      `json:"outputs"`
//		Moved     []*Moved       `json:"moved,omitempty"`
//		Imports   []*Import      `json:"imports,omitempty"`
//		Forget    []string       `json:"forget,omitempty"`
//		RemovedDestroy []string  `json:"removedDestroy,omitempty"`
//		Providers []*PluginProvider `json:"providers,omitempty"`
//	}
//
// Adding a field to Resource, Output, ProviderConfig, Moved, Import or
// PluginProvider means
// adding it here too: TestHashCoversEveryField fails until then.
//
// Secret values are not in it: a sensitive property's, a sensitive
// output's, a provider configuration's sensitive key's and a setting
// holding a secret are written as masked. The hash is published (in
// plan.json, in the changes digest a PR comment shows), and a digest of a
// short secret could be tested against guesses offline. What it leaves
// out, the variables' values, VariablesHash covers; it stays private.
//
// Once b holds hashChunk bytes or more between two resources, it is handed
// to flush, and writing goes on in what flush returns (Hash hashes it and
// reuses the buffer); the bytes are the same whatever flush does.
func (c *Config) appendCanonical(b []byte, mask *secretMask, flush func([]byte) []byte) ([]byte, error) {
	var err error
	var secrets []string
	if mask.hide {
		secrets = c.SecretValues()
	}
	b = append(b, `{"provider":{"name":`...)
	b = value.AppendString(b, c.Provider.Name)
	if len(c.Provider.Settings) > 0 {
		b = append(b, `,"settings":{`...)
		keys := make([]string, 0, len(c.Provider.Settings))
		for k := range c.Provider.Settings {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = value.AppendString(b, k)
			b = append(b, ':')
			v := c.Provider.Settings[k]
			if mask.hide && mask.masks(holdsSecret(v, secrets)) {
				v = masked
			}
			b = value.AppendString(b, v)
		}
		b = append(b, '}')
	}
	b = append(b, `},"resources":[`...)
	n := 0
	for _, r := range c.Resources {
		if r.AutoFrom != "" {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		if b, err = appendResource(b, r, mask); err != nil {
			return nil, err
		}
		if len(b) >= hashChunk {
			b = flush(b)
		}
	}
	b = append(b, `],"outputs":`...)
	if c.Outputs == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, o := range c.Outputs {
			if i > 0 {
				b = append(b, ',')
			}
			if o == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, `{"name":`...)
			b = value.AppendString(b, o.Name)
			b = append(b, `,"value":`...)
			v := o.Value
			if mask.hide && mask.masks(o.Sensitive) {
				v = masked
			}
			if b, err = value.AppendJSON(b, v); err != nil {
				return nil, err
			}
			if o.Sensitive {
				b = append(b, `,"sensitive":true`...)
			}
			if o.Description != "" {
				b = append(b, `,"description":`...)
				b = value.AppendString(b, o.Description)
			}
			if b, err = appendConditions(b, o.Conditions); err != nil {
				return nil, err
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if b, err = appendConditionsAs(b, "moduleOutputConditions", c.ModuleOutputConditions); err != nil {
		return nil, err
	}
	if len(c.Moved) > 0 {
		b = append(b, `,"moved":[`...)
		for i, m := range c.Moved {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"from":`...)
			b = value.AppendString(b, m.From)
			b = append(b, `,"to":`...)
			b = value.AppendString(b, m.To)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(c.Imports) > 0 {
		b = append(b, `,"imports":[`...)
		for i, im := range c.Imports {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"to":`...)
			b = value.AppendString(b, im.To)
			b = append(b, `,"id":`...)
			b = value.AppendString(b, im.ID)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(c.Forget) > 0 {
		b = appendNames(b, "forget", c.Forget)
	}
	if len(c.RemovedDestroy) > 0 {
		b = appendNames(b, "removedDestroy", c.RemovedDestroy)
	}
	if len(c.Providers) > 0 {
		b = append(b, `,"providers":[`...)
		for i, pp := range c.Providers {
			if i > 0 {
				b = append(b, ',')
			}
			if pp == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, `{"name":`...)
			b = value.AppendString(b, pp.Name)
			b = append(b, `,"source":`...)
			b = value.AppendString(b, pp.Source)
			if pp.Version != "" {
				b = append(b, `,"version":`...)
				b = value.AppendString(b, pp.Version)
			}
			if len(pp.Config) > 0 {
				b = append(b, `,"config":`...)
				if b, err = value.AppendJSON(b, hide(pp.Config, func(k string) bool { return mask.hide && mask.masks(slices.Contains(pp.Sensitive, k)) })); err != nil {
					return nil, err
				}
			}
			b = appendNames(b, "sensitive", pp.Sensitive)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// secretMask says whether a canonical form masks secret values (hide),
// and records whether it masked any (masked): when it masked none, the
// form is byte for byte the one with secrets in.
type secretMask struct{ hide, masked bool }

// masks records that a value is masked when secret is set, and returns
// secret.
func (m *secretMask) masks(secret bool) bool {
	m.masked = m.masked || secret
	return secret
}

func appendResource(b []byte, r *Resource, mask *secretMask) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = value.AppendString(b, r.Name)
	b = append(b, `,"type":`...)
	b = value.AppendString(b, r.Type)
	b = append(b, `,"properties":`...)
	var err error
	if r.Properties == nil {
		b = append(b, "null"...)
	} else if b, err = value.AppendJSON(b, hide(r.Properties, func(k string) bool { return mask.hide && mask.masks(r.SensitiveProp(k)) })); err != nil {
		return nil, err
	}
	if r.Protect {
		b = append(b, `,"protect":true`...)
	}
	if r.CreateBeforeDestroy {
		b = append(b, `,"createBeforeDestroy":true`...)
	}
	if r.SkipDestroy {
		b = append(b, `,"skipDestroy":true`...)
	}
	b = appendNames(b, "ignoreChanges", r.IgnoreChanges)
	b = appendNames(b, "dependsOn", r.DependsOn)
	if r.AutoFrom != "" {
		b = append(b, `,"autoFrom":`...)
		b = value.AppendString(b, r.AutoFrom)
	}
	b = appendNames(b, "sensitive", r.Sensitive)
	if len(r.SensitiveWithin) > 0 {
		b = append(b, `,"sensitiveWithin":{`...)
		for i, name := range slices.Sorted(maps.Keys(r.SensitiveWithin)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = value.AppendString(b, name)
			b = append(b, ':', '[')
			for j, p := range r.SensitiveWithin[name] {
				if j > 0 {
					b = append(b, ',')
				}
				b = value.AppendString(b, p)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if r.Provider != "" {
		b = append(b, `,"provider":`...)
		b = value.AppendString(b, r.Provider)
	}
	if r.Data {
		b = append(b, `,"data":true`...)
	}
	if r.CheckNested {
		b = append(b, `,"checkNested":true`...)
	}
	if len(r.DynamicTypes) > 0 {
		b = append(b, `,"dynamicTypes":`...)
		var err error
		if b, err = value.AppendJSON(b, r.DynamicTypes); err != nil {
			return nil, err
		}
	}
	if len(r.ReplaceTriggeredBy) > 0 {
		b = append(b, `,"replaceTriggeredBy":[`...)
		for i, t := range r.ReplaceTriggeredBy {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"resource":`...)
			b = value.AppendString(b, t.Resource)
			if t.Attr != "" {
				b = append(b, `,"attr":`...)
				b = value.AppendString(b, t.Attr)
			}
			if t.Path != "" {
				b = append(b, `,"path":`...)
				b = value.AppendString(b, t.Path)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if b, err = appendConditions(b, r.Conditions); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendConditions writes `,"conditions":[…]`, nothing for none.
func appendConditions(b []byte, conds []*Condition) ([]byte, error) {
	return appendConditionsAs(b, "conditions", conds)
}

// appendConditionsAs writes `,"key":[…]`, nothing for none.
func appendConditionsAs(b []byte, key string, conds []*Condition) ([]byte, error) {
	if len(conds) == 0 {
		return b, nil
	}
	b = append(b, `,"`+key+`":[`...)
	for i, c := range conds {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if c.Post {
			b = append(b, `"post":true,`...)
		}
		b = append(b, `"check":`...)
		var err error
		if b, err = value.AppendJSON(b, c.Check); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// hide is m with the values of the keys secret says are secret replaced by
// masked (m itself when there are none).
func hide(m map[string]any, secret func(string) bool) map[string]any {
	var out map[string]any
	for k := range m {
		if secret(k) {
			if out == nil {
				out = maps.Clone(m)
			}
			out[k] = masked
		}
	}
	if out == nil {
		return m
	}
	return out
}

// holdsSecret reports whether s holds one of secrets.
func holdsSecret(s string, secrets []string) bool {
	for _, x := range secrets {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// appendNames writes an omitempty list of strings.
func appendNames(b []byte, key string, names []string) []byte {
	if len(names) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = value.AppendString(b, n)
	}
	return append(b, ']')
}
