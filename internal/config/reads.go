package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/hcldiag"
	"github.com/kyku/action/internal/value"
)

// What a template reads of resources is taken from its parsed HCL
// expression, once, where it is written: a template that reads them
// plainly is a value.Template (its parts: text and references), one
// that computes with them an Expr; either way each reference keeps
// where it is written, for the checks' messages.

// refAt is one resource reference a template makes and where.
type refAt struct {
	ref value.Ref
	rng hcl.Range
}

// reads is what the template a node stands for reads of resources.
type reads struct {
	tmpl *value.Template // set when it reads them plainly
	at   []refAt
}

// recordReads notes what node out (made of template t) reads: tp when
// it reads resources plainly (nil for an Expr), at the positions of t's
// chains.
func (t *tmpl) recordReads(out *yaml.Node, tp *value.Template, at []refAt) {
	if t.p.reads == nil {
		t.p.reads = map[*yaml.Node]*reads{}
	}
	t.p.reads[out] = &reads{tmpl: tp, at: at}
}

// chainAt is the reference r that chain c makes, where c is written.
func chainAt(c *chain, r value.Ref) refAt {
	return refAt{ref: r, rng: c.node.Range()}
}

// textValue is the value string s of node n gives a property or an
// output: the Template the node stands for, s read in Kyku's reference
// form when it holds references (a variable's value may: "${main-vpc}"),
// else s.
func (p *parser) textValue(n *yaml.Node, s string) any {
	if r := p.reads[n]; r != nil && r.tmpl != nil {
		return r.tmpl
	}
	if tp, ok := value.ParseTemplate(s); ok {
		return tp
	}
	return s
}

// refPos is where reference r of pending ref is written, with its
// source line; the string's position when the template did not say.
func (p *parser) refPos(ref pendingRef, r value.Ref) (diag.Pos, string) {
	for _, a := range ref.at {
		if a.ref == r {
			pos := diag.Pos{File: a.rng.Filename, Line: a.rng.Start.Line, Col: a.rng.Start.Column}
			return pos, hcldiag.Snippet(p.sources[a.rng.Filename], a.rng)
		}
	}
	return ref.pos, ""
}

// addAt reports a problem with reference r of ref where r is written.
func (p *parser) addAt(ref pendingRef, r value.Ref, format string, args ...any) {
	pos, src := p.refPos(ref, r)
	p.diags = append(p.diags, diag.Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...), Source: src})
}

// readsAt is where the references of the template node n stands for
// are written (none when n is no such node).
func (p *parser) readsAt(n *yaml.Node) []refAt {
	if r := p.reads[n]; r != nil {
		return r.at
	}
	return nil
}
