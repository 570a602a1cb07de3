package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/value"
	"go.yaml.in/yaml/v3"
)

var (
	movedKeys  = []string{"from", "to"}
	importKeys = []string{"id", "to"}
)

// movedAndImports reads the moved and import entries once every resource
// instance is known.
func (p *parser) movedAndImports() {
	var cands []*Moved
	nodes := map[*Moved]*yaml.Node{} // the "to" node, for positions
	files := map[*Moved]string{}
	for _, raw := range p.rawMoved {
		p.file = raw.file
		for i, e := range p.entries(raw.val, "moved", "list of { from: NAME, to: NAME }") {
			path := "moved[" + strconv.Itoa(i) + "]"
			got := p.entryKeys(e, path, movedKeys, "moved entry")
			if got == nil {
				continue
			}
			from, ok1 := p.address(got["from"], path+".from")
			to, ok2 := p.address(got["to"], path+".to")
			if !ok1 || !ok2 {
				continue
			}
			m := &Moved{From: from, To: to, Pos: p.pos(e)}
			cands = append(cands, m)
			nodes[m], files[m] = got["to"], raw.file
		}
	}
	firstFrom := map[string]*Moved{}
	for _, m := range cands {
		if firstFrom[m.From] == nil {
			firstFrom[m.From] = m
		}
	}
	chained := map[*Moved]bool{}
	for _, m := range cands {
		if next := firstFrom[m.To]; next != nil && next != m && m.From != m.To {
			p.diags.Add(next.Pos, "moved: a chain %s → %s → %s; move %s to %s directly in one entry", m.From, m.To, next.To, value.QuoteName(m.From), value.QuoteName(next.To))
			chained[m], chained[next] = true, true
		}
	}
	froms := map[string]*Moved{}
	tos := map[string]*Moved{}
	for _, m := range cands {
		p.file = files[m]
		from, to := m.From, m.To
		switch {
		case chained[m]:
			continue
		case from == to:
			p.diags.Add(m.Pos, "moved: from and to are both %s", value.QuoteName(from))
			continue
		case froms[from] != nil:
			p.diags.Add(m.Pos, "moved: %s is moved twice (first at %s)", value.QuoteName(from), froms[from].Pos)
			continue
		case tos[to] != nil:
			p.diags.Add(m.Pos, "moved: %s is the destination of two moves (first at %s, from %s); a clash", value.QuoteName(to), tos[to].Pos, value.QuoteName(tos[to].From))
			continue
		}
		if r := p.resources[from]; r != nil {
			p.diags.Add(m.Pos, "moved: %s is still declared (at %s); a moved entry's from must be an old name: remove the resource or the entry", value.QuoteName(from), r.Pos)
			continue
		}
		if !p.checkDestination("moved", to, nodes[m]) {
			continue
		}
		froms[from], tos[to] = m, m
		p.cfg.Moved = append(p.cfg.Moved, m)
	}
	imports := map[string]*Import{}
	for _, raw := range p.rawImports {
		p.file = raw.file
		for i, e := range p.entries(raw.val, "import", "list of { to: NAME, id: PROVIDER_ID }") {
			path := "import[" + strconv.Itoa(i) + "]"
			got := p.entryKeys(e, path, importKeys, "import entry")
			if got == nil {
				continue
			}
			to, ok := p.address(got["to"], path+".to")
			p.scope = &scope{kind: exprScope, what: "import id", owner: "import " + value.QuoteName(to)}
			id, idOK, none := p.providerID(got["id"], path+".id")
			p.scope = nil
			if !ok || !idOK || none {
				continue
			}
			im := &Import{To: to, ID: id, Pos: p.pos(e)}
			switch {
			case imports[to] != nil:
				p.diags.Add(im.Pos, "import: %s is imported twice (first at %s)", value.QuoteName(to), imports[to].Pos)
				continue
			case tos[to] != nil:
				p.diags.Add(im.Pos, "import: %s is also the destination of a move (at %s); a clash", value.QuoteName(to), tos[to].Pos)
				continue
			}
			if !p.checkDestination("import", to, got["to"]) {
				continue
			}
			if t := p.templates[value.BaseName(to)]; p.resources[to] == nil && !t.bad {
				p.diags.Add(p.pos(got["to"]), "import: %s is not in the configuration of %s (%s)", value.QuoteName(to), envLabel(p.inputs.Environment), p.templates[value.BaseName(to)].describe())
				continue
			}
			imports[to] = im
			p.cfg.Imports = append(p.cfg.Imports, im)
		}
	}
	p.file = ""
}

func envLabel(env string) string {
	if env == "" {
		return "the default environment"
	}
	return "environment " + strconv.Quote(env)
}

// entries checks that n is a list of mappings (or empty).
func (p *parser) entries(n *yaml.Node, path, expected string) []*yaml.Node {
	if d := p.deref(n, path); d == nil || isNull(d) {
		return nil
	}
	elems, _ := p.sequence(n, path, expected)
	return elems
}

// entryKeys reads a mapping whose keys are exactly want, reporting
// unknown and missing keys (nil when the entry is unusable).
func (p *parser) entryKeys(e *yaml.Node, path string, want []string, what string) map[string]*yaml.Node {
	pairs, ok := p.mapping(e, path, "mapping with "+strings.Join(want, " and "))
	if !ok {
		return nil
	}
	got := map[string]*yaml.Node{}
	for _, kv := range pairs {
		if !slices.Contains(want, kv.key.Value) {
			p.unknownKey(kv.key, path, want)
			continue
		}
		got[kv.key.Value] = kv.val
	}
	for _, k := range want {
		if got[k] == nil {
			p.diags.Add(p.pos(e), "%s: %s needs %q", path, what, k)
			return nil
		}
	}
	return got
}

// address reads a resource address (web, web[0], edge["a"]) in canonical
// form.
func (p *parser) address(n *yaml.Node, path string) (string, bool) {
	s, ok := p.str(n, path)
	if !ok {
		return "", false
	}
	a, ok := value.ParseAddress(s)
	if !ok || a.Kind == value.AllIndex {
		p.diags.Add(p.pos(n), "%s: %q is not a resource address (write name, name[0] or name[\"key\"])", path, s)
		return "", false
	}
	return a.String(), true
}

// providerID reads an import's ID: text or a whole number (Hetzner's and
// the simulator's IDs are numbers); variables are substituted. none is true
// when a variable made it empty: nothing to import in this environment
// (an empty ID written out is an error).
func (p *parser) providerID(n *yaml.Node, path string) (id string, ok, none bool) {
	d := p.deref(n, path)
	if d == nil || p.refuseSecret(d, p.scope.owner, "the import ID", "plans and state show it in clear") {
		return "", false, false
	}
	if d != n && isString(d) && d.Value == "" {
		return "", true, true
	}
	switch {
	case isString(d):
		id = d.Value
	case d.Kind == yaml.ScalarNode && d.ShortTag() == "!!int":
		id = d.Value
	default:
		p.typeErr(d, path, "provider ID (text)")
		return "", false, false
	}
	if strings.TrimSpace(id) == "" {
		p.diags.Add(p.pos(d), "%s: the provider ID is empty", path)
		return "", false, false
	}
	if strings.Contains(id, "${") {
		p.diags.Add(p.pos(d), "%s: the provider ID %s holds a reference; give the ID itself", path, p.quoted(d, id))
		return "", false, false
	}
	return id, true, false
}

// checkDestination reports a destination whose resource is not declared,
// or whose index does not fit it (web["a"] of a resource with count).
func (p *parser) checkDestination(what, to string, n *yaml.Node) bool {
	a, _ := value.ParseAddress(to)
	t := p.templates[a.Name]
	if t == nil {
		p.diags.Add(p.pos(n), "%s: %s: no resource %q is declared%s", what, value.QuoteName(to), a.Name, didYouMean(a.Name, p.templateNames()))
		return false
	}
	var msg string
	switch {
	case t.kind == plainScope && a.Kind != value.NoIndex:
		msg = fmt.Sprintf("%q has no count or forEach: write %q", a.Name, a.Name)
	case t.kind == countScope && a.Kind != value.IntIndex:
		msg = fmt.Sprintf("%q has count: write %q", a.Name, value.InstanceName(a.Name, 0))
	case t.kind == eachScope && a.Kind != value.KeyIndex:
		msg = fmt.Sprintf("%q has forEach: write %s", a.Name, strconv.Quote(value.KeyName(a.Name, "key")))
	}
	if msg != "" {
		p.diags.Add(p.pos(n), "%s: %s: %s", what, value.QuoteName(to), msg)
		return false
	}
	return true
}
