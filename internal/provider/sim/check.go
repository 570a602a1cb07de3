package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// lookupType returns the schema of a Kyku type the sim knows.
func lookupType(typ string) (*schema.Type, error) {
	t, ok := schema.Lookup(typ)
	if !ok {
		return nil, fmt.Errorf("sim: unknown resource type %q (the simulator knows %s)", typ, strings.Join(schema.Names(), ", "))
	}
	return t, nil
}

// validate checks r's properties the way a cloud API checks a request:
// known properties of the right kind, required ones present, enums
// respected, and every reference the ID of an existing object of its type
// (the seed's rule: never pass Kyku names where the cloud wants an ID).
func (p *Provider) validate(t *schema.Type, r provider.Resource) error {
	if err := checkCloudName(r.CloudName); err != nil {
		return fmt.Errorf("sim: %s %q: %w", r.Type, r.Name, err)
	}
	names := make([]string, 0, len(r.Properties))
	for k := range r.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		prop, ok := t.Props[k]
		if !ok {
			return fmt.Errorf("sim: %s %q: unknown property %q (want one of %s)", r.Type, r.Name, k, strings.Join(t.PropNames(), ", "))
		}
		if err := p.checkValue(prop, r.Properties[k]); err != nil {
			return fmt.Errorf("sim: %s %q: property %s%w", r.Type, r.Name, k, err)
		}
	}
	for _, k := range t.SortedProps() {
		if t.Props[k].Required && r.Properties[k] == nil {
			return fmt.Errorf("sim: %s %q: property %s is required", r.Type, r.Name, k)
		}
	}
	if f := checkValues(r.Type, r.Properties); len(f) > 0 {
		return fmt.Errorf("sim: %s %q: property %s: %s", r.Type, r.Name, f[0].path, f[0].reason)
	}
	return p.checkLinks(r)
}

// checkLinks checks what r's values mean for the objects it references:
// a subnet's range inside its network's, a Vm's subnet in the Vm's
// network.
func (p *Provider) checkLinks(r provider.Resource) error {
	switch r.Type {
	case "Subnet":
		id, _ := r.Properties["network"].(string)
		vpc, err := p.store.read("Vpc", id)
		if err != nil {
			return nil // refused as a reference already
		}
		if reason := inNetwork(r.Properties["cidr"], vpc.Properties["cidr"]); reason != "" {
			return fmt.Errorf("sim: %s %q: property cidr: %s", r.Type, r.Name, reason)
		}
	case "Vm":
		sid, _ := r.Properties["subnet"].(string)
		net, _ := r.Properties["network"].(string)
		if sid == "" || net == "" {
			return nil
		}
		sub, err := p.store.read("Subnet", sid)
		if err != nil {
			return nil
		}
		if have, _ := sub.Properties["network"].(string); have != net {
			return fmt.Errorf("sim: %s %q: property subnet: subnet %s is in network %s, not in the Vm's network %s", r.Type, r.Name, sid, have, net)
		}
	}
	return nil
}

// checkOverlap refuses a new subnet whose range overlaps a subnet of the
// same network. Called with the Subnet index locked, so that two creates
// cannot both pass.
func (p *Provider) checkOverlap(r provider.Resource) error {
	if r.Type != "Subnet" {
		return nil
	}
	net, _ := r.Properties["network"].(string)
	others, err := Bulk{p}.scan("Subnet", "")
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.CloudName == r.CloudName || o.Properties["network"] != net {
			continue
		}
		if reason := overlap(r.Properties["cidr"], o.Properties["cidr"]); reason != "" {
			return fmt.Errorf("sim: %s %q: property cidr: %s of subnet %s", r.Type, r.Name, reason, o.ID)
		}
	}
	return nil
}

// checkValue checks v against prop. Errors start with the path below the
// property (": …" or "[1].port: …") so the caller can prefix its name.
func (p *Provider) checkValue(prop *schema.Prop, v any) error {
	if v == nil {
		return nil
	}
	wrong := func() error {
		return fmt.Errorf(": want %s, got %s", prop.Kind, describe(v))
	}
	switch prop.Kind {
	case schema.String:
		s, ok := v.(string)
		if !ok {
			return wrong()
		}
		if len(prop.Enum) > 0 && !slices.Contains(prop.Enum, s) {
			return fmt.Errorf(": %q is not one of %s", s, strings.Join(prop.Enum, ", "))
		}
	case schema.Int:
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			return wrong()
		}
	case schema.Bool:
		if _, ok := v.(bool); !ok {
			return wrong()
		}
	case schema.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return wrong()
		}
		for k, e := range m {
			if _, ok := e.(string); !ok {
				return fmt.Errorf(".%s: want string, got %s", k, describe(e))
			}
		}
	case schema.List:
		l, ok := v.([]any)
		if !ok {
			return wrong()
		}
		for i, e := range l {
			if err := p.checkValue(prop.Elem, e); err != nil {
				return fmt.Errorf("[%d]%w", i, err)
			}
		}
	case schema.Object:
		m, ok := v.(map[string]any)
		if !ok {
			return wrong()
		}
		for k, e := range m {
			f, ok := prop.Fields[k]
			if !ok {
				return fmt.Errorf(".%s: unknown field", k)
			}
			if err := p.checkValue(f, e); err != nil {
				return fmt.Errorf(".%s%w", k, err)
			}
		}
		for k, f := range prop.Fields {
			if f.Required && m[k] == nil {
				return fmt.Errorf(".%s: required", k)
			}
		}
	case schema.Ref:
		id, ok := v.(string)
		if !ok || !validID(id) || !p.store.exists(prop.RefType, id) {
			return fmt.Errorf(": %s is not the ID of an existing %s", describe(v), prop.RefType)
		}
	}
	return nil
}

// describe renders a value for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case float64, bool:
		return fmt.Sprint(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}

// fixed lists, per type, the properties the simulated API cannot change
// in place: what an Update refuses. (What planning promises is rules, in
// rules.go.)
var fixed = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"Vpc":           {"cidr"},
		"Subnet":        {"cidr", "network", "zone"},
		"SecurityGroup": {"network"},
		"SshKey":        {"publicKey"},
		"Vm":            {"image", "userData"},
		"Database":      {"engine"},
	}
})

// checkFixed refuses an update that changes what cannot change in place.
func checkFixed(typ, name string, old, new map[string]any) error {
	for _, k := range fixed()[typ] {
		if !value.Equal(old[k], new[k]) {
			return fmt.Errorf("sim: %s %q: property %s cannot change in place; replace the resource", typ, name, k)
		}
	}
	return nil
}
