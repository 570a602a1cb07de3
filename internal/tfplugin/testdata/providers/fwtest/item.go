package main

import (
	"context"
	"errors"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"kyku.test/providers/store"
)

func pathRoot(name string) path.Path { return path.Root(name) }

// itemResource: name forces a replace, value and tags change in place,
// secret is sensitive, id is computed once, revision on every change,
// endpoints is a nested attribute type (protocol 6 only), kept in state;
// aliases is a computed list (the name, and name-ID), known once created.
type itemResource struct{ s *store.Store }

type endpointModel struct {
	Host types.String `tfsdk:"host"`
	Port types.Int64  `tfsdk:"port"`
}

type itemModel struct {
	ID        types.String    `tfsdk:"id"`
	Name      types.String    `tfsdk:"name"`
	Value     types.String    `tfsdk:"value"`
	Secret    types.String    `tfsdk:"secret"`
	Tags      types.Map       `tfsdk:"tags"`
	Revision  types.Int64     `tfsdk:"revision"`
	Endpoints []endpointModel `tfsdk:"endpoints"`
	Aliases   types.List      `tfsdk:"aliases"`
}

func (r *itemResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_item"
}

func (r *itemResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: 1,
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"value":    schema.StringAttribute{Optional: true},
			"secret":   schema.StringAttribute{Optional: true, Sensitive: true},
			"tags":     schema.MapAttribute{Optional: true, ElementType: types.StringType},
			"revision": schema.Int64Attribute{Computed: true},
			"aliases": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()}},
			"endpoints": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{
				Attributes: map[string]schema.Attribute{
					"host": schema.StringAttribute{Required: true},
					"port": schema.Int64Attribute{Optional: true},
				}}},
		},
	}
}

func (r *itemResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		r.s = s
	}
}

// ValidateConfig refuses values the test cloud refuses, at plan time.
func (r *itemResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m itemModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if !m.Value.IsUnknown() && strings.Contains(m.Value.ValueString(), " ") {
		resp.Diagnostics.AddAttributeError(path.Root("value"), "Invalid value", "the test cloud refuses spaces in value")
	}
}

var _ resource.ResourceWithValidateConfig = (*itemResource)(nil)
var _ resource.ResourceWithImportState = (*itemResource)(nil)

func toItem(ctx context.Context, m itemModel) store.Item {
	it := store.Item{ID: m.ID.ValueString(), Name: m.Name.ValueString(), Value: m.Value.ValueString(), Secret: m.Secret.ValueString()}
	if !m.Tags.IsNull() && !m.Tags.IsUnknown() {
		it.Tags = map[string]string{}
		m.Tags.ElementsAs(ctx, &it.Tags, false)
	}
	return it
}

func fromItem(it store.Item, m *itemModel) {
	m.ID = types.StringValue(it.ID)
	m.Name = types.StringValue(it.Name)
	m.Value = optional(it.Value)
	m.Secret = optional(it.Secret)
	m.Revision = types.Int64Value(it.Revision)
	m.Aliases = types.ListValueMust(types.StringType, []attr.Value{types.StringValue(it.Name), types.StringValue(it.Name + "-" + it.ID)})
	if len(it.Tags) == 0 {
		m.Tags = types.MapNull(types.StringType)
	} else {
		vals := map[string]attr.Value{}
		for k, v := range it.Tags {
			vals[k] = types.StringValue(v)
		}
		m.Tags = types.MapValueMust(types.StringType, vals)
	}
}

func optional(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func (r *itemResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m itemModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	it, err := r.s.Create(toItem(ctx, m))
	if err != nil {
		resp.Diagnostics.AddError("create", err.Error())
		return
	}
	fromItem(it, &m)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *itemResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m itemModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	it, err := r.s.Get(m.ID.ValueString())
	if errors.Is(err, store.ErrNotFound) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("read", err.Error())
		return
	}
	fromItem(it, &m)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *itemResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m itemModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	it, err := r.s.Update(toItem(ctx, m))
	if err != nil {
		resp.Diagnostics.AddError("update", err.Error())
		return
	}
	fromItem(it, &m)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *itemResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m itemModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.s.Delete(m.ID.ValueString()); err != nil && !errors.Is(err, store.ErrNotFound) {
		resp.Diagnostics.AddError("delete", err.Error())
	}
}

func (r *itemResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
