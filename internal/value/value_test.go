package value

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"strings", "a", "a", true},
		{"different strings", "a", "b", false},
		{"int and float", 3, 3.0, true},
		{"json.Number and float", json.Number("2.5"), 2.5, true},
		{"string and number", "3", 3.0, false},
		{"nil and nil", nil, nil, true},
		{"nil and empty list", nil, []any{}, false},
		{"nil list and empty list", []any(nil), []any{}, true},
		{"lists", []any{1.0, "x"}, []any{1.0, "x"}, true},
		{"lists of different length", []any{1.0}, []any{1.0, 2.0}, false},
		{"[]string and []any", []string{"a"}, []any{"a"}, true},
		{"maps", map[string]any{"a": 1.0, "b": []any{"c"}}, map[string]any{"b": []any{"c"}, "a": 1.0}, true},
		{"map with another key", map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{"map[string]string and map[string]any", map[string]string{"a": "b"}, map[string]any{"a": "b"}, true},
		{"nested int", map[string]any{"n": []any{map[string]any{"p": 80}}}, map[string]any{"n": []any{map[string]any{"p": 80.0}}}, true},
		{"bools", true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Equal(tt.a, tt.b); got != tt.want {
				t.Errorf("Equal(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := Equal(tt.b, tt.a); got != tt.want {
				t.Errorf("Equal(%v, %v) = %v, want %v (reversed)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

// Equal agrees with the definition (DeepEqual of the canonical forms) on
// random values, equal and nearly equal.
func TestEqualMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		a := randomValue(r, 3)
		b := Copy(a)
		if r.IntN(2) == 0 {
			b = randomValue(r, 3)
		} else if m, ok := b.(map[string]any); ok && len(m) > 0 && r.IntN(2) == 0 {
			for k := range m {
				m[k] = randomValue(r, 1)
				break
			}
		}
		want := reflect.DeepEqual(Normalize(a), Normalize(b))
		if got := Equal(a, b); got != want {
			t.Fatalf("Equal(%#v, %#v) = %v, want %v", a, b, got, want)
		}
	}
}

func randomValue(r *rand.Rand, depth int) any {
	n := 6
	if depth == 0 {
		n = 4
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return float64(r.IntN(3))
	case 3:
		return []string{"a", "b", "c"}[r.IntN(3)]
	case 4:
		l := make([]any, r.IntN(3))
		for i := range l {
			l[i] = randomValue(r, depth-1)
		}
		return l
	}
	m := map[string]any{}
	for i := r.IntN(3); i > 0; i-- {
		m[[]string{"x", "y", "z"}[r.IntN(3)]] = randomValue(r, depth-1)
	}
	return m
}

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want Ref
		ok   bool
	}{
		{"${web}", Ref{Resource: "web"}, true},
		{"${web.publicIp}", Ref{Resource: "web", Attr: "publicIp"}, true},
		{"${a}", Ref{Resource: "a"}, true},
		{"${web} ", Ref{}, false},
		{"x${web}", Ref{}, false},
		{"${web}${db}", Ref{}, false},
		{"${}", Ref{}, false},
		{"${ca.certificate_authority[0].data}", Ref{Resource: "ca", Attr: "certificate_authority", Path: "[0].data"}, true},
		{`${web[1].tags["kubernetes.io/role"]}`, Ref{Resource: "web[1]", Attr: "tags", Path: `["kubernetes.io/role"]`}, true},
		{"${a.b.c.d}", Ref{Resource: "a", Attr: "b", Path: ".c.d"}, true},
		{"${a.b[01]}", Ref{}, false},
		{"${a.b[]}", Ref{}, false},
		{"${a.b[x]}", Ref{}, false},
		{"${a.b.}", Ref{}, false},
		{"${a.b[0}", Ref{}, false},
		{`${a.b["x\"y"]}`, Ref{}, false},
		{"${a.b[*]}", Ref{Resource: "a", Attr: "b", Path: "[*]"}, true},
		{"${a.b[*].c[*]}", Ref{Resource: "a", Attr: "b", Path: "[*].c[*]"}, true},
		{"${a.b[*}", Ref{}, false},
		{"${a.b[**]}", Ref{}, false},
		{"${a[0]}", Ref{Resource: "a[0]"}, true},
		{"web", Ref{}, false},
		{"", Ref{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseRef(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseRef(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if diff := cmp.Diff([]Ref{{Resource: "a"}, {Resource: "b", Attr: "ip"}}, Refs(map[string]any{"x": "${a}", "y": []any{"http://${b.ip}/", "plain"}})); diff != "" {
		t.Errorf("Refs (-want +got):\n%s", diff)
	}
}

// The hand-written reference scanner finds what the reference grammar's
// regular expression finds, on random strings over its alphabet.
func TestRefScannerMatchesGrammar(t *testing.T) {
	re := regexp.MustCompile(`\$\{([A-Za-z0-9_][A-Za-z0-9_-]*(?:\[(?:\*|"[A-Za-z0-9_-]+"|0|[1-9][0-9]*|[A-Za-z0-9_-]*[A-Za-z_-][A-Za-z0-9_-]*)\])?)(?:\.([A-Za-z0-9_]+)((?:\.[A-Za-z0-9_]+|\[(?:0|[1-9][0-9]{0,8})\]|\["[^"\\\x00-\x1f]*"\]|\[\*\])*))?\}`)
	alphabet := []string{"$", "{", "}", ".", "-", "_", "a", "B", "7", " ", "${", "${a}", "${a.b}", "[", "]", "0", "1", `"`, "[0]", `["k"]`, "${a.b[0]", `\`, "*", "[*]", "${a.b[*]"}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.IntN(12); n > 0; n-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		var want []Ref
		seen := map[Ref]bool{}
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if ref := (Ref{Resource: m[1], Attr: m[2], Path: m[3]}); !seen[ref] {
				seen[ref] = true
				want = append(want, ref)
			}
		}
		if diff := cmp.Diff(want, Refs(s)); diff != "" {
			t.Fatalf("Refs(%q) (-regexp +scanner):\n%s", s, diff)
		}
		wantText := re.ReplaceAllStringFunc(s, func(m string) string {
			path := re.FindStringSubmatch(m)[3]
			var v any = "<" + m + ">"
			for ; strings.HasPrefix(path, "[*]"); path = path[3:] {
				v = []any{v} // [*] reads a string as a list of itself
			}
			if path != "" {
				return Unknown // any other path into "<…>", a string, does not apply
			}
			return Text(v)
		})
		var gotText any = s // text without a reference stays text
		if tp, ok := ParseTemplate(s); ok {
			gotText, _ = Resolve(tp, func(ref Ref) (any, bool) { return "<" + ref.String() + ">", true })
		}
		if _, whole := ParseRef(s); !whole && gotText != wantText {
			t.Fatalf("Resolve(%q) = %q, want %q", s, gotText, wantText)
		}
		m := re.FindStringSubmatchIndex(s)
		_, ok := ParseRef(s)
		if wantOK := m != nil && m[0] == 0 && m[1] == len(s); ok != wantOK {
			t.Fatalf("ParseRef(%q) ok = %v, want %v", s, ok, wantOK)
		}
	}
}

func TestRefPathStepsAndWalk(t *testing.T) {
	r, ok := ParseRef(`${eks.certificate_authority[0]["data"].x.y}`)
	if !ok {
		t.Fatal("not a reference")
	}
	if got := r.String(); got != `${eks.certificate_authority[0]["data"].x.y}` {
		t.Errorf("String() = %s", got)
	}
	if r.Whole() != (Ref{Resource: "eks", Attr: "certificate_authority"}) {
		t.Errorf("Whole() = %+v", r.Whole())
	}
	steps := r.Steps()
	want := []string{"[0]", `["data"]`, `["x"]`, `["y"]`}
	if len(steps) != len(want) {
		t.Fatalf("Steps() = %v", steps)
	}
	for i, st := range steps {
		if st.String() != want[i] {
			t.Errorf("step %d = %s, want %s", i, st, want[i])
		}
	}

	v := []any{map[string]any{"data": "pem", "list": []any{1.0, Unknown}, "none": nil}}
	for _, tc := range []struct {
		path  string
		want  any
		known bool
		err   string
	}{
		{path: `[0].data`, want: "pem", known: true},
		{path: `[0]["data"]`, want: "pem", known: true},
		{path: `[0].list[0]`, want: 1.0, known: true},
		{path: `[0].list[1]`, known: false},
		{path: `[0].none`, want: nil, known: true},
		{path: `[1]`, err: "[1]: index out of range (the list has 1 element)"},
		{path: `[0].nope`, err: `["nope"]: no such key (it has: data, list, none)`},
		{path: `[0].data[0]`, err: "[0]: cannot read into pem"},
		{path: `[0].none.x`, err: `["x"]: the value is null`},
		{path: `.x`, err: `["x"]: a list has elements by number, not by key`},
		{path: `[0][0]`, err: "[0]: a map or object has entries by key, not by number"},
		// [*] reads the rest from every element, into a list; null is the
		// empty list, and any other value a list of itself (Terraform's [*]).
		{path: `[*].data`, want: []any{"pem"}, known: true},
		{path: `[*]`, want: v, known: true},
		{path: `[*].none`, want: []any{nil}, known: true},
		{path: `[0].none[*]`, want: []any{}, known: true},
		{path: `[0].data[*]`, want: []any{"pem"}, known: true},
		{path: `[*][*].data`, want: []any{[]any{"pem"}}, known: true},
		{path: `[0].list[*]`, known: false},
		{path: `[*].nope`, err: `[*] (element 0): ["nope"]: no such key (it has: data, list, none)`},
	} {
		got, known, err := Walk(v, Ref{Resource: "r", Attr: "a", Path: tc.path}.Steps())
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("Walk(%s) error %v, want %q", tc.path, err, tc.err)
		case tc.err == "" && (err != nil || known != tc.known || !Equal(got, tc.want)):
			t.Errorf("Walk(%s) = %v, %v, %v; want %v, %v", tc.path, got, known, err, tc.want, tc.known)
		}
	}
	if _, known, _ := Walk(Unknown, Ref{Path: "[3].x"}.Steps()); known {
		t.Error("reading into an unknown value is known")
	}
}

func TestResolveReadsPaths(t *testing.T) {
	attrs := map[string]any{
		"subject":   []any{map[string]any{"common_name": "example.com"}},
		"pending":   Unknown,
		"addresses": []string{"10.0.0.1"},
	}
	lookup := func(r Ref) (any, bool) {
		if r.Path != "" && r.Whole() == r {
			t.Errorf("Whole() kept the path")
		}
		v, ok := attrs[r.Attr]
		return v, ok && v != Unknown
	}
	got, unknown, err := ResolveChecked(map[string]any{
		"cn":    mustTemplate(t, "${cert.subject[0].common_name}"),
		"url":   mustTemplate(t, "https://${cert.subject[0].common_name}/${cert.addresses[0]}"),
		"later": mustTemplate(t, "${cert.pending[0].x}"),
	}, lookup)
	if err != nil || !unknown {
		t.Fatalf("ResolveChecked: unknown %v, err %v", unknown, err)
	}
	want := map[string]any{"cn": "example.com", "url": "https://example.com/10.0.0.1", "later": Unknown}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
	_, _, err = ResolveChecked(mustTemplate(t, "${cert.subject[2].common_name}"), lookup)
	if err == nil || err.Error() != "${cert.subject[2].common_name}: [2]: index out of range (the list has 1 element)" {
		t.Errorf("a path past the end: %v", err)
	}
	if got, unknown := Resolve(mustTemplate(t, "${cert.subject[2].common_name}"), lookup); got != Unknown || !unknown {
		t.Errorf("Resolve of a path past the end = %v, %v; want Unknown", got, unknown)
	}
}

func TestHasUnknown(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{nil, false},
		{"x", false},
		{Unknown, true},
		{"rev-" + Unknown, true},
		{[]any{"a", map[string]any{"k": Unknown}}, true},
		{map[string]any{"k": []any{1.0, "b"}}, false},
	} {
		if got := HasUnknown(tc.v); got != tc.want {
			t.Errorf("HasUnknown(%#v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// stubExpr is an Expr for tests: its value is v.
type stubExpr struct{ v any }

func (s stubExpr) Refs() []Ref                    { return []Ref{{Resource: "a.b", Attr: AllAttrs}} }
func (s stubExpr) Eval(Lookup) (any, bool, error) { return s.v, false, nil }
func (s stubExpr) MarshalJSON() ([]byte, error)   { return []byte(`{"expr":"a.b"}`), nil }

// mustTemplate is s (in Kyku's reference form) as a Template.
func mustTemplate(t *testing.T, s string) *Template {
	t.Helper()
	tp, ok := ParseTemplate(s)
	if !ok {
		t.Fatalf("ParseTemplate(%q): no reference", s)
	}
	return tp
}

// TestExprValues: an Expr among values is resolved by evaluating it,
// read as its description in JSON (a Template as its reference form),
// listed by Refs, and has no leaves (it is no value yet; a Template's
// leaf is its text as written).
func TestExprValues(t *testing.T) {
	v := map[string]any{"x": stubExpr{"resolved"}, "y": mustTemplate(t, "${web.ip}")}
	got, unknown, err := ResolveChecked(v, func(Ref) (any, bool) { return "1.2.3.4", true })
	if err != nil || unknown {
		t.Fatalf("resolve: %v %v", err, unknown)
	}
	if want := map[string]any{"x": "resolved", "y": "1.2.3.4"}; !Equal(want, got) {
		t.Errorf("resolved %v, want %v", got, want)
	}
	b, err := AppendJSON(nil, v)
	if err != nil || string(b) != `{"x":{"expr":"a.b"},"y":"${web.ip}"}` {
		t.Errorf("JSON %s, %v", b, err)
	}
	if refs := Refs(v); len(refs) != 2 || refs[0].Resource != "a.b" || refs[0].Attr != AllAttrs {
		t.Errorf("refs %v", refs)
	}
	if leaves := AppendLeaves(nil, v); len(leaves) != 1 || leaves[0] != "${web.ip}" {
		t.Errorf("leaves %v", leaves)
	}
}
