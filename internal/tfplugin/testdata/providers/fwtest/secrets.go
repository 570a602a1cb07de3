package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"kyku.test/providers/store"
)

// secretResource generates a secret (result, sensitive, as
// random_password's) and takes a write-only one (password_wo, as
// aws_db_instance's): the test cloud records only the sha256 of what it
// received (store.Item.Received); password_wo_version changes in place
// and sends it again. A password_wo holding "weak" is refused, quoted.
type secretResource struct{ s *store.Store }

type secretModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	Result    types.String `tfsdk:"result"`
	WO        types.String `tfsdk:"password_wo"`
	WOVersion types.Int64  `tfsdk:"password_wo_version"`
}

func (r *secretResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_secret"
}

func (r *secretResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, PlanModifiers: keep},
		"name": schema.StringAttribute{Required: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"result":              schema.StringAttribute{Computed: true, Sensitive: true, PlanModifiers: keep},
		"password_wo":         schema.StringAttribute{Optional: true, WriteOnly: true},
		"password_wo_version": schema.Int64Attribute{Optional: true},
	}}
}

func (r *secretResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		r.s = s
	}
}

func (r *secretResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m secretModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	var wo types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &wo)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if strings.Contains(wo.ValueString(), "weak") {
		resp.Diagnostics.AddError("create", fmt.Sprintf("the test cloud refuses password %q: too weak", wo.ValueString()))
		return
	}
	it, err := r.s.Create(store.Item{Name: m.Name.ValueString(), Secret: store.Generated(m.Name.ValueString()), Received: store.Digest(wo.ValueString())})
	if err != nil {
		resp.Diagnostics.AddError("create", err.Error())
		return
	}
	m.ID, m.Result = types.StringValue(it.ID), types.StringValue(it.Secret)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *secretResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m secretModel
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
	m.Name, m.Result = types.StringValue(it.Name), types.StringValue(it.Secret)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *secretResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m secretModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	var wo types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &wo)...)
	if resp.Diagnostics.HasError() {
		return
	}
	it, err := r.s.Get(m.ID.ValueString())
	if err == nil {
		it.Received = store.Digest(wo.ValueString())
		it, err = r.s.Update(it)
	}
	if err != nil {
		resp.Diagnostics.AddError("update", err.Error())
		return
	}
	m.Result = types.StringValue(it.Secret)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *secretResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m secretModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.s.Delete(m.ID.ValueString()); err != nil && !errors.Is(err, store.ErrNotFound) {
		resp.Diagnostics.AddError("delete", err.Error())
	}
}

// echoResource quotes its input in its errors, as a cloud API echoing
// the request it refuses: refuse: true makes its create fail, and a plan
// that changes its input is refused, quoting the old and the new one.
type echoResource struct{ s *store.Store }

type echoModel struct {
	ID     types.String `tfsdk:"id"`
	Input  types.String `tfsdk:"input"`
	Refuse types.Bool   `tfsdk:"refuse"`
}

var _ resource.ResourceWithModifyPlan = (*echoResource)(nil)

func (r *echoResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_echo"
}

func (r *echoResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"input":  schema.StringAttribute{Optional: true},
		"refuse": schema.BoolAttribute{Optional: true},
	}}
}

func (r *echoResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		r.s = s
	}
}

func (r *echoResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var prior, planned echoModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	resp.Diagnostics.Append(req.Plan.Get(ctx, &planned)...)
	if resp.Diagnostics.HasError() || planned.Input.IsUnknown() || prior.Input.Equal(planned.Input) {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("input"), "input is fixed",
		fmt.Sprintf("the test cloud cannot change input from %q to %q", prior.Input.ValueString(), planned.Input.ValueString()))
}

func (r *echoResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m echoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in := m.Input.ValueString()
	if m.Refuse.ValueBool() {
		resp.Diagnostics.AddError("create", fmt.Sprintf("the test cloud refuses input %q (it echoes it: %s)", in, in))
		return
	}
	it, err := r.s.Create(store.Item{Name: "echo", Value: in})
	if err != nil {
		resp.Diagnostics.AddError("create", err.Error())
		return
	}
	m.ID = types.StringValue(it.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *echoResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m echoModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, err := r.s.Get(m.ID.ValueString()); errors.Is(err, store.ErrNotFound) {
		resp.State.RemoveResource(ctx)
	}
}

func (r *echoResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *echoResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m echoModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.s.Delete(m.ID.ValueString()); err != nil && !errors.Is(err, store.ErrNotFound) {
		resp.Diagnostics.AddError("delete", err.Error())
	}
}
