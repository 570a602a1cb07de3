package main

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// passwordResource is random_password's shape: its import ID is the
// password itself, its id is always "none", so importing again by the id
// gives another object (the password "none"). length and keepers force a
// replace; result is sensitive. Nothing lives in the test cloud. An
// import sets keepers to an empty map, as time_static sets its triggers:
// a configuration without keepers then replaces it.
type passwordResource struct{}

type passwordModel struct {
	ID      types.String `tfsdk:"id"`
	Length  types.Int64  `tfsdk:"length"`
	Keepers types.Map    `tfsdk:"keepers"`
	Result  types.String `tfsdk:"result"`
}

func (r *passwordResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_password"
}

func (r *passwordResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"length": schema.Int64Attribute{Required: true,
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()}},
		"keepers": schema.MapAttribute{Optional: true, ElementType: types.StringType,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()}},
		"result": schema.StringAttribute{Computed: true, Sensitive: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
	}}
}

func (r *passwordResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m passwordModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = types.StringValue("none")
	m.Result = types.StringValue(strings.Repeat("k", int(m.Length.ValueInt64())))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *passwordResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	resp.State.Raw = req.State.Raw
}

func (r *passwordResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *passwordResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

func (r *passwordResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	m := passwordModel{
		ID: types.StringValue("none"), Length: types.Int64Value(int64(len(req.ID))),
		Keepers: types.MapValueMust(types.StringType, map[string]attr.Value{}), Result: types.StringValue(req.ID),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

var _ resource.ResourceWithImportState = (*passwordResource)(nil)
