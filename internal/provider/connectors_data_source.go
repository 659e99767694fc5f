package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

var _ datasource.DataSourceWithConfigure = (*connectorsDataSource)(nil)

// NewConnectorsDataSource returns the
// dataintegration_customer_service_connectors data source.
func NewConnectorsDataSource() datasource.DataSource { return &connectorsDataSource{} }

type connectorsDataSource struct {
	data *providerData
}

type connectorsDataSourceModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	Name        types.String `tfsdk:"name"`
	Connectors  types.List   `tfsdk:"connectors"`
}

func (d *connectorsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_customer_service_connectors"
}

func (d *connectorsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The customer-service connectors of a workspace, in the service's order, each with every attribute but its token, " +
			"which the service never returns. Read at plan when its arguments are known, so that `import` blocks can take `for_each` from it.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": workspaceAttribute("whose connectors to list"),
			"name": schema.StringAttribute{
				MarkdownDescription: "Only the connectors named exactly this, in the same letter case; every connector when unset.",
				Optional:            true,
				Validators:          []validator.String{nameValidator()},
			},
			"connectors": schema.ListNestedAttribute{
				MarkdownDescription: "The connectors, in the service's order; an empty list when there is none.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: withConnectorAttributes(map[string]schema.Attribute{
					"id":           schema.StringAttribute{MarkdownDescription: connectorDescriptions["id"], Computed: true},
					"workspace_id": schema.StringAttribute{MarkdownDescription: "The workspace (a UUID) that holds the connector.", Computed: true},
					"name":         schema.StringAttribute{MarkdownDescription: connectorDescriptions["name"], Computed: true},
				})},
			},
		},
	}
}

func (d *connectorsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *connectorsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m connectorsDataSourceModel
	ws, ok := readStart(ctx, d.data, req.Config, &m, &m.WorkspaceID, &resp.Diagnostics)
	if !ok {
		return
	}

	var listed []client.Connector
	var err error
	if m.Name.IsNull() {
		listed, err = d.data.client.WorkspaceConnectors(ctx, ws)
	} else {
		listed, err = d.data.client.ConnectorsNamed(ctx, ws, m.Name.ValueString())
	}
	if err != nil {
		addRequestError(&resp.Diagnostics, "Unable to List Connectors", ws, err)
		return
	}
	// The service's filters may match more loosely than asked.
	_, match := connectorFilter(m.Name.ValueStringPointer())
	found := []connectorModel{}
	for i := range listed {
		if !match(listed[i]) {
			continue
		}
		c := connectorModel{WorkspaceID: types.StringValue(ws)}
		c.fill(&listed[i])
		found = append(found, c)
	}

	m.WorkspaceID = types.StringValue(ws)
	connectors, diags := types.ListValueFrom(ctx, m.Connectors.ElementType(ctx), found)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Connectors = connectors
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
