package tfstate_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfstate"
)

// marshalExtra is the oracle: what EncodeExtra wrote with json.Marshal.
func marshalExtra(e *tfstate.Extra) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// checkEncodeExtra fails t unless EncodeExtra writes what json.Marshal
// writes of e, or fails where it fails.
func checkEncodeExtra(t *testing.T, e *tfstate.Extra) {
	t.Helper()
	want, wantErr := marshalExtra(e)
	got, err := tfstate.EncodeExtra(e)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("EncodeExtra: %v; json.Marshal: %v", err, wantErr)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Fatalf("EncodeExtra (-json.Marshal +EncodeExtra):\n%s", d)
	}
}

// TestEncodeExtraMatchesEncodingJSON: what Kyku keeps beside a state is
// byte for byte what json.Marshal writes of it, each field empty and not,
// strings json.Marshal escapes included; what it cannot encode, neither
// can EncodeExtra, which names the resource.
func TestEncodeExtraMatchesEncodingJSON(t *testing.T) {
	readAt := time.Date(2026, 12, 7, 9, 58, 1, 120, time.UTC)
	odd := "a<b>&c\u2028\u2029\x01\t\"\\é\xff"
	for _, c := range []struct {
		name    string
		extra   *tfstate.Extra
		wantErr string
	}{
		{name: "nil"},
		{name: "empty", extra: &tfstate.Extra{}},
		{name: "version only", extra: &tfstate.Extra{Lineage: "l", Serial: math.MaxUint64}},
		{name: "every field", extra: &tfstate.Extra{Lineage: "l", Serial: 3, Digest: "d", Prefix: "p",
			Resources: map[string]*tfstate.ExtraResource{
				"b.x": {Config: map[string]any{"n": 1.5, "big": json.Number("12345678901234567890"), "l": []any{}, "m": map[string]any{}, "z": nil, "t": true},
					CloudName: "c", Protect: true, ProviderID: "i", Basis: &state.Basis{Config: "c", Provider: "p", ReadAt: readAt, Version: "1.0"}},
				"a.x": {},
			},
			Interrupted: map[string]string{"b": "t", "a": "t"}}},
		{name: "each resource field alone", extra: &tfstate.Extra{Resources: map[string]*tfstate.ExtraResource{
			"config":     {Config: map[string]any{"k": "v"}},
			"empty":      {Config: map[string]any{}},
			"cloudName":  {CloudName: "c"},
			"protect":    {Protect: true},
			"providerId": {ProviderID: "i"},
			"basis":      {Basis: &state.Basis{}},
			"nil":        nil,
		}}},
		{name: "escaped", extra: &tfstate.Extra{Lineage: odd, Digest: odd, Prefix: odd,
			Resources: map[string]*tfstate.ExtraResource{odd: {Config: map[string]any{odd: odd}, CloudName: odd, ProviderID: odd,
				Basis: &state.Basis{Config: odd, Provider: odd, Version: odd}}},
			Interrupted: map[string]string{odd: odd}}},
		{name: "a time in another zone", extra: &tfstate.Extra{Resources: map[string]*tfstate.ExtraResource{
			"r": {Basis: &state.Basis{ReadAt: time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.FixedZone("x", -(5*3600+30*60)))}},
		}}},
		{name: "not a number", wantErr: "resource r: config: ", extra: &tfstate.Extra{Resources: map[string]*tfstate.ExtraResource{
			"r": {Config: map[string]any{"n": math.NaN()}},
		}}},
		{name: "a year out of range", wantErr: "resource r: basis: readAt: ", extra: &tfstate.Extra{Resources: map[string]*tfstate.ExtraResource{
			"r": {Basis: &state.Basis{ReadAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		}}},
		{name: "many resources, the later larger", extra: manyExtra(300)},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkEncodeExtra(t, c.extra)
			if _, err := tfstate.EncodeExtra(c.extra); c.wantErr != "" {
				if want := "encode kyku's additions to the state: " + c.wantErr; err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("error %v, want one starting %q", err, want)
				}
			}
		})
	}
}

// manyExtra is an Extra of n resources, each one's configuration larger
// than the one before.
func manyExtra(n int) *tfstate.Extra {
	e := &tfstate.Extra{Lineage: "l", Serial: 2, Resources: map[string]*tfstate.ExtraResource{}}
	for i := range n {
		tags := map[string]any{}
		for j := range i {
			tags[fmt.Sprint("t", j)] = "v<" + fmt.Sprint(j) + ">"
		}
		e.Resources[fmt.Sprintf(`module.site["s"].null_resource.node[%d]`, i)] = &tfstate.ExtraResource{
			Config: map[string]any{"triggers": map[string]any{"name": fmt.Sprint("node-", i), "tags": tags}}, CloudName: fmt.Sprint("p-", i),
			Basis: &state.Basis{Config: "c", Provider: "p", ReadAt: time.Date(2026, 12, 7, 9, 0, i%60, 0, time.UTC), Version: "3.3.1"}}
	}
	return e
}

// TestEncodeExtraAllocatesNotPerResource: the encoding of .ci/bench-hcl's
// shape takes a handful of allocations whatever the number of resources
// (json.Marshal took a dozen a resource, through reflection).
func TestEncodeExtraAllocatesNotPerResource(t *testing.T) {
	_, data := benchShapeState(5, 100)
	e, err := tfstate.DecodeExtra("extra", data)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(5, func() {
		if _, err := tfstate.EncodeExtra(e); err != nil {
			t.Fatal(err)
		}
	}); n > 20 {
		t.Errorf("%v allocations to encode 500 resources, want at most 20", n)
	}
}

// TestEncodeExtraMatchesEncodingJSONRandomly: the same, of Extras made at
// random (seeded) with every field sometimes empty.
func TestEncodeExtraMatchesEncodingJSONRandomly(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 52))
	words := []string{"", "a", "web<1>", `k["x"]`, "é&\u2028", "\x7f\n"}
	word := func() string { return words[r.IntN(len(words))] }
	var val func(depth int) any
	val = func(depth int) any {
		switch r.IntN(8) {
		case 0:
			return nil
		case 1:
			return r.IntN(2) == 0
		case 2:
			return word()
		case 3:
			return []float64{0, -1, 1e21, 1e-7, 123456.789, math.MaxFloat64, 5e-324}[r.IntN(7)]
		case 4:
			return json.Number(fmt.Sprint(r.Uint64()) + "0")
		case 5:
			if depth > 0 {
				l := make([]any, r.IntN(3))
				for i := range l {
					l[i] = val(depth - 1)
				}
				return l
			}
		case 6, 7:
			if depth > 0 {
				m := map[string]any{}
				for range r.IntN(4) {
					m[word()] = val(depth - 1)
				}
				return m
			}
		}
		return word()
	}
	for range 500 {
		e := &tfstate.Extra{Lineage: word(), Serial: r.Uint64N(1 << 40), Digest: word(), Prefix: word()}
		for range r.IntN(5) {
			if e.Resources == nil {
				e.Resources = map[string]*tfstate.ExtraResource{}
			}
			x := &tfstate.ExtraResource{CloudName: word(), Protect: r.IntN(2) == 0, ProviderID: word()}
			if r.IntN(3) > 0 {
				x.Config, _ = val(3).(map[string]any)
			}
			if r.IntN(2) == 0 {
				x.Basis = &state.Basis{Config: word(), Provider: word(), Version: word(),
					ReadAt: time.Date(2000+r.IntN(50), 12, 6, 13, 0, r.IntN(60), r.IntN(3)*1000, time.UTC)}
			}
			e.Resources[word()+fmt.Sprint(r.IntN(9))] = x
		}
		for range r.IntN(3) {
			if e.Interrupted == nil {
				e.Interrupted = map[string]string{}
			}
			e.Interrupted[word()] = word()
		}
		checkEncodeExtra(t, e)
	}
}

// FuzzEncodeExtra: of what DecodeExtra accepts, EncodeExtra writes what
// json.Marshal writes.
func FuzzEncodeExtra(f *testing.F) {
	_, extra := benchShapeState(2, 2)
	f.Add(extra)
	f.Add([]byte(`{"lineage":"l","serial":1,"resources":{"a":null,"b":{},"c":{"config":{"x":[1e30,-0,0.1,12345678901234567890123,"\u2028"]},"basis":{"readAt":"2026-12-07T10:00:00.5+05:30"}}},"interrupted":{"<":"&"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := tfstate.DecodeExtra("fuzz", data)
		if err != nil {
			return
		}
		checkEncodeExtra(t, e)
	})
}
