// Package schema owns Kyku's resource types: their property names and kinds,
// which are required, defaulted, immutable (a change means replace),
// references, or sensitive, and the outputs each type exposes. The types are
// Kyku's own and provider-agnostic; providers map them onto a cloud. The
// registry is built once at package init from literals and is read-only.
package schema

import (
	"sort"
	"sync"
)

// Kind is the kind of a property value.
type Kind int

const (
	String Kind = iota
	Int
	Bool
	List   // of Elem
	Map    // string → string (tags)
	Object // fixed Fields
	Ref    // reference to a resource of RefType; its value is the provider ID
)

func (k Kind) String() string {
	switch k {
	case String:
		return "string"
	case Int:
		return "integer"
	case Bool:
		return "boolean"
	case List:
		return "list"
	case Map:
		return "map of strings"
	case Object:
		return "object"
	case Ref:
		return "reference"
	}
	return "unknown"
}

// Prop describes one property.
type Prop struct {
	Kind      Kind
	Elem      *Prop            // List element
	Fields    map[string]*Prop // Object fields
	RefType   string           // Ref target type
	Required  bool
	Immutable bool // a change forces replace
	Sensitive bool // never rendered in clear
	Set       bool // List whose order does not matter (rules, members)
	Default   any  // canonical value (see package value)
	Enum      []string
}

// Type describes one resource type.
type Type struct {
	Name    string
	Props   map[string]*Prop
	Outputs []string // always includes "id"
	// Logical types exist only in Kyku (e.g. TargetGroup on the sim): no
	// idempotent-create lookup is needed.
	Logical bool

	sorted []string // the property names, sorted (types of this package)
}

// PropNames returns the property names, sorted.
func (t *Type) PropNames() []string {
	return append([]string(nil), t.SortedProps()...)
}

// SortedProps returns the property names, sorted, without copying them:
// the caller must not modify the slice. Planning asks for them per resource.
func (t *Type) SortedProps() []string {
	if t.sorted != nil {
		return t.sorted
	}
	return sortedNames(t.Props)
}

func sortedNames(props map[string]*Prop) []string {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// HasOutput reports whether t exposes output name.
func (t *Type) HasOutput(name string) bool {
	for _, o := range t.Outputs {
		if o == name {
			return true
		}
	}
	return false
}

// Sensitive reports whether the top-level property name is sensitive.
func (t *Type) Sensitive(name string) bool {
	p := t.Props[name]
	return p != nil && p.Sensitive
}

// Immutable reports whether the top-level property name forces replace.
func (t *Type) Immutable(name string) bool {
	p := t.Props[name]
	return p != nil && p.Immutable
}

func str() *Prop               { return &Prop{Kind: String} }
func integer() *Prop           { return &Prop{Kind: Int} }
func boolean() *Prop           { return &Prop{Kind: Bool} }
func ref(t string) *Prop       { return &Prop{Kind: Ref, RefType: t} }
func set(e *Prop) *Prop        { return &Prop{Kind: List, Elem: e, Set: true} }
func tags() *Prop              { return &Prop{Kind: Map} }
func req(p *Prop) *Prop        { p.Required = true; return p }
func imm(p *Prop) *Prop        { p.Immutable = true; return p }
func def(p *Prop, v any) *Prop { p.Default = v; return p }

func rule() *Prop {
	return &Prop{Kind: Object, Fields: map[string]*Prop{
		"protocol": def(&Prop{Kind: String, Enum: []string{"tcp", "udp", "icmp", "all"}}, "tcp"),
		"port":     integer(),
		"cidr":     req(str()),
	}}
}

var types = sync.OnceValue(func() map[string]*Type {
	return finish(map[string]*Type{
		"Vpc": {Props: map[string]*Prop{
			"cidr":                req(imm(str())),
			"distributeAcrossAzs": def(integer(), float64(0)),
		}},
		"Subnet": {Props: map[string]*Prop{
			"network": req(imm(ref("Vpc"))),
			"cidr":    req(imm(str())),
			"zone":    req(imm(str())),
			"public":  def(boolean(), false),
		}},
		"SecurityGroup": {Props: map[string]*Prop{
			"network": req(imm(ref("Vpc"))),
			"ingress": set(rule()),
			"egress":  set(rule()),
		}},
		"SshKey": {Props: map[string]*Prop{
			"publicKey": req(imm(str())),
		}},
		"Vm": {Props: map[string]*Prop{
			"network":        ref("Vpc"),
			"subnet":         ref("Subnet"),
			"securityGroups": set(ref("SecurityGroup")),
			"sshKeys":        set(ref("SshKey")),
			"size":           def(str(), "small"),
			"image":          req(imm(str())),
			"userData":       {Kind: String, Immutable: true, Sensitive: true},
		}, Outputs: []string{"publicIp", "privateIp"}},
		"Database": {Props: map[string]*Prop{
			"network":   ref("Vpc"),
			"engine":    req(imm(&Prop{Kind: String, Enum: []string{"postgres", "mysql", "mariadb"}})),
			"version":   str(),
			"size":      def(str(), "small"),
			"storageGb": def(integer(), float64(20)),
			// securityGroups: who may reach the database (AWS: its VPC
			// security groups; without them, the VPC's default group).
			"securityGroups": set(ref("SecurityGroup")),
		}, Outputs: []string{"endpoint"}},
		"TargetGroup": {Props: map[string]*Prop{
			"port":     def(integer(), float64(80)),
			"protocol": def(&Prop{Kind: String, Enum: []string{"http", "https", "tcp"}}, "http"),
			"targets":  set(ref("Vm")),
		}, Logical: true},
		"LoadBalancer": {Props: map[string]*Prop{
			"network":     ref("Vpc"),
			"port":        def(integer(), float64(80)),
			"targetGroup": ref("TargetGroup"),
			// securityGroups: who may reach the load balancer.
			"securityGroups": set(ref("SecurityGroup")),
			// certificateArn: the TLS certificate of an HTTPS listener (on
			// AWS an ACM certificate ARN); without it the listener is plain.
			"certificateArn": str(),
		}, Outputs: []string{"endpoint"}},
	})
})

// finish fills in what every type has: its name, tags and the id output.
func finish(ts map[string]*Type) map[string]*Type {
	for name, t := range ts {
		t.Name = name
		t.Props["tags"] = tags()
		t.Outputs = append([]string{"id"}, t.Outputs...)
		t.sorted = sortedNames(t.Props)
	}
	return ts
}

// Lookup returns the type called name.
func Lookup(name string) (*Type, bool) {
	t, ok := types()[name]
	return t, ok
}

// Names returns every type name, sorted.
func Names() []string {
	names := make([]string, 0, len(types()))
	for n := range types() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
