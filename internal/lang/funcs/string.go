package funcs

import (
	"regexp"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// addString adds the string functions; templatestring is in template.go.
func addString(t map[string]function.Function) {
	t["chomp"] = stdlib.ChompFunc
	t["endswith"] = endsWithFunc()
	t["format"] = stdlib.FormatFunc
	t["formatlist"] = stdlib.FormatListFunc
	t["indent"] = stdlib.IndentFunc
	t["join"] = stdlib.JoinFunc
	t["lower"] = stdlib.LowerFunc
	t["regex"] = stdlib.RegexFunc
	t["regexall"] = stdlib.RegexAllFunc
	t["replace"] = replaceFunc()
	t["split"] = stdlib.SplitFunc
	t["startswith"] = startsWithFunc()
	t["strcontains"] = strContainsFunc()
	t["strrev"] = stdlib.ReverseFunc
	t["substr"] = stdlib.SubstrFunc
	t["title"] = stdlib.TitleFunc
	t["trim"] = stdlib.TrimFunc
	t["trimprefix"] = stdlib.TrimPrefixFunc
	t["trimspace"] = stdlib.TrimSpaceFunc
	t["trimsuffix"] = stdlib.TrimSuffixFunc
	t["upper"] = stdlib.UpperFunc
}

func notNull(b *cty.RefinementBuilder) *cty.RefinementBuilder { return b.NotNull() }

func strParam(name string) function.Parameter {
	return function.Parameter{Name: name, Type: cty.String}
}

// startsWithFunc answers even for an unknown string when the prefix
// known of it (a refinement) settles the question.
func startsWithFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "str", Type: cty.String, AllowUnknown: true},
			strParam("prefix"),
		},
		Type:         function.StaticReturnType(cty.Bool),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			prefix := args[1].AsString()
			if args[0].IsKnown() {
				return cty.BoolVal(strings.HasPrefix(args[0].AsString(), prefix)), nil
			}
			if prefix == "" {
				return cty.True, nil
			}
			known := args[0].Range().StringPrefix()
			switch {
			case strings.HasPrefix(known, prefix):
				return cty.True, nil
			case known != "" && len(known) >= len(prefix):
				return cty.False, nil
			}
			return cty.UnknownVal(cty.Bool), nil
		},
	})
}

func endsWithFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("str"), strParam("suffix")},
		Type:         function.StaticReturnType(cty.Bool),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(strings.HasSuffix(args[0].AsString(), args[1].AsString())), nil
		},
	})
}

func strContainsFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{strParam("str"), strParam("substr")},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(strings.Contains(args[0].AsString(), args[1].AsString())), nil
		},
	})
}

// replaceFunc replaces every occurrence of substr; a substr written
// between slashes ("/w.*d/") is a regular expression, and the
// replacement may then refer to its groups ($1, ${name}).
func replaceFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("str"), strParam("substr"), strParam("replace")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			str, substr, repl := args[0].AsString(), args[1].AsString(), args[2].AsString()
			if len(substr) > 1 && strings.HasPrefix(substr, "/") && strings.HasSuffix(substr, "/") {
				re, err := regexp.Compile(substr[1 : len(substr)-1])
				if err != nil {
					return cty.UnknownVal(cty.String), err
				}
				return cty.StringVal(re.ReplaceAllString(str, repl)), nil
			}
			return cty.StringVal(strings.ReplaceAll(str, substr, repl)), nil
		},
	})
}
