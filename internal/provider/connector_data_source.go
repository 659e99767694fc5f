package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

var (
	_ datasource.DataSourceWithConfigure        = (*connectorDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*connectorDataSource)(nil)
)

// NewConnectorDataSource returns the dataintegration_customer_service_connector
// data source.
func NewConnectorDataSource() datasource.DataSource { return &connectorDataSource{} }

type connectorDataSource struct {
	data *providerData
}

func (d *connectorDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_customer_service_connector"
}

func (d *connectorDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "One existing customer-service connector, found by `id` or by exact `name`, with every attribute but its token, which the service never returns.",
		Attributes: withConnectorAttributes(map[string]schema.Attribute{
			"workspace_id": workspaceAttribute("that holds the connector"),
			"id": schema.StringAttribute{
				MarkdownDescription: connectorDescriptions["id"] + " Exactly one of `id` and `name` is required.",
				Optional:            true,
				Computed:            true,
				Validators:          []validator.String{uuidValidator()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The connector's exact name. Exactly one of `id` and `name` is required; " +
					"the lookup fails when no customer-service connector or more than one has this name.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{nameValidator()},
			},
		}),
	}
}

// withConnectorAttributes adds what both connector data sources read and never take.
func withConnectorAttributes(attrs map[string]schema.Attribute) map[string]schema.Attribute {
	for _, a := range []string{"url", "agent_email", "connector_name", "created_at", "updated_at"} {
		attrs[a] = schema.StringAttribute{MarkdownDescription: connectorDescriptions[a], Computed: true}
	}
	attrs["streams"] = schema.ListAttribute{
		MarkdownDescription: connectorDescriptions["streams"] + " In the service's order.",
		ElementType:         types.StringType,
		Computed:            true,
	}
	return attrs
}

func (d *connectorDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name")),
	}
}

func (d *connectorDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *connectorDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m connectorModel
	ws, ok := readStart(ctx, d.data, req.Config, &m, &m.WorkspaceID, &resp.Diagnostics)
	if !ok {
		return
	}

	var c *client.Connector
	if !m.ID.IsNull() {
		c = d.connectorByID(ctx, ws, m.ID.ValueString(), &resp.Diagnostics)
	} else {
		c = connectorByName(ctx, d.data.client, ws, m.Name.ValueString(), &resp.Diagnostics)
	}
	if c == nil {
		return
	}

	id := m.ID
	m.WorkspaceID = types.StringValue(ws)
	m.fill(c)
	if sameID(id.ValueString(), c.ID) {
		m.ID = id // as configured: a UUID's letter case means nothing to the service
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (d *connectorDataSource) connectorByID(ctx context.Context, ws, id string, diags *diag.Diagnostics) *client.Connector {
	c, err := d.data.client.ReadConnector(ctx, ws, id)
	switch {
	case client.IsNotFound(err):
		diags.AddAttributeError(path.Root("id"), "Connector Not Found",
			fmt.Sprintf("No connector has the ID %s in workspace %s.", id, ws))
	case err != nil:
		addRequestError(diags, "Unable to Read Connector", ws, err)
	case checkConnectorKind(c, diags):
		return c
	}
	return nil
}
