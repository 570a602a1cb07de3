package providertest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/value"
)

// Agreement holds a provider of Kyku's types to its word: for every
// property of every type it carries, a rule (provider.TypeSchema.Rules)
// that says whether a change is made in place, and cases, run through the
// engine on a fresh test server each, showing the plan says what the rule
// says and the cloud does what the plan says (an update converges, a
// replace's change is refused in place, a refusal is a positioned plan
// error).
type Agreement struct {
	// Types are the Kyku types the provider carries.
	Types []string
	// Start starts a fresh test server and returns the provider on it
	// and what the server holds for a property Read cannot report (nil:
	// Read reports everything).
	Start func(t *testing.T) (provider.Provider, Holds)
	// Blocks are the resources a case may reference, by name, as YAML
	// (indented two spaces); Needs lists what each block references.
	Blocks map[string]string
	Needs  map[string][]string
	// It is, per type, the properties of the resource under test ("it"),
	// in order, as YAML values.
	It map[string][]KV
	// Cases are the changes to try, per "Type.property".
	Cases map[string][]Change
	// Refused lists the "Type.property" the provider refuses at plan
	// whatever the value (Hetzner subnets take no tags): a change of one
	// must be a positioned plan error.
	Refused map[string]Change
}

// Holds is what a test server keeps of property prop of object id of typ
// (ok false: no such object or property).
type Holds func(typ, id, prop string) (v any, ok bool)

// KV is one property of "it".
type KV struct{ Name, Value string }

// Outcome is what a change must do.
type Outcome int

const (
	ByRule  Outcome = iota // what the provider's rule says: update or replace
	Replace                // a replace the values force (the cloud's check)
	Refused                // refused at plan
)

// Change is one case: the property's value before (From, "" for it's
// default) and after (To), what it must do, and properties "it" goes
// without in this case.
type Change struct {
	From, To string
	Want     Outcome
	Drop     []string
}

func (o Outcome) String() string {
	return [...]string{"by rule", "replace", "refused"}[o]
}

// TagsCase is the case every provider shares: a tag changes in place.
func TagsCase() []Change { return []Change{{To: "{ k: two }"}} }

// KeyA, KeyB and KeyC are well-formed public keys (nobody holds their
// private halves).
const (
	KeyA = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO8Wb8aHc8L936PFYkcSxDJxW2T11kEykGuD94m2FJ5j a@kyku"
	KeyB = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMPpQ50tnXzmLZQoHDQXbgGqKliupyDcgqzZpLUd/wBU b@kyku"
	KeyC = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGs7ZkutGcOf5VNyqKs2BKZBlxdfs0fpPWamw+V9iIsb c@kyku"
)

// run runs every case.
func (c *Agreement) run(t *testing.T) {
	p, _ := c.Start(t)
	for _, typ := range c.Types {
		st, ok := schema.Lookup(typ)
		if !ok {
			t.Fatalf("unknown type %s", typ)
		}
		rules := p.Schema(typ).Rules
		for _, name := range slices.Sorted(maps.Keys(rules)) {
			if st.Props[name] == nil {
				t.Errorf("%s has a rule for %s.%s, which the schema does not have", p.Name(), typ, name)
			}
		}
		for _, prop := range st.PropNames() {
			key := typ + "." + prop
			rule, ok := rules[prop]
			switch {
			case !ok:
				t.Errorf("%s has no rule for %s: say whether its cloud changes it in place (provider.TypeSchema.Rules)", p.Name(), key)
				continue
			case rule.Replace && rule.Reason == "":
				t.Errorf("%s's rule for %s forces a replace without a reason", p.Name(), key)
			}
			if ch, ok := c.Refused[key]; ok {
				t.Run(key+"/refused", func(t *testing.T) { c.runRefused(t, typ, prop, ch) })
				continue
			}
			cases := c.Cases[key]
			if len(cases) == 0 {
				t.Errorf("%s: no case changes %s: add one to its Agreement", p.Name(), key)
			}
			for i, ch := range cases {
				t.Run(fmt.Sprintf("%s/%d", key, i), func(t *testing.T) {
					t.Parallel()
					c.runCase(t, typ, prop, rule, ch)
				})
			}
		}
	}
	for key := range c.Cases {
		typ, prop, _ := strings.Cut(key, ".")
		if st, ok := schema.Lookup(typ); !ok || st.Props[prop] == nil || !slices.Contains(c.Types, typ) {
			t.Errorf("%s: case %s names no type and property the provider carries", p.Name(), key)
		}
	}
}

// world is one case's engine on a fresh test server.
type world struct {
	t     *testing.T
	p     provider.Provider
	holds Holds
	e     *engine.Engine
}

func (c *Agreement) world(t *testing.T) *world {
	p, holds := c.Start(t)
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{
		DeployPrefix: "kyku0001", RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond,
		DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
	})
	return &world{t: t, p: p, holds: holds, e: e}
}

// config is the configuration of a case: the blocks "it" needs (and the
// values also name) and "it" of typ with prop set to v (v "" keeps the
// default).
func (c *Agreement) config(typ, prop, v string, drop []string, also ...string) string {
	var b strings.Builder
	b.WriteString("resources:\n")
	seen := map[string]bool{}
	var add func(name string)
	add = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		for _, n := range c.Needs[name] {
			add(n)
		}
		if _, ok := c.Blocks[name]; !ok {
			panic("providertest: no Agreement block " + name)
		}
		b.WriteString(c.Blocks[name])
	}
	props := c.It[typ]
	for _, p := range props {
		for _, ref := range refsIn(p.Value) {
			if _, ok := c.Blocks[ref]; ok {
				add(ref)
			}
		}
	}
	for _, ref := range refsIn(strings.Join(append(also, v), " ")) {
		if _, ok := c.Blocks[ref]; ok {
			add(ref)
		}
	}
	fmt.Fprintf(&b, "  it:\n    type: %s\n    properties:\n", typ)
	for _, p := range props {
		switch {
		case slices.Contains(drop, p.Name):
		case p.Name == prop && v != "":
			fmt.Fprintf(&b, "      %s: %s\n", p.Name, v)
		default:
			fmt.Fprintf(&b, "      %s: %s\n", p.Name, p.Value)
		}
	}
	if !slices.ContainsFunc(props, func(p KV) bool { return p.Name == prop }) && v != "" {
		fmt.Fprintf(&b, "      %s: %s\n", prop, v)
	}
	return b.String()
}

// refsIn lists the resources a YAML value references.
func refsIn(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return out
		}
		name := s[i+2 : i+j]
		if k := strings.IndexAny(name, ".["); k >= 0 {
			name = name[:k]
		}
		out = append(out, name)
		s = s[i+j+1:]
	}
}

func (w *world) parse(text string) *config.Config {
	w.t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(text)}})
	if err != nil {
		w.t.Fatalf("parse:\n%s\n%v", text, err)
	}
	return cfg
}

func (w *world) apply(text string, p *plan.Plan) {
	w.t.Helper()
	res, err := w.e.Apply(context.Background(), w.parse(text), engine.ApplyOptions{AutoApprove: true}, p)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		w.t.Fatalf("apply:\n%s\n%v", text, err)
	}
}

// it is the change of "it" in p.
func it(t *testing.T, p *plan.Plan) plan.Change {
	t.Helper()
	for _, ch := range p.Changes {
		if ch.ResourceID == "it" {
			return ch
		}
	}
	t.Fatal("the plan has no change of it")
	return plan.Change{}
}

func (c *Agreement) runCase(t *testing.T, typ, prop string, rule provider.Rule, ch Change) {
	w := c.world(t)
	ctx := context.Background()
	before := c.config(typ, prop, ch.From, ch.Drop, ch.To)
	after := c.config(typ, prop, ch.To, ch.Drop, ch.From)
	w.apply(before, nil)
	cfg := w.parse(after)
	p, err := w.e.Plan(ctx, cfg)
	want := ch.Want
	if want == ByRule {
		want = update
		if rule.Replace {
			want = Replace
		}
	}
	if want == Refused {
		if err == nil || !strings.Contains(err.Error(), "kyku.yaml:") || !strings.Contains(err.Error(), fmt.Sprintf("property %q", prop)) {
			t.Fatalf("%s → %s: plan = %v; want a positioned refusal of %s", ch.From, ch.To, err, prop)
		}
		w.mustRefuseInPlace(typ, prop, cfg)
		return
	}
	if err != nil {
		t.Fatalf("plan of %s → %s: %v", ch.From, ch.To, err)
	}
	got := it(t, p)
	switch {
	case want == update && got.Action != plan.Update:
		t.Fatalf("%s → %s: plan says %s, want update (the rule: %+v); changes %+v", ch.From, ch.To, got.Action, rule, got.Properties)
	case want == Replace && got.Action != plan.Replace:
		t.Fatalf("%s → %s: plan says %s, want replace; changes %+v", ch.From, ch.To, got.Action, got.Properties)
	}
	for _, other := range p.Changes {
		if other.ResourceID != "it" && other.Action != plan.NoOp && !(prop == "distributeAcrossAzs" && other.Action == plan.Create) {
			t.Fatalf("the change of %s alone plans %s %s too", prop, other.Action, other.ResourceID)
		}
	}
	if want == update {
		w.apply(after, p)
		w.converged(after, typ, prop)
		return
	}
	for _, pc := range got.Properties {
		if pc.ForcesReplace && pc.ReplaceReason == "" {
			t.Errorf("%s forces the replace without a reason", pc.Path)
		}
	}
	w.mustRefuseInPlace(typ, prop, cfg)
	w.apply(after, p)
	w.converged(after, typ, prop)
}

// update is the outcome of an in-place change (not a field of Change:
// ByRule means it when the rule says so).
const update Outcome = -1

// runRefused checks that a change of a property the provider refuses at
// plan is a positioned plan error.
func (c *Agreement) runRefused(t *testing.T, typ, prop string, ch Change) {
	w := c.world(t)
	_, err := w.e.Plan(context.Background(), w.parse(c.config(typ, prop, ch.To, ch.Drop)))
	if err == nil || !strings.Contains(err.Error(), "kyku.yaml:") || !strings.Contains(err.Error(), fmt.Sprintf("property %q", prop)) {
		t.Fatalf("plan = %v; want a positioned refusal of %s", err, prop)
	}
}

// mustRefuseInPlace tries cfg's "it" in place, as an apply of an update
// would send it: the provider must refuse, or leave the object as it is.
func (w *world) mustRefuseInPlace(typ, prop string, cfg *config.Config) {
	t := w.t
	ctx := context.Background()
	st, err := w.e.ReadState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sr := st.Resources["it"]
	r := cfg.Resource("it")
	props, unknown := value.Resolve(r.Properties, lookup(st))
	if unknown {
		t.Fatalf("it's properties are not all known: %v", props)
	}
	want := props.(map[string]any)
	_, err = w.p.Update(ctx, sr.ProviderID, provider.Resource{Name: "it", Type: typ, CloudName: sr.CloudName, Prefix: st.Metadata.Prefix, Properties: want})
	if err != nil {
		return // refused in place
	}
	if value.Equal(w.value(typ, sr.ProviderID, prop), value.Normalize(setOrder(typ, prop, want[prop]))) {
		t.Fatalf("the plan replaces it for %s, but %s changed it in place", prop, w.p.Name())
	}
}

// converged checks that the plan of text after its apply has nothing to
// do, and that the cloud holds the new value of prop.
func (w *world) converged(text, typ, prop string) {
	t := w.t
	ctx := context.Background()
	cfg := w.parse(text)
	p, err := w.e.Plan(ctx, cfg)
	if err != nil {
		t.Fatalf("plan after apply: %v", err)
	}
	if ch := it(t, p); ch.Action != plan.NoOp {
		t.Fatalf("after apply the plan still says %s it: %+v", ch.Action, ch.Properties)
	}
	st, err := w.e.ReadState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sr := st.Resources["it"]
	want, _ := value.Resolve(cfg.Resource("it").Properties[prop], lookup(st))
	if got := w.value(typ, sr.ProviderID, prop); !value.Equal(got, value.Normalize(setOrder(typ, prop, want))) && !(isEmpty(got) && isEmpty(want)) {
		t.Fatalf("the cloud holds %s = %v, want %v", prop, got, want)
	}
}

// value is what the cloud holds for prop of object id: what Read reports,
// else what the test server keeps.
func (w *world) value(typ, id, prop string) any {
	t := w.t
	obj, err := w.p.Read(context.Background(), typ, id)
	if err != nil {
		t.Fatalf("read %s %s: %v", typ, id, err)
	}
	if v, ok := obj.Properties[prop]; ok {
		return value.Normalize(setOrder(typ, prop, v))
	}
	if w.holds != nil {
		if v, ok := w.holds(typ, id, prop); ok {
			return value.Normalize(v)
		}
	}
	t.Fatalf("neither %s nor its test server reports %s.%s", w.p.Name(), typ, prop)
	return nil
}

// setOrder sorts a set-valued property so that values compare by members.
func setOrder(typ, prop string, v any) any {
	t, _ := schema.Lookup(typ)
	if p := t.Props[prop]; p == nil || !p.Set {
		return v
	}
	l, ok := value.Normalize(v).([]any)
	if !ok {
		return v
	}
	out := slices.Clone(l)
	slices.SortFunc(out, func(a, b any) int {
		x, _ := value.AppendJSON(nil, a)
		y, _ := value.AppendJSON(nil, b)
		return strings.Compare(string(x), string(y))
	})
	return out
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// lookup resolves references from state: provider IDs and outputs.
func lookup(st *state.File) value.Lookup {
	return func(r value.Ref) (any, bool) {
		sr := st.Resources[r.Resource]
		if sr == nil {
			return nil, false
		}
		if r.Attr == "" || r.Attr == "id" {
			return sr.ProviderID, true
		}
		v, ok := sr.Outputs[r.Attr]
		return v, ok
	}
}
