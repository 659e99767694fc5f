package provider

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

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// yardstickEnv, set for a Terraform command, makes the test binary, which
// the command starts as its provider, serve the yardstick instead of
// running tests (see init below).
const yardstickEnv = "DATAINTEGRATION_BENCH_YARDSTICK"

// The yardstick is the least a provider can do for the benchmark's
// 200-connector plan: a framework provider whose connector has the same
// schema as dataintegration_customer_service_connector, less its
// validators and plan modifiers, and reads from memory, making no request.
// Its logs are off, as the provider's are by default. `make bench` runs the
// same plan against it and against the provider, so that the provider's own
// cost is a ratio of two plans of one run.
func init() {
	if os.Getenv(yardstickEnv) == "" {
		return
	}
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_DATAINTEGRATION"} {
		_ = os.Setenv(v, "OFF")
	}
	err := tf6server.Serve("registry.terraform.io/hashicorp/dataintegration",
		providerserver.NewProtocol6(yardstickProvider{}), tf6server.WithGoPluginLogger(hclog.NewNullLogger()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "yardstick:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

type yardstickProvider struct{}

func (yardstickProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "dataintegration"
}

func (yardstickProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (yardstickProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (yardstickProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return yardstickConnector{} }}
}

func (yardstickProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

type yardstickConnector struct{}

func (yardstickConnector) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_customer_service_connector"
}

// Schema is the connector's, each attribute without its validators and
// plan modifiers: what the framework does with the schema alone.
func (yardstickConnector) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	(&connectorResource{}).Schema(ctx, req, resp)
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

func (yardstickConnector) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m connectorResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.ID = types.StringValue("yardstick " + m.Name.ValueString())
	if m.WorkspaceID.IsUnknown() {
		m.WorkspaceID = types.StringValue("yardstick")
	}
	m.ConnectorName = types.StringValue(client.ConnectorKindCustomerService)
	m.CreatedAt = types.StringValue("2026-01-01T00:00:00.000Z")
	m.UpdatedAt = m.CreatedAt
	m.TokenWO = types.StringNull()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read reads the connector from memory, the state, as a provider reads its
// model from it and writes it back.
func (yardstickConnector) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m connectorResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (yardstickConnector) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m connectorResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (yardstickConnector) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
