package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"kyku.test/providers/store"
)

// latentResource is a cloud whose reads and plans take time: its Read
// and its plan (ModifyPlan) each wait FWTEST_LATENCY (a Go duration,
// e.g. 100ms; none when unset) before answering, as a real cloud's API
// calls do. after, when set, is another object's id: chains of them.
// Benchmarks of what a plan reads (.ci/bench-reads) use it.
type latentResource struct{ s *store.Store }

type latentModel struct {
	ID    types.String `tfsdk:"id"`
	Name  types.String `tfsdk:"name"`
	Value types.String `tfsdk:"value"`
	After types.String `tfsdk:"after"`
}

// latency is how long each read and plan waits.
func latency() time.Duration {
	d, err := time.ParseDuration(os.Getenv("FWTEST_LATENCY"))
	if err != nil || d < 0 {
		return 0
	}
	return d
}

func wait(ctx context.Context) {
	d := latency()
	if d == 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (r *latentResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_latent"
}

func (r *latentResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{Required: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"value": schema.StringAttribute{Optional: true},
		"after": schema.StringAttribute{Optional: true},
	}}
}

func (r *latentResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		r.s = s
	}
}

// ModifyPlan is the plan's round trip to the cloud.
func (r *latentResource) ModifyPlan(ctx context.Context, _ resource.ModifyPlanRequest, _ *resource.ModifyPlanResponse) {
	wait(ctx)
}

var _ resource.ResourceWithModifyPlan = (*latentResource)(nil)

func latentItem(m latentModel) store.Item {
	it := store.Item{ID: m.ID.ValueString(), Name: m.Name.ValueString(), Value: m.Value.ValueString()}
	if a := m.After.ValueString(); a != "" {
		it.Tags = map[string]string{"after": a}
	}
	return it
}

func fromLatent(it store.Item, m *latentModel) {
	m.ID, m.Name, m.Value, m.After = types.StringValue(it.ID), types.StringValue(it.Name), optional(it.Value), optional(it.Tags["after"])
}

func (r *latentResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m latentModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	it, err := r.s.Create(latentItem(m))
	if err != nil {
		resp.Diagnostics.AddError("create", err.Error())
		return
	}
	fromLatent(it, &m)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *latentResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	wait(ctx)
	var m latentModel
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
	fromLatent(it, &m)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *latentResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m latentModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	it, err := r.s.Update(latentItem(m))
	if err != nil {
		resp.Diagnostics.AddError("update", err.Error())
		return
	}
	fromLatent(it, &m)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *latentResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m latentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.s.Delete(m.ID.ValueString()); err != nil && !errors.Is(err, store.ErrNotFound) {
		resp.Diagnostics.AddError("delete", err.Error())
	}
}
