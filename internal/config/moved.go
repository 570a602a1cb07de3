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

// Whole reports whether m moves a whole resource, as OpenTofu's moved
// block of two resource addresses does: from and to have no index, and
// every instance state holds of from (from itself, from[0], from["k"])
// moves to to's instance of the same key.
func (m *Moved) Whole() bool {
	return !strings.Contains(m.From, "[") && !strings.Contains(m.To, "[")
}

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
	chained := p.movedChains(cands)
	var taken movedEnds
	for _, m := range cands {
		p.file = files[m]
		from, to := m.From, m.To
		switch {
		case chained[m]:
			continue
		case from == to:
			p.diags.Add(m.Pos, "moved: from and to are both %s", value.QuoteName(from))
			continue
		case taken.from(from, m.Whole()) != nil:
			first := taken.from(from, m.Whole())
			if first.From == from {
				p.diags.Add(m.Pos, "moved: %s is moved twice (first at %s)", value.QuoteName(from), first.Pos)
			} else {
				p.diags.Add(m.Pos, "moved: %s and %s overlap: a whole resource and an instance of it are moved by two entries (first at %s); move each instance in an entry of its own", value.QuoteName(from), value.QuoteName(first.From), first.Pos)
			}
			continue
		case taken.to(to, m.Whole()) != nil:
			first := taken.to(to, m.Whole())
			if first.To == to {
				p.diags.Add(m.Pos, "moved: %s is the destination of two moves (first at %s, from %s); a clash", value.QuoteName(to), first.Pos, value.QuoteName(first.From))
			} else {
				p.diags.Add(m.Pos, "moved: %s and %s overlap: two entries move objects there (first at %s, from %s); a clash", value.QuoteName(to), value.QuoteName(first.To), first.Pos, value.QuoteName(first.From))
			}
			continue
		}
		if at, still := p.declaredAt(from, m.Whole()); still {
			p.diags.Add(m.Pos, "moved: %s is still declared%s; a moved entry's from must be an old name: remove the resource or the entry", value.QuoteName(from), at)
			continue
		}
		if m.Whole() {
			if p.templates[to] == nil {
				p.diags.Add(p.pos(nodes[m]), "moved: %s: no resource %q is declared%s", value.QuoteName(to), to, didYouMean(to, p.templateNames()))
				continue
			}
		} else if !p.checkDestination("moved", to, nodes[m]) {
			continue
		}
		taken.add(m)
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
			case taken.to(to, false) != nil:
				p.diags.Add(im.Pos, "import: %s is also the destination of a move (at %s); a clash", value.QuoteName(to), taken.to(to, false).Pos)
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

// declaredAt reports whether the configuration declares from, an
// instance or (whole) a resource of any count, and where (" (at …)").
func (p *parser) declaredAt(from string, whole bool) (string, bool) {
	if r := p.resources[from]; r != nil {
		return " (at " + r.Pos.String() + ")", true
	}
	t := p.templates[from]
	if !whole || t == nil {
		return "", false
	}
	for _, n := range t.instances() {
		if r := p.resources[n]; r != nil {
			return " (at " + r.Pos.String() + ")", true
		}
	}
	return "", true
}

// movedChains finds the entries whose destination another entry moves
// on (a → b, b → c; or through a whole resource: a → b, b[0] → c[0]),
// reports each chain and returns both ends of every one.
func (p *parser) movedChains(cands []*Moved) map[*Moved]bool {
	var froms movedEnds
	for _, m := range cands {
		if froms.from(m.From, m.Whole()) == nil {
			froms.add(m)
		}
	}
	chained := map[*Moved]bool{}
	for _, m := range cands {
		next := froms.from(m.To, m.Whole())
		if next == nil || next == m || m.From == m.To {
			continue
		}
		if next.From == m.To {
			p.diags.Add(next.Pos, "moved: a chain %s → %s → %s; move %s to %s directly in one entry", m.From, m.To, next.To, value.QuoteName(m.From), value.QuoteName(next.To))
		} else {
			p.diags.Add(next.Pos, "moved: a chain %s → %s, then %s → %s; move each object directly to its last name", m.From, m.To, next.From, next.To)
		}
		chained[m], chained[next] = true, true
	}
	return chained
}

// movedEnds indexes moved entries by their from and to: exactly, and, for
// whole-resource moves, by resource, so that a whole move and a move of
// one of its instances are found to overlap.
type movedEnds struct {
	froms, tos           map[string]*Moved // by address
	wholeFroms, wholeTos map[string]*Moved // whole moves, by resource
	instFroms, instTos   map[string]*Moved // moves of an instance, by its resource
}

func (e *movedEnds) add(m *Moved) {
	if e.froms == nil {
		e.froms, e.tos = map[string]*Moved{}, map[string]*Moved{}
		e.wholeFroms, e.wholeTos = map[string]*Moved{}, map[string]*Moved{}
		e.instFroms, e.instTos = map[string]*Moved{}, map[string]*Moved{}
	}
	e.froms[m.From], e.tos[m.To] = m, m
	if m.Whole() {
		e.wholeFroms[m.From], e.wholeTos[m.To] = m, m
		return
	}
	if _, ok := e.instFroms[value.BaseName(m.From)]; !ok {
		e.instFroms[value.BaseName(m.From)] = m
	}
	if _, ok := e.instTos[value.BaseName(m.To)]; !ok {
		e.instTos[value.BaseName(m.To)] = m
	}
}

// from is the first entry added whose from takes in addr (all of
// resource addr: whole).
func (e *movedEnds) from(addr string, whole bool) *Moved {
	return overlap(addr, whole, e.froms, e.wholeFroms, e.instFroms)
}

// to is the first entry added whose to takes in addr (all of resource
// addr: whole).
func (e *movedEnds) to(addr string, whole bool) *Moved {
	return overlap(addr, whole, e.tos, e.wholeTos, e.instTos)
}

func overlap(addr string, whole bool, exact, wholes, insts map[string]*Moved) *Moved {
	if m := exact[addr]; m != nil {
		return m
	}
	if whole {
		return insts[addr]
	}
	return wholes[value.BaseName(addr)]
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
