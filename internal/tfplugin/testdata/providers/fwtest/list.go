package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"kyku.test/providers/store"
)

// listData (TP_list) lists the items whose name starts with prefix:
// their names (a list) and their values by name (a map).
type listData struct{ s *store.Store }

type listModel struct {
	Prefix types.String `tfsdk:"prefix"`
	Names  types.List   `tfsdk:"names"`
	Values types.Map    `tfsdk:"values"`
}

func (d *listData) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_list"
}

func (d *listData) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{Attributes: map[string]dschema.Attribute{
		"prefix": dschema.StringAttribute{Optional: true},
		"names":  dschema.ListAttribute{Computed: true, ElementType: types.StringType},
		"values": dschema.MapAttribute{Computed: true, ElementType: types.StringType},
	}}
}

func (d *listData) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		d.s = s
	}
}

func (d *listData) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m listModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	items, err := d.s.Named(m.Prefix.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("list", err.Error())
		return
	}
	names := []attr.Value{}
	values := map[string]attr.Value{}
	for _, it := range items {
		names = append(names, types.StringValue(it.Name))
		values[it.Name] = types.StringValue(it.Value)
	}
	m.Names = types.ListValueMust(types.StringType, names)
	m.Values = types.MapValueMust(types.StringType, values)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
