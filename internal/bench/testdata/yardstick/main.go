// Command yardstick is the least a provider can do for `make bench`'s plan of
// 200 connectors: the connector's schema without validators or plan modifiers,
// read from the state, logs off. The plan's ratio to the provider's is the
// provider's own cost per resource. Under testdata, builds and linters skip it.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	dataintegration "github.com/dataintegration/terraform-provider-dataintegration/internal/provider"
)

func main() {
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_DATAINTEGRATION"} {
		_ = os.Setenv(v, "OFF")
	}
	err := tf6server.Serve("registry.terraform.io/hashicorp/dataintegration",
		providerserver.NewProtocol6(yardstickProvider{}), tf6server.WithGoPluginLogger(hclog.NewNullLogger()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "yardstick:", err)
		os.Exit(1)
	}
}

type yardstickProvider struct{}

func (yardstickProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "dataintegration"
}

func (yardstickProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (yardstickProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (yardstickProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return connector{} }}
}

func (yardstickProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

type connector struct{}

type model struct {
	ID             types.String `tfsdk:"id"`
	WorkspaceID    types.String `tfsdk:"workspace_id"`
	Name           types.String `tfsdk:"name"`
	URL            types.String `tfsdk:"url"`
	AgentEmail     types.String `tfsdk:"agent_email"`
	Token          types.String `tfsdk:"token"`
	TokenWO        types.String `tfsdk:"token_wo"`
	TokenWOVersion types.Number `tfsdk:"token_wo_version"`
	Streams        types.List   `tfsdk:"streams"`
	ConnectorName  types.String `tfsdk:"connector_name"`
	CreatedAt      types.String `tfsdk:"created_at"`
	UpdatedAt      types.String `tfsdk:"updated_at"`
}

func (connector) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_customer_service_connector"
}

// Schema is what the framework does with the connector's schema alone.
func (connector) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	dataintegration.NewConnectorResource().Schema(ctx, req, resp)
	for name, a := range resp.Schema.Attributes {
		switch a := a.(type) {
		case schema.StringAttribute:
			a.Validators, a.PlanModifiers = nil, nil
			resp.Schema.Attributes[name] = a
		case schema.NumberAttribute:
			a.Validators, a.PlanModifiers = nil, nil
			resp.Schema.Attributes[name] = a
		case schema.ListAttribute:
			a.Validators, a.PlanModifiers = nil, nil
			resp.Schema.Attributes[name] = a
		default:
			resp.Diagnostics.AddError("Yardstick", fmt.Sprintf("attribute %s: %T is not stripped", name, a))
		}
	}
}

func (connector) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.ID = types.StringValue("yardstick " + m.Name.ValueString())
	if m.WorkspaceID.IsUnknown() {
		m.WorkspaceID = types.StringValue("yardstick")
	}
	m.ConnectorName = types.StringValue("customer-service")
	m.CreatedAt = types.StringValue("2026-01-01T00:00:00.000Z")
	m.UpdatedAt = m.CreatedAt
	m.TokenWO = types.StringNull()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read makes no request: the model from the state, written back.
func (connector) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m model
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (connector) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (connector) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
