package value

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
)

// Numbers. A canonical number is a float64, except one a float64 cannot
// show as it is (9007199254740993, or 1/3 worked out to the 512 bits
// Terraform's numbers have): that one is a json.Number holding its exact
// decimal text, as OpenTofu writes it in JSON. Rare, so the code reading
// numbers keeps reading float64s; what must not lose a digit (JSON,
// equality, the conversion to a provider's value) knows both.

// numberPrec is the precision, in bits, of Terraform's numbers (go-cty's).
const numberPrec = 512

// Number is the canonical value of f: a float64 when formatting it shows
// the value f holds, else a json.Number with f's exact decimal text.
func Number(f *big.Float) any {
	x, _ := f.Float64()
	if f.IsInf() {
		return x
	}
	text := f.Text('f', -1)
	if strconv.FormatFloat(x, 'f', -1, 64) == text {
		return x
	}
	return json.Number(text)
}

// BigFloat is the value of a canonical number (a float64 or a
// json.Number) as Terraform reads it from JSON: its decimal text at 512
// bits (12.4 is 12.4, not the float64 nearest it); ok is false for
// anything else.
func BigFloat(v any) (*big.Float, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return big.NewFloat(0).SetInf(x < 0), !math.IsNaN(x)
		}
		f, _, err := big.ParseFloat(strconv.FormatFloat(x, 'g', -1, 64), 10, numberPrec, big.ToNearestEven)
		return f, err == nil
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, numberPrec, big.ToNearestEven)
		return f, err == nil
	}
	return nil, false
}

// normalNumber is the canonical value of a JSON number's text: a float64
// when it shows the number, else the exact json.Number (see Number);
// text that is no number stays a string.
func normalNumber(n json.Number) any {
	if f, err := n.Float64(); err == nil && strconv.FormatFloat(f, 'f', -1, 64) == string(n) {
		return f // the usual number, on the path of every state read
	}
	f, ok := BigFloat(n)
	if !ok {
		return n.String()
	}
	return Number(f)
}
