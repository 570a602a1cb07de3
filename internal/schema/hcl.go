package schema

import (
	"strings"
	"unicode"
)

// HCLPrefix starts the names of Kyku's types in HCL, where they are the
// types of a provider of their own, "kyku": kyku_vpc, kyku_ssh_key.
const HCLPrefix = "kyku_"

// HCLName is a camel-case name in snake case, as HCL writes Kyku's types,
// properties and outputs: SecurityGroup → security_group, publicIp →
// public_ip.
func HCLName(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// HCLType is the HCL name of t: kyku_security_group for SecurityGroup.
func (t *Type) HCLType() string { return HCLPrefix + HCLName(t.Name) }

// ByHCLType returns the type an HCL type names (kyku_vpc: Vpc).
func ByHCLType(typ string) (*Type, bool) {
	rest, ok := strings.CutPrefix(typ, HCLPrefix)
	if !ok {
		return nil, false
	}
	for _, name := range Names() {
		if HCLName(name) == rest {
			return Lookup(name)
		}
	}
	return nil, false
}
