package engine_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
)

const refsConfig = `provider: sim
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  sg-a:
    type: SecurityGroup
    properties: { network: "${net}" }
  sg-b:
    type: SecurityGroup
    properties: { network: "${net}" }
  web:
    type: Vm
    properties:
      network: "${net}"
      securityGroups: [ "${sg-b}", "${sg-a}" ]
      image: debian-12
      tags: { net: "net-${net}", plain: x }
`

// TestPlanRecordsReferences: each value a reference gave is recorded
// with the reference, by the path of the planned value, and only where
// the planned value is what the reference resolved to: a set the
// provider orders records each reference at the element holding its
// value; unchanged resources record none.
func TestPlanRecordsReferences(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	p := mustPlan(t, e, parse(t, refsConfig))
	web := find(t, p, "web")
	want := map[string]string{"network": "net", "securityGroups[0]": "sg-b", "securityGroups[1]": "sg-a", "tags.net": "net"}
	if diff := cmp.Diff(want, web.References); diff != "" {
		t.Errorf("the create's references (-want +got):\n%s", diff)
	}
	if sg := find(t, p, "sg-a"); !cmp.Equal(sg.References, map[string]string{"network": "net"}) {
		t.Errorf("sg-a's references: %v", sg.References)
	}
	if net := find(t, p, "net"); net.References != nil {
		t.Errorf("net refers to nothing, yet records %v", net.References)
	}

	mustApply(t, e, parse(t, refsConfig))
	ids := map[string]string{}
	for name, r := range w.state().Resources {
		ids[name] = r.ProviderID
	}
	// Swap the groups' order and add a tag reading sg-a: the update
	// shows it; the set's elements are where the provider put them.
	changed := strings.Replace(refsConfig, "plain: x", "plain: x, sg: \"${sg-a}\"", 1)
	p = mustPlan(t, e, parse(t, changed))
	web = find(t, p, "web")
	if web.Action != plan.Update {
		t.Fatalf("web: %s, want update", web.Action)
	}
	if got := web.References["tags.sg"]; got != "sg-a" {
		t.Errorf("tags.sg's reference %q, want sg-a (all: %v)", got, web.References)
	}
	planned := map[string]any{}
	for _, pc := range web.Properties {
		planned[pc.Path] = pc.New
	}
	if v := planned["tags.sg"]; v != ids["sg-a"] {
		t.Errorf("tags.sg planned %v, want sg-a's ID %s", v, ids["sg-a"])
	}
	if sg := find(t, p, "sg-a"); sg.Action != plan.NoOp || sg.References != nil {
		t.Errorf("unchanged sg-a: %s with references %v", sg.Action, sg.References)
	}
}

// TestReferencesOnlyWhereTheValueIsTheirs: a reference is recorded at a
// planned value only when that value is what it resolved to, in a set
// whatever order the provider plans it in.
func TestReferencesOnlyWhereTheValueIsTheirs(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	withoutWeb := refsConfig[:strings.Index(refsConfig, "  web:")]
	mustApply(t, e, parse(t, withoutWeb))
	ids := map[string]string{}
	for name, r := range w.state().Resources {
		ids[name] = r.ProviderID
	}
	for _, order := range []string{`"${sg-b}", "${sg-a}"`, `"${sg-a}", "${sg-b}"`} {
		t.Run(order, func(t *testing.T) {
			cfg := strings.Replace(refsConfig, `"${sg-b}", "${sg-a}"`, order, 1)
			web := find(t, mustPlan(t, e, parse(t, cfg)), "web")
			if web.Action != plan.Create {
				t.Fatalf("web: %s, want create", web.Action)
			}
			paths := map[string]bool{}
			for path, ref := range web.References {
				paths[path] = true
				got, ok := valueAt(web.Properties, path)
				if want := ids[ref]; !ok || (got != want && got != "net-"+want) {
					t.Errorf("%s: planned %v, but its reference %s is %s", path, got, ref, want)
				}
			}
			for _, p := range []string{"network", "securityGroups[0]", "securityGroups[1]", "tags.net"} {
				if !paths[p] {
					t.Errorf("no reference at %s: %v", p, web.References)
				}
			}
		})
	}
}

// find is the change of name in p.
func find(t *testing.T, p *plan.Plan, name string) plan.Change {
	t.Helper()
	for _, c := range p.Changes {
		if c.ResourceID == name {
			return c
		}
	}
	t.Fatalf("no change of %s", name)
	return plan.Change{}
}

// valueAt is the new value at path ("tags.net", "securityGroups[1]")
// in a create's property changes.
func valueAt(props []plan.PropChange, path string) (any, bool) {
	top, rest, _ := strings.Cut(path, ".")
	top, idx, _ := strings.Cut(top, "[")
	for _, pc := range props {
		if pc.Path != top {
			continue
		}
		v := pc.New
		if idx != "" {
			l, ok := v.([]any)
			i, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if !ok || err != nil || i >= len(l) {
				return nil, false
			}
			v = l[i]
		}
		if rest != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			v = m[rest]
		}
		return v, true
	}
	return nil, false
}
