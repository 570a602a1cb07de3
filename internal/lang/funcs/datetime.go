package funcs

import (
	"errors"
	"fmt"
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// addDatetime adds the date and time functions; plantimestamp is added
// by Table outside the console.
func addDatetime(t map[string]function.Function, opts Options) {
	t["formatdate"] = stdlib.FormatDateFunc
	t["timeadd"] = stdlib.TimeAddFunc
	t["timecmp"] = timeCmpFunc()
	t["timestamp"] = timestampFunc(opts.Now)
}

// timestampFunc is the clock's time in UTC, RFC 3339; unknown without a
// clock.
func timestampFunc(now func() time.Time) function.Function {
	return function.New(&function.Spec{
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			if now == nil {
				return cty.UnknownVal(cty.String), nil
			}
			return cty.StringVal(now().UTC().Format(time.RFC3339)), nil
		},
	})
}

// planTimestampFunc is the time the plan started, the same for every
// call in the plan; unknown before there is a plan.
func planTimestampFunc(at time.Time) function.Function {
	return function.New(&function.Spec{
		Type: function.StaticReturnType(cty.String),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			if at.IsZero() {
				return cty.UnknownVal(cty.String), nil
			}
			return cty.StringVal(at.Format(time.RFC3339)), nil
		},
	})
}

// timeCmpFunc compares two RFC 3339 timestamps as instants: -1, 0 or 1.
func timeCmpFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("timestamp_a"), strParam("timestamp_b")},
		Type:         function.StaticReturnType(cty.Number),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			var ts [2]time.Time
			for i := range ts {
				t, err := parseRFC3339(args[i].AsString())
				if err != nil {
					return cty.UnknownVal(cty.Number), function.NewArgError(i, err)
				}
				ts[i] = t
			}
			return cty.NumberIntVal(int64(ts[0].Compare(ts[1]))), nil
		},
	})
}

// segmentName names a part of time.RFC3339's layout for messages.
func segmentName(layout string) string {
	switch layout {
	case "2006":
		return "year"
	case "01":
		return "month"
	case "02":
		return "day of month"
	case "15":
		return "hour"
	case "04":
		return "minute"
	case "05":
		return "second"
	case "Z07:00":
		return "UTC offset"
	}
	return "timestamp segment"
}

// parseRFC3339 parses a timestamp, saying which part is wrong.
func parseRFC3339(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	var pe *time.ParseError
	if err == nil || !errors.As(err, &pe) {
		return t, err
	}
	const bad = "not a valid RFC3339 timestamp"
	if pe.LayoutElem == "" && pe.ValueElem == "" && pe.Message != "" {
		return t, fmt.Errorf("%s: %w", bad, err)
	}
	switch pe.LayoutElem {
	case "T":
		return t, fmt.Errorf("%s: missing required time introducer 'T'", bad)
	case ":", "-":
		if pe.ValueElem == "" {
			return t, fmt.Errorf("%s: end of string where %q is expected", bad, pe.LayoutElem)
		}
		return t, fmt.Errorf("%s: found %q where %q is expected", bad, pe.ValueElem, pe.LayoutElem)
	}
	what := segmentName(pe.LayoutElem)
	if pe.ValueElem == "" {
		return t, fmt.Errorf("%s: end of string before %s", bad, what)
	}
	return t, fmt.Errorf("%s: cannot use %q as %s", bad, pe.ValueElem, what)
}
