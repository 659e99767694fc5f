package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
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

type connectorDataSourceModel struct {
	WorkspaceID   types.String `tfsdk:"workspace_id"`
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	URL           types.String `tfsdk:"url"`
	AgentEmail    types.String `tfsdk:"agent_email"`
	Streams       types.List   `tfsdk:"streams"`
	ConnectorName types.String `tfsdk:"connector_name"`
	CreatedAt     types.String `tfsdk:"created_at"`
	UpdatedAt     types.String `tfsdk:"updated_at"`
}

func (d *connectorDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_customer_service_connector"
}

func (d *connectorDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(attr string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: connectorDescriptions[attr], Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One existing customer-service connector, found by `id` or by exact `name`, with every attribute but its token, which the service never returns.",
		Attributes: map[string]schema.Attribute{
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
			"url":         computed("url"),
			"agent_email": computed("agent_email"),
			"streams": schema.ListAttribute{
				MarkdownDescription: connectorDescriptions["streams"] + " In the service's order.",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"connector_name": computed("connector_name"),
			"created_at":     computed("created_at"),
			"updated_at":     computed("updated_at"),
		},
	}
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
	var m connectorDataSourceModel
	ws, ok := d.data.readConfig(ctx, req, &m, &resp.Diagnostics)
	if !ok {
		return
	}

	var c *client.Connector
	if !m.ID.IsNull() {
		got, err := d.data.client.GetConnector(ctx, ws, m.ID.ValueString())
		if client.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(path.Root("id"), "Connector Not Found",
				fmt.Sprintf("No connector has the ID %s in workspace %s.", m.ID.ValueString(), ws))
			return
		}
		if err != nil {
			addRequestError(&resp.Diagnostics, "Unable to Read Connector", ws, err)
			return
		}
		if !checkConnectorKind(got, &resp.Diagnostics) {
			return
		}
		c = got
	} else {
		name := m.Name.ValueString()
		kind := client.ConnectorKindCustomerService
		all, err := d.data.client.ListConnectors(ctx, ws, client.ConnectorFilter{Name: &name, ConnectorName: &kind})
		if err != nil {
			addRequestError(&resp.Diagnostics, "Unable to List Connectors", ws, err)
			return
		}
		// The service's matching rules are not published: keep exact matches.
		var found []client.Connector
		var ids []string
		for _, x := range all {
			if x.Name == name && x.ConnectorName == kind {
				found = append(found, x)
				ids = append(ids, x.ID)
			}
		}
		switch len(found) {
		case 0:
			resp.Diagnostics.AddAttributeError(path.Root("name"), "Connector Not Found",
				fmt.Sprintf("No customer-service connector is named %q in workspace %s.", name, ws))
			return
		case 1:
			c = &found[0]
		default:
			resp.Diagnostics.AddAttributeError(path.Root("name"), "Several Connectors Match",
				fmt.Sprintf("%d customer-service connectors are named %q in workspace %s (IDs %s): look the connector up by id instead.",
					len(found), name, ws, strings.Join(ids, ", ")))
			return
		}
	}

	id := types.StringValue(c.ID)
	if sameID(m.ID.ValueString(), c.ID) {
		id = m.ID // as configured: a UUID's letter case means nothing to the service
	}
	m = connectorDataSourceModel{
		WorkspaceID:   types.StringValue(ws),
		ID:            id,
		Name:          types.StringValue(c.Name),
		URL:           types.StringValue(c.Configuration.URL),
		AgentEmail:    types.StringValue(c.Configuration.AgentEmail),
		Streams:       stringList(c.Streams),
		ConnectorName: types.StringValue(c.ConnectorName),
		CreatedAt:     types.StringValue(c.CreatedAt),
		UpdatedAt:     types.StringValue(c.UpdatedAt),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
