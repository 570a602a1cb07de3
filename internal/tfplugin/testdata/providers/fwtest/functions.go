package main

import (
	"context"
	"net/netip"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The provider's functions (provider::fwtest::NAME), for Kyku's tests of
// provider-defined functions: a variadic one refusing an argument, one
// returning an object, one taking a list and one taking null.

func (p *fwProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		func() function.Function { return joinUpper{} },
		func() function.Function { return parseCIDR{} },
		func() function.Function { return sumFunc{} },
		func() function.Function { return orDefault{} },
	}
}

// joinUpper joins its arguments after the first, upper-cased, with the
// first between them; an empty separator is refused.
type joinUpper struct{}

func (joinUpper) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "join_upper"
}

func (joinUpper) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:           "Joins strings, upper-cased",
		Parameters:        []function.Parameter{function.StringParameter{Name: "separator"}},
		VariadicParameter: function.StringParameter{Name: "parts"},
		Return:            function.StringReturn{},
	}
}

func (joinUpper) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var sep string
	var parts []string
	resp.Error = req.Arguments.Get(ctx, &sep, &parts)
	if resp.Error != nil {
		return
	}
	if sep == "" {
		resp.Error = function.NewArgumentFuncError(0, "the separator must not be empty")
		return
	}
	resp.Error = resp.Result.Set(ctx, strings.ToUpper(strings.Join(parts, sep)))
}

// parseCIDR splits an IPv4 or IPv6 prefix into its address and length.
type parseCIDR struct{}

var cidrParts = map[string]attr.Type{"address": types.StringType, "bits": types.Int64Type}

func (parseCIDR) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "parse_cidr"
}

func (parseCIDR) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:    "Parses a CIDR prefix",
		Parameters: []function.Parameter{function.StringParameter{Name: "prefix"}},
		Return:     function.ObjectReturn{AttributeTypes: cidrParts},
	}
}

func (parseCIDR) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var s string
	if resp.Error = req.Arguments.Get(ctx, &s); resp.Error != nil {
		return
	}
	pfx, err := netip.ParsePrefix(s)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, "not a CIDR prefix: "+err.Error())
		return
	}
	v, diags := types.ObjectValue(cidrParts, map[string]attr.Value{
		"address": types.StringValue(pfx.Addr().String()),
		"bits":    types.Int64Value(int64(pfx.Bits())),
	})
	if diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	resp.Error = resp.Result.Set(ctx, v)
}

// sumFunc adds a list of numbers.
type sumFunc struct{}

func (sumFunc) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "sum"
}

func (sumFunc) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:    "Adds numbers",
		Parameters: []function.Parameter{function.ListParameter{Name: "numbers", ElementType: types.Int64Type}},
		Return:     function.Int64Return{},
	}
}

func (sumFunc) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var ns []int64
	if resp.Error = req.Arguments.Get(ctx, &ns); resp.Error != nil {
		return
	}
	var total int64
	for _, n := range ns {
		total += n
	}
	resp.Error = resp.Result.Set(ctx, total)
}

// orDefault is its first argument, or its second when the first is null.
type orDefault struct{}

func (orDefault) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "or_default"
}

func (orDefault) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "A value, or a default for null",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "value", AllowNullValue: true},
			function.StringParameter{Name: "default"},
		},
		Return: function.StringReturn{},
	}
}

func (orDefault) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var v types.String
	var def string
	if resp.Error = req.Arguments.Get(ctx, &v, &def); resp.Error != nil {
		return
	}
	if v.IsNull() {
		resp.Error = resp.Result.Set(ctx, def)
		return
	}
	resp.Error = resp.Result.Set(ctx, v.ValueString())
}
