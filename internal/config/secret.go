package config

import "go.yaml.in/yaml/v3"

// Sensitive values in messages. A node substitution made from a
// sensitive variable, wholly or in part, is in p.secret, with every node
// inside it (a map's keys too: Terraform's sensitive map hides its keys).
// Every message that would quote such a node's text says "(sensitive)"
// instead; where the value would become a name Kyku shows in clear (a
// resource's type, its property names, an import's ID), it is refused.

// masked is the text a message shows for a sensitive value.
const masked = "(sensitive)"

// shown is n's text for a message, or "(sensitive)".
func (p *parser) shown(n *yaml.Node) string {
	if p.secret[n] != nil {
		return masked
	}
	return n.Value
}

// hintFor is hint, or nothing when n is sensitive (a "did you mean"
// would give away what it is close to).
func (p *parser) hintFor(n *yaml.Node, hint string) string {
	if p.secret[n] != nil {
		return ""
	}
	return hint
}

// refuseSecret reports (at n, and returns true) a sensitive value where
// Kyku would show it in clear, as Terraform refuses a sensitive import ID
// or for_each: what says where, shown how it would be shown.
func (p *parser) refuseSecret(n *yaml.Node, owner, what, shown string) bool {
	v := p.secret[n]
	if v == nil {
		return false
	}
	p.diags.Add(p.pos(n), "%s: %s cannot use variable %q, which is sensitive (%s): %s; use a value that is not sensitive", owner, what, v.Name, v.sensitiveWhy(), shown)
	return true
}
