package main

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"kyku.test/providers/store"
)

// crashResource's create makes the provider process panic: a crash in
// the middle of an apply. It crashes once per cloud (a marker file
// remembers it): the next run's create succeeds, as after a fixed bug.
type crashResource struct{ s *store.Store }

func (r *crashResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		r.s = s
	}
}

func (r *crashResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_crash"
}

func (r *crashResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"name": schema.StringAttribute{Required: true},
	}}
}

func (r *crashResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.s.CrashOnce() {
		panic("fwtest: crash in the middle of an apply")
	}
	resp.State.Raw = req.Plan.Raw
}
func (r *crashResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse)       {}
func (r *crashResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (r *crashResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// slowResource's create stores the item, then waits until the provider is
// told to stop (or a minute): it answers with the item it created and an
// error, as a real provider does when interrupted mid-operation.
type slowResource struct{ s *store.Store }

type slowModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
}

func (r *slowResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_slow"
}

func (r *slowResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":   schema.StringAttribute{Computed: true},
		"name": schema.StringAttribute{Required: true},
	}}
}

func (r *slowResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		r.s = s
	}
}

func (r *slowResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m slowModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	it, err := r.s.Create(store.Item{Name: m.Name.ValueString()})
	if err != nil {
		resp.Diagnostics.AddError("create", err.Error())
		return
	}
	m.ID = types.StringValue(it.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	select {
	case <-ctx.Done():
		resp.Diagnostics.AddError("interrupted", "the create was interrupted; the item exists")
	case <-time.After(time.Minute):
	}
}
func (r *slowResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse)       {}
func (r *slowResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (r *slowResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// itemData reads an item by name.
type itemData struct{ s *store.Store }

type itemDataModel struct {
	Name  types.String `tfsdk:"name"`
	ID    types.String `tfsdk:"id"`
	Value types.String `tfsdk:"value"`
}

func (d *itemData) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_item"
}

func (d *itemData) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{Attributes: map[string]dschema.Attribute{
		"name":  dschema.StringAttribute{Required: true},
		"id":    dschema.StringAttribute{Computed: true},
		"value": dschema.StringAttribute{Computed: true},
	}}
}

func (d *itemData) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store.Store); ok {
		d.s = s
	}
}

func (d *itemData) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m itemDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	it, err := d.s.ByName(m.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(pathRoot("name"), "no such item", err.Error())
		return
	}
	m.ID = types.StringValue(it.ID)
	m.Value = optional(it.Value)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
