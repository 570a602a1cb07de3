package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"kyku.test/providers/store"
)

type fwProvider struct{}

func newProvider() provider.Provider { return &fwProvider{} }

func (p *fwProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "fwtest"
	resp.Version = "0.1.0"
}

func (p *fwProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"dir":   schema.StringAttribute{Required: true, Description: "directory of the test cloud"},
		"token": schema.StringAttribute{Optional: true, Sensitive: true},
	}}
}

type providerModel struct {
	Dir   types.String `tfsdk:"dir"`
	Token types.String `tfsdk:"token"`
}

func (p *fwProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	if missingCredentials(resp) {
		return
	}
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Token.ValueString() == "wrong" {
		resp.Diagnostics.AddAttributeError(pathRoot("token"), "Invalid token", "the test cloud refuses this token")
		return
	}
	s := &store.Store{Dir: m.Dir.ValueString()}
	resp.ResourceData = s
	resp.DataSourceData = s
}

func (p *fwProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &itemResource{} },
		func() resource.Resource { return &crashResource{} },
		func() resource.Resource { return &slowResource{} },
		func() resource.Resource { return &passwordResource{} },
		func() resource.Resource { return &secretResource{} }, func() resource.Resource { return &echoResource{} },
		func() resource.Resource { return &escapeResource{} },
		func() resource.Resource { return &latentResource{} },
		func() resource.Resource { return &heldResource{} },
	}
}

func (p *fwProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return &itemData{} },
		func() datasource.DataSource { return &listData{} }, func() datasource.DataSource { return &escapeData{} }}
}
