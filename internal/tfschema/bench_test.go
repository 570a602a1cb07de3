package tfschema

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// BenchmarkNullResourceValues is Kyku's side of one null_resource's plan
// and apply in values: its configuration from properties, the proposed
// state, the three values of a plan request encoded, the answer decoded
// and turned back into properties.
func BenchmarkNullResourceValues(b *testing.B) {
	block := &Block{Attributes: map[string]*Attribute{
		"id":       {Type: cty.String, Computed: true},
		"triggers": {Type: cty.Map(cty.String), Optional: true},
	}}
	block.Finish()
	ty := block.ImpliedType()
	props := map[string]any{"triggers": map[string]any{"chain": "3", "index": "41"}}
	null := cty.NullVal(ty)
	answer, _ := ctymsgpack.Marshal(cty.ObjectVal(map[string]cty.Value{
		"id": cty.StringVal("5577006791947779410"), "triggers": cty.MapVal(map[string]cty.Value{"chain": cty.StringVal("3"), "index": cty.StringVal("41")}),
	}), ty)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		config, ds := Config(block, props)
		if ds.HasErrors() {
			b.Fatal(ds.Err())
		}
		proposed := ProposedNew(block, null, config)
		for _, v := range []cty.Value{null, proposed, config} {
			if _, err := ctymsgpack.Marshal(v, ty); err != nil {
				b.Fatal(err)
			}
		}
		v, err := ctymsgpack.Unmarshal(answer, ty)
		if err != nil {
			b.Fatal(err)
		}
		_ = FromCtyObject(v)
	}
}
