package tfschema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/value"
)

// testBlock is shaped like a real resource type: plain attributes of each
// kind, a computed id, a sensitive attribute, a list block with a computed
// attribute, a single block, a group block and (protocol 6) a nested
// attribute type holding a sensitive attribute.
func testBlock() *Block {
	b := &Block{
		Attributes: map[string]*Attribute{
			"name":    {Type: cty.String, Required: true},
			"value":   {Type: cty.String, Optional: true},
			"size":    {Type: cty.Number, Optional: true},
			"enabled": {Type: cty.Bool, Optional: true},
			"tags":    {Type: cty.Map(cty.String), Optional: true},
			"zones":   {Type: cty.Set(cty.String), Optional: true},
			"extra":   {Type: cty.DynamicPseudoType, Optional: true},
			"secret":  {Type: cty.String, Optional: true, Sensitive: true},
			"id":      {Type: cty.String, Computed: true},
			"serial":  {Type: cty.Number, Optional: true, Computed: true},
			"old":     {Type: cty.String, Optional: true, Deprecated: true},
			"endpoints": {Optional: true, NestedType: &Object{Nesting: NestingList, Attributes: map[string]*Attribute{
				"host":  {Type: cty.String, Required: true},
				"token": {Type: cty.String, Optional: true, Sensitive: true},
			}}},
		},
		BlockTypes: map[string]*NestedBlock{
			"rule": {Nesting: NestingList, MaxItems: 2, Block: Block{Attributes: map[string]*Attribute{
				"port": {Type: cty.Number, Required: true},
				"cidr": {Type: cty.String, Optional: true},
				"rid":  {Type: cty.String, Computed: true},
			}}},
			"timeouts": {Nesting: NestingSingle, Block: Block{Attributes: map[string]*Attribute{
				"create": {Type: cty.String, Optional: true},
			}}},
			"meta": {Nesting: NestingGroup, Block: Block{Attributes: map[string]*Attribute{
				"note": {Type: cty.String, Optional: true},
			}}},
			"member": {Nesting: NestingSet, Block: Block{Attributes: map[string]*Attribute{
				"user": {Type: cty.String, Required: true},
				"mid":  {Type: cty.String, Computed: true},
			}}},
		},
	}
	b.Finish()
	return b
}

func TestImpliedType(t *testing.T) {
	ty := testBlock().ImpliedType()
	for name, want := range map[string]cty.Type{
		"name":      cty.String,
		"tags":      cty.Map(cty.String),
		"extra":     cty.DynamicPseudoType,
		"endpoints": cty.List(cty.Object(map[string]cty.Type{"host": cty.String, "token": cty.String})),
		"rule":      cty.List(cty.Object(map[string]cty.Type{"port": cty.Number, "cidr": cty.String, "rid": cty.String})),
		"timeouts":  cty.Object(map[string]cty.Type{"create": cty.String}),
		"member":    cty.Set(cty.Object(map[string]cty.Type{"user": cty.String, "mid": cty.String})),
	} {
		if got := ty.AttributeType(name); !got.Equals(want) {
			t.Errorf("%s: type %s, want %s", name, got.FriendlyName(), want.FriendlyName())
		}
	}
	// A list block holding a dynamic attribute is itself dynamic.
	dyn := &NestedBlock{Nesting: NestingList, Block: Block{Attributes: map[string]*Attribute{"v": {Type: cty.DynamicPseudoType, Optional: true}}}}
	if got := dyn.impliedType(); got != cty.DynamicPseudoType {
		t.Errorf("list block of dynamic attributes: %s, want dynamic", got.FriendlyName())
	}
}

func TestConfigConverts(t *testing.T) {
	b := testBlock()
	v, ds := Config(b, map[string]any{
		"name":      "web",
		"value":     300.0, // a number where a string is wanted: "300"
		"size":      "42",  // a number's text where a number is wanted
		"enabled":   "true",
		"tags":      map[string]any{"env": "prod", "n": 1.0},
		"zones":     []any{"b", "a", "b"},
		"extra":     map[string]any{"k": []any{1.0, "x"}},
		"endpoints": []any{map[string]any{"host": "h1"}},
		"rule":      map[string]any{"port": 80.0}, // one block as a map
		"timeouts":  map[string]any{"create": "5m"},
	})
	if ds.HasErrors() {
		t.Fatalf("Config: %v", ds.Err())
	}
	got := FromCtyObject(v)
	want := map[string]any{
		"name": "web", "value": "300", "size": 42.0, "enabled": true,
		"tags":      map[string]any{"env": "prod", "n": "1"},
		"zones":     []any{"a", "b"},
		"extra":     map[string]any{"k": []any{1.0, "x"}},
		"endpoints": []any{map[string]any{"host": "h1"}},
		"rule":      []any{map[string]any{"port": 80.0}},
		"timeouts":  map[string]any{"create": "5m"},
		"meta":      map[string]any{}, // a group block is never null
		"member":    []any{},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Config (-want +got):\n%s", d)
	}
	// Every attribute of the schema is in the value, null when not set.
	if !v.GetAttr("id").IsNull() || !v.GetAttr("secret").IsNull() || !v.GetAttr("timeouts").Type().IsObjectType() {
		t.Errorf("unset attributes must be null: %#v", v)
	}
	if errs := v.Type().TestConformance(b.ImpliedType()); errs != nil {
		t.Errorf("type %s, want the block's implied type", v.Type().FriendlyName())
	}
}

// TestConfigSingleBlocksWrittenAsHCL: an HCL block is read as a list of
// blocks whatever its nesting (package tfconfig): a single or group
// block is the list's one element, none is null (a single block) or
// empty (a group), two are too many.
func TestConfigSingleBlocksWrittenAsHCL(t *testing.T) {
	b := testBlock()
	for _, tc := range []struct {
		name           string
		timeouts, meta any
		want           map[string]any
		err            string
	}{
		{"one", []any{map[string]any{"create": "5m"}}, []any{map[string]any{"note": "n"}},
			map[string]any{"timeouts": map[string]any{"create": "5m"}, "meta": map[string]any{"note": "n"}}, ""},
		{"none", []any{}, []any{}, map[string]any{"meta": map[string]any{}}, ""},
		{"two", []any{map[string]any{}, map[string]any{}}, nil, nil, "timeouts: no more than one block is allowed, 2 given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props := map[string]any{"name": "web", "timeouts": tc.timeouts}
			if tc.meta != nil {
				props["meta"] = tc.meta
			}
			v, ds := Config(b, props)
			if tc.err != "" {
				if ds.Err() == nil || !strings.Contains(ds.Err().Error(), tc.err) {
					t.Fatalf("errors %v, want %q", ds.Err(), tc.err)
				}
				return
			}
			if ds.HasErrors() {
				t.Fatal(ds.Err())
			}
			got := FromCtyObject(v)
			for k, want := range tc.want {
				if d := cmp.Diff(want, got[k]); d != "" {
					t.Errorf("%s (-want +got):\n%s", k, d)
				}
			}
			if _, set := tc.want["timeouts"]; !set && !v.GetAttr("timeouts").IsNull() {
				t.Errorf("timeouts %#v, want null", v.GetAttr("timeouts"))
			}
		})
	}
}

func TestConfigReportsEveryErrorWithItsPath(t *testing.T) {
	b := testBlock()
	_, ds := Config(b, map[string]any{
		"nmae":      "typo",
		"id":        "mine",
		"size":      "large",
		"tags":      []any{"x"},
		"old":       "x",
		"rule":      []any{map[string]any{"cidr": "x"}, map[string]any{"port": 1.0}, map[string]any{"port": 2.0}},
		"endpoints": []any{map[string]any{"hots": "x"}},
		"timeouts":  "5m",
	})
	var got []string
	for _, d := range ds {
		got = append(got, d.Severity.String()+" "+d.String())
	}
	want := []string{
		`error nmae: unsupported argument "nmae" (did you mean "name"?)`,
		`error endpoints[0].hots: unsupported attribute "hots" (did you mean "host"?)`,
		`error endpoints[0].host: the argument "host" is required`,
		`error id: "id" is set by the provider and cannot be configured`,
		`error name: the argument "name" is required`,
		`warning old: the argument "old" is deprecated`,
		`error size: a number is required`,
		`error tags: map of string required`,
		`error rule: at most 2 block(s) allowed, 3 given`,
		`error rule[0].port: the argument "port" is required`,
		`error timeouts: a block (a map of its arguments) is required, not a string`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if ds.Err() == nil || !strings.Contains(ds.Err().Error(), "rule[0].port") {
		t.Errorf("Err() = %v, want the errors", ds.Err())
	}
}

func TestConfigUnknownsFlow(t *testing.T) {
	b := testBlock()
	v, ds := Config(b, map[string]any{
		"name":  value.Unknown,
		"value": "prefix-" + value.Unknown, // interpolated: unknown as a whole
		"size":  value.Unknown,
		"tags":  map[string]any{"zone": value.Unknown},
		"rule":  []any{map[string]any{"port": value.Unknown}},
	})
	if ds.HasErrors() {
		t.Fatalf("Config: %v", ds.Err())
	}
	for _, p := range []cty.Path{
		cty.GetAttrPath("name"), cty.GetAttrPath("value"), cty.GetAttrPath("size"),
		cty.GetAttrPath("tags").Index(cty.StringVal("zone")),
		cty.GetAttrPath("rule").IndexInt(0).GetAttr("port"),
	} {
		got, err := p.Apply(v)
		if err != nil || got.IsKnown() {
			t.Errorf("%s: %#v (%v), want unknown", PathString(p), got, err)
		}
	}
	if v.GetAttr("size").Type() != cty.Number {
		t.Errorf("an unknown number must keep its type, got %s", v.GetAttr("size").Type().FriendlyName())
	}
	got := FromCtyObject(v)
	if got["name"] != value.Unknown || got["rule"].([]any)[0].(map[string]any)["port"] != value.Unknown {
		t.Errorf("unknowns must come back as value.Unknown: %v", got)
	}
}

func TestToCtyRoundTrip(t *testing.T) {
	ty := testBlock().ImpliedType()
	in := map[string]any{
		"name": "web", "size": 3.5, "enabled": false, "id": "i-1",
		"tags":      map[string]any{"a": "b"},
		"zones":     []any{"x"},
		"extra":     []any{"s", 1.0, true, nil},
		"endpoints": []any{map[string]any{"host": "h", "token": "t"}},
		"rule":      []any{map[string]any{"port": 1.0, "rid": value.Unknown}},
		"member":    []any{},
		"meta":      map[string]any{},
	}
	v, err := ToCty(in, ty)
	if err != nil {
		t.Fatalf("ToCty: %v", err)
	}
	if d := cmp.Diff(in, FromCty(v)); d != "" {
		t.Errorf("round trip (-in +out):\n%s", d)
	}
	for _, tc := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"bogus": 1.0}, `bogus: unsupported attribute "bogus"`},
		{map[string]any{"size": "big"}, `size: a number is required, not a string`},
		{map[string]any{"rule": []any{"x"}}, `rule[0]: an object is required, not a string`},
		{map[string]any{"tags": map[string]any{"a": []any{}}}, `tags["a"]: a string is required, not a list`},
	} {
		_, err := ToCty(tc.in, ty)
		var pe cty.PathError
		if err == nil {
			t.Errorf("ToCty(%v) accepted it, want %q", tc.in, tc.want)
			continue
		}
		pe, _ = err.(cty.PathError)
		if got := PathString(pe.Path) + ": " + err.Error(); got != tc.want {
			t.Errorf("ToCty(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
