package engine

import (
	"math"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// countingExpr reads net.id and whether apply is resolving (as an
// impure function does), and counts its evaluations.
type countingExpr struct{ evals *int }

func (e countingExpr) Refs() []value.Ref { return []value.Ref{{Resource: "net", Attr: "id"}} }

func (e countingExpr) Eval(lookup value.Lookup) (any, bool, error) {
	*e.evals++
	id, ok := lookup(value.Ref{Resource: "net", Attr: "id"})
	if !ok {
		return value.Unknown, true, nil
	}
	stamp := "unknown"
	if _, applying := lookup(value.Applying); applying {
		stamp = "now"
	}
	return map[string]any{"network": id, "stamp": stamp, "tags": []any{"a"}}, false, nil
}

func (e countingExpr) MarshalJSON() ([]byte, error) { return []byte(`"net"`), nil }

// TestResolveMemo: a resolution settle kept is taken again only when the
// lookup answers every question as it did then (each a copy of its own);
// an object read again with another ID, a value known only after apply,
// or apply's lookup (the impure functions) resolves again.
func TestResolveMemo(t *testing.T) {
	answers := func(id any, known, applying bool) value.Lookup {
		return func(r value.Ref) (any, bool) {
			switch {
			case r == value.Applying:
				return nil, applying
			case r.Resource == "net" && r.Attr == "id":
				return id, known
			}
			return nil, false
		}
	}
	tests := []struct {
		name      string
		lookup    value.Lookup
		want      map[string]any
		unknown   bool
		evaluated int // evaluations beyond settle's
	}{
		{"the same answers", answers("vpc-1", true, false), map[string]any{"web": map[string]any{"network": "vpc-1", "stamp": "unknown", "tags": []any{"a"}}}, false, 0},
		{"the object read again has another ID", answers("vpc-2", true, false), map[string]any{"web": map[string]any{"network": "vpc-2", "stamp": "unknown", "tags": []any{"a"}}}, false, 1},
		{"known only after apply", answers(nil, false, false), map[string]any{"web": value.Unknown}, true, 1},
		{"resolved by apply", answers("vpc-1", true, true), map[string]any{"web": map[string]any{"network": "vpc-1", "stamp": "now", "tags": []any{"a"}}}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evals := 0
			r := &config.Resource{Name: "web", Type: "Server", Properties: map[string]any{"web": countingExpr{&evals}}}
			memo := resolveMemo{}
			var ds diag.Diagnostics
			res, _, _, ok := resolveRecorded(&ds, r, answers("vpc-1", true, false))
			if !ok || evals != 1 {
				t.Fatalf("settle: ok %v, %d evaluations", ok, evals)
			}
			memo[r.Name] = res
			for range 2 {
				got, unknown, ok := memo.resolve(&ds, r, tt.lookup, nil)
				if !ok || unknown != tt.unknown {
					t.Fatalf("ok %v unknown %v, want true %v", ok, unknown, tt.unknown)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("properties (-want +got):\n%s", diff)
				}
				if m, ok := got["web"].(map[string]any); ok { // the caller's to change
					m["network"] = "changed"
					m["tags"].([]any)[0] = "changed"
				}
			}
			if evals-1 != 2*tt.evaluated {
				t.Errorf("%d evaluations after settle's, want %d", evals-1, 2*tt.evaluated)
			}
		})
	}
}

// TestTakeSharesSettlesResolution: take hands a plan settle's own
// resolution, uncopied, with the basis settle digested, when the lookup
// answers as settle's did (a resource taken from state reads them only);
// otherwise a resolution of its own and no basis.
func TestTakeSharesSettlesResolution(t *testing.T) {
	lookup := func(id string) value.Lookup {
		return func(r value.Ref) (any, bool) {
			if r.Resource == "net" && r.Attr == "id" {
				return id, true
			}
			return nil, false
		}
	}
	evals := 0
	r := &config.Resource{Name: "web", Type: "Server", Properties: map[string]any{"web": countingExpr{&evals}}}
	var ds diag.Diagnostics
	res, _, _, ok := resolveRecorded(&ds, r, lookup("vpc-1"))
	if !ok {
		t.Fatal("settle failed")
	}
	res.basis = &state.Basis{Config: "settled"}
	memo := resolveMemo{r.Name: res}

	props, _, ok, kept := memo.take(&ds, r, lookup("vpc-1"), nil)
	if !ok || kept != res || kept.basisOf() != res.basis {
		t.Fatalf("the same answers: kept %p, want settle's %p with its basis", kept, res)
	}
	if reflect.ValueOf(props).UnsafePointer() != reflect.ValueOf(res.props).UnsafePointer() {
		t.Error("the same answers: the properties were copied, want settle's")
	}
	if evals != 1 {
		t.Errorf("%d evaluations, want settle's alone", evals)
	}

	props, _, ok, kept = memo.take(&ds, r, lookup("vpc-2"), nil)
	if !ok || kept != nil || kept.basisOf() != nil {
		t.Fatalf("another answer: kept %p, want none", kept)
	}
	if got := props["web"].(map[string]any)["network"]; got != "vpc-2" {
		t.Errorf("another answer: network %v, want vpc-2", got)
	}
}

// TestHandOverGivesSettlesPropertiesOnce: the plan of a touched resource
// takes settle's properties themselves, uncopied (handOver), to keep and
// change; a later take (the plan made again) resolves anew rather than
// hand the same maps out twice.
func TestHandOverGivesSettlesPropertiesOnce(t *testing.T) {
	lookup := func(r value.Ref) (any, bool) {
		if r.Resource == "net" && r.Attr == "id" {
			return "vpc-1", true
		}
		return nil, false
	}
	evals := 0
	r := &config.Resource{Name: "web", Type: "Server", Properties: map[string]any{"web": countingExpr{&evals}}}
	var ds diag.Diagnostics
	res, _, _, ok := resolveRecorded(&ds, r, lookup)
	if !ok {
		t.Fatal("settle failed")
	}
	memo := resolveMemo{r.Name: res}
	_, _, _, kept := memo.take(&ds, r, lookup, nil)
	if kept != res {
		t.Fatalf("kept %p, want settle's %p", kept, res)
	}
	given := kept.handOver()
	if reflect.ValueOf(given).UnsafePointer() != reflect.ValueOf(res.props).UnsafePointer() {
		t.Error("handOver copied the properties, want settle's")
	}
	given["web"].(map[string]any)["network"] = "changed" // the plan's to change

	again, _, ok, kept := memo.take(&ds, r, lookup, nil)
	if !ok || kept != nil {
		t.Fatalf("after handOver: kept %p, want a resolution anew", kept)
	}
	if got := again["web"].(map[string]any)["network"]; got != "vpc-1" || evals != 2 {
		t.Errorf("after handOver: network %v after %d evaluations, want vpc-1 after 2", got, evals)
	}
}

// TestDeepEqualIsReflects: a kept resolution is taken exactly when
// reflect.DeepEqual would have taken it.
func TestDeepEqualIsReflects(t *testing.T) {
	nan := math.NaN()
	same := map[string]any{"n": nan}
	list := []any{nan}
	values := []any{
		nil, "", "a", 0.0, math.Copysign(0, -1), 1.0, nan, true, false, 1, int64(1), value.Unknown,
		map[string]any(nil), map[string]any{}, map[string]any{"a": "b"}, map[string]any{"a": "c"}, map[string]any{"b": "b"},
		map[string]any{"a": nil}, map[string]any{"a": map[string]any{"x": []any{1.0, "y"}}}, map[string]any{"a": map[string]any{"x": []any{1.0, "z"}}},
		same, map[string]any{"n": nan},
		[]any(nil), []any{}, []any{"a"}, []any{"a", nil}, []any{[]any{}}, []any{[]any(nil)}, list, []any{nan},
		[]string{"a"}, map[string]string{"a": "b"},
	}
	for i, a := range values {
		for j, b := range values {
			if got, want := deepEqual(a, b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("deepEqual(values[%d], values[%d]) = %v, reflect.DeepEqual says %v (%#v, %#v)", i, j, got, want, a, b)
			}
		}
	}
	if !deepEqual(same, same) || !deepEqual(list, list) {
		t.Error("a value holding NaN is not deeply equal to itself")
	}
}
