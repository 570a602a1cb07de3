package main

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"kyku.test/providers/store"
)

// heldResource's create stores the item, then holds its answer for hold
// (a Go duration) before giving it: the window in which a client killed
// loses the answer of a create the cloud made (the journal keeper's tests).
type heldResource struct{ s *store.Store }

type heldModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
	Hold types.String `tfsdk:"hold"`
}

func (r *heldResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_held"
}

func (r *heldResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":   schema.StringAttribute{Computed: true},
		"name": schema.StringAttribute{Required: true},
		"hold": schema.StringAttribute{Optional: true},
	}}
}

func (r *heldResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		r.s = s
	}
}

func (r *heldResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m heldModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	it, err := r.s.Create(store.Item{Name: m.Name.ValueString()})
	if err != nil {
		resp.Diagnostics.AddError("create", err.Error())
		return
	}
	m.ID = types.StringValue(it.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	if d, err := time.ParseDuration(m.Hold.ValueString()); err == nil {
		time.Sleep(d)
	}
}

func (r *heldResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m heldModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if _, err := r.s.Get(m.ID.ValueString()); err != nil {
		resp.State.RemoveResource(ctx)
	}
}

func (r *heldResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(resp.State.Set(ctx, req.Plan)...)
}

func (r *heldResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m heldModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	_ = r.s.Delete(m.ID.ValueString())
}
