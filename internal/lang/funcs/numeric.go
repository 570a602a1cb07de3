package funcs

import (
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// addNumeric adds the numeric functions: go-cty's stdlib has them all
// as OpenTofu uses them.
func addNumeric(t map[string]function.Function) {
	t["abs"] = stdlib.AbsoluteFunc
	t["ceil"] = stdlib.CeilFunc
	t["floor"] = stdlib.FloorFunc
	t["log"] = stdlib.LogFunc
	t["max"] = stdlib.MaxFunc
	t["min"] = stdlib.MinFunc
	t["parseint"] = stdlib.ParseIntFunc
	t["pow"] = stdlib.PowFunc
	t["signum"] = stdlib.SignumFunc
}
