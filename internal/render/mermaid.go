package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// Sizes of the picture of a change.
const (
	// PictureCollapseAt: a picture of more nodes is folded in <details>.
	PictureCollapseAt = 12
	// PictureGroupAt: a picture of more nodes shows one node per resource
	// type and action ("Vm × 40") instead of one per resource.
	PictureGroupAt = 40
)

// pictureClasses are the styles of the picture's nodes, by class.
var pictureClasses = []struct{ name, style string }{
	{"create", "fill:#dafbe1,stroke:#1a7f37,color:#1f2328"},
	{"update", "fill:#fff8c5,stroke:#9a6700,color:#1f2328"},
	{"replace", "fill:#fff1e5,stroke:#bc4c00,color:#1f2328"},
	{"destroy", "fill:#ffebe9,stroke:#cf222e,color:#82071e"},
	{"move", "fill:#ddf4ff,stroke:#0969da,color:#1f2328"},
	{"import", "fill:#fbefff,stroke:#8250df,color:#1f2328"},
	{"read", "fill:#ffffff,stroke:#1b7c83,color:#1f2328"},
	{"unchanged", "fill:#f6f8fa,stroke:#d0d7de,color:#8c959f,stroke-dasharray:3 3"},
}

// pictureClass is a change's class in the picture.
func pictureClass(a plan.Action) string {
	switch a {
	case plan.Create:
		return "create"
	case plan.Update:
		return "update"
	case plan.Replace:
		return "replace"
	case plan.Destroy, plan.Forget:
		return "destroy"
	case plan.Move:
		return "move"
	case plan.Import:
		return "import"
	case plan.Read:
		return "read"
	}
	return "unchanged"
}

// pictureNode is one node of the picture: a resource, or a group of them.
type pictureNode struct {
	key   string // resource name, or type+class for a group
	label string
	class string
}

// PlanMermaid is the picture of what p changes, as a Mermaid flowchart:
// every changed resource (create, update, replace, destroy, forget) and
// data source read during apply,
// coloured by its action and marked with the action's symbol, and the
// unchanged resources they depend on, faded; edges go from a resource to
// what it depends on, as in `kyku graph`. Past PictureGroupAt nodes the
// resources are grouped by type and action ("Vm × 40", edges between
// groups). A plan without changes is an empty string.
//
// Names come from pull requests: node IDs are n0, n1, … and labels keep
// only letters, digits, spaces and "_.-/" (anything else becomes "_"), so
// no name can end a label, add a statement (a click handler, a link, a
// style) or close the code block the picture is shown in.
func PlanMermaid(p *plan.Plan) string {
	chart, _, _ := picture(p)
	return chart
}

// picture is PlanMermaid with its number of nodes and whether they are
// groups.
func picture(p *plan.Plan) (chart string, nodes int, grouped bool) {
	byName := map[string]plan.Change{}
	for _, c := range p.Changes {
		if _, seen := byName[c.ResourceID]; !seen || c.Action != plan.NoOp {
			byName[c.ResourceID] = c
		}
	}
	shown := map[string]bool{}
	var names []string
	for _, c := range p.Changes {
		if c.Action != plan.NoOp && !shown[c.ResourceID] {
			shown[c.ResourceID] = true
			names = append(names, c.ResourceID)
		}
	}
	if len(names) == 0 {
		return "", 0, false
	}
	for _, n := range append([]string(nil), names...) {
		for _, d := range byName[n].Dependencies {
			if dc, ok := byName[d]; ok && dc.Action == plan.NoOp && !shown[d] {
				shown[d] = true
				names = append(names, d)
			}
		}
	}
	slices.SortFunc(names, value.CompareNames)
	var edges [][2]string
	for _, n := range names {
		for _, d := range byName[n].Dependencies {
			if shown[d] && d != n {
				edges = append(edges, [2]string{n, d})
			}
		}
	}
	if len(names) > PictureGroupAt {
		chart, n := groupedPicture(names, byName, edges)
		return chart, n, true
	}
	list := make([]pictureNode, len(names))
	for i, n := range names {
		c := byName[n]
		cls := pictureClass(c.Action)
		list[i] = pictureNode{key: n, label: classSymbol(cls) + " " + mermaidLabel(n) + " (" + mermaidLabel(c.Type) + ")", class: cls}
	}
	return flowchart(list, edges), len(list), false
}

// groupedPicture is the picture with one node per type and class.
func groupedPicture(names []string, byName map[string]plan.Change, edges [][2]string) (string, int) {
	groupOf := map[string]string{}
	count := map[string]int{}
	first := map[string]pictureNode{}
	for _, n := range names {
		c := byName[n]
		cls := pictureClass(c.Action)
		g := c.Type + "\x00" + cls
		groupOf[n] = g
		count[g]++
		if _, ok := first[g]; !ok { // destroy and forget share a node
			first[g] = pictureNode{key: g, class: cls}
		}
	}
	var nodes []pictureNode
	for g, nd := range first {
		typ, cls, _ := strings.Cut(g, "\x00")
		nd.label = fmt.Sprintf("%s %s × %d", classSymbol(cls), mermaidLabel(typ), count[g])
		nodes = append(nodes, nd)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].key < nodes[j].key })
	seen := map[[2]string]bool{}
	var gEdges [][2]string
	for _, e := range edges {
		ge := [2]string{groupOf[e[0]], groupOf[e[1]]}
		if ge[0] != ge[1] && !seen[ge] {
			seen[ge] = true
			gEdges = append(gEdges, ge)
		}
	}
	return flowchart(nodes, gEdges), len(nodes)
}

func classSymbol(class string) string {
	switch class {
	case "create":
		return "+"
	case "update":
		return "~"
	case "replace":
		return "±"
	case "destroy":
		return "-"
	case "move":
		return "→"
	case "import":
		return "⇐"
	case "read":
		return "⇠" // not "<=": a label is HTML to Mermaid
	}
	return "✓"
}

// flowchart writes nodes (in order, IDs n0…) and edges (by key, sorted).
func flowchart(nodes []pictureNode, edges [][2]string) string {
	id := map[string]string{}
	var b strings.Builder
	b.WriteString("flowchart BT\n")
	for i, n := range nodes {
		id[n.key] = fmt.Sprintf("n%d", i)
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", id[n.key], n.label)
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i][0] != edges[j][0] {
			return edges[i][0] < edges[j][0]
		}
		return edges[i][1] < edges[j][1]
	})
	for _, e := range edges {
		fmt.Fprintf(&b, "  %s --> %s\n", id[e[0]], id[e[1]])
	}
	for _, c := range pictureClasses {
		var ids []string
		for _, n := range nodes {
			if n.class == c.name {
				ids = append(ids, id[n.key])
			}
		}
		if len(ids) > 0 {
			fmt.Fprintf(&b, "  classDef %s %s\n  class %s %s\n", c.name, c.style, strings.Join(ids, ","), c.name)
		}
	}
	return b.String()
}

// mermaidLabel keeps s safe inside a quoted Mermaid label: letters,
// digits, spaces and "_.-/[]" stay (at most 60 of them; an instance's
// address web[0] reads as such), a double quote becomes "'" (edge['a']),
// anything else is "_". Only a double quote could end the label.
func mermaidLabel(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 60 {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(" _.-/[]", r):
			b.WriteRune(r)
		case r == '"':
			b.WriteByte('\'')
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// pictureHelps reports whether the picture of p's change says more than
// its list of changes: it changes something besides updating in place
// (a create, replace, destroy, move, import, read) and at least two of
// its changed resources depend on one another, so that order and shape
// matter. A plan of updates only, or of changes that touch nothing else
// changing, has none.
func pictureHelps(p *plan.Plan) bool {
	changed := map[string]bool{}
	structural := false
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			changed[c.ResourceID] = true
			structural = structural || c.Action != plan.Update
		}
	}
	if !structural {
		return false
	}
	for _, c := range p.Changes {
		if c.Action == plan.NoOp {
			continue
		}
		for _, d := range c.Dependencies {
			if d != c.ResourceID && changed[d] {
				return true
			}
		}
	}
	return false
}

// pictureSection is the picture as markdown: a ```mermaid block with a
// heading, folded in <details> past PictureCollapseAt nodes. "" when the
// plan changes nothing.
func pictureSection(p *plan.Plan) string {
	chart, nodes, grouped := picture(p)
	if chart == "" {
		return ""
	}
	block := "```mermaid\n" + chart + "```\n"
	if nodes > PictureCollapseAt || grouped {
		what := plural(nodes, "resource")
		if grouped {
			what = plural(nodes, "group") + " of resources by type and action"
		}
		return "<details><summary>Picture of the change (" + what + ")</summary>\n\n" + block + "\n</details>\n\n"
	}
	return "#### Picture of the change\n\n" + block + "\n"
}
