package provider

import (
	"context"
	"math"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

var (
	_ list.ListResource              = (*connectorListResource)(nil)
	_ list.ListResourceWithConfigure = (*connectorListResource)(nil)
)

// NewConnectorListResource returns the dataintegration_customer_service_connector
// list resource, for `terraform query`.
func NewConnectorListResource() list.ListResource { return &connectorListResource{} }

type connectorListResource struct {
	data *providerData
}

type connectorListModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	Name        types.String `tfsdk:"name"`
}

func (r *connectorListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_customer_service_connector"
}

func (r *connectorListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Lists the customer-service connectors of a workspace for `terraform query` (Terraform 1.14 or later), " +
			"to adopt them with `-generate-config-out`.",
		Attributes: map[string]listschema.Attribute{
			"workspace_id": listschema.StringAttribute{
				MarkdownDescription: "The workspace (a UUID) whose connectors are listed. Defaults to the provider's `workspace_id`; one of the two is required.",
				Optional:            true,
				Validators:          []validator.String{uuidValidator()},
			},
			"name": listschema.StringAttribute{
				MarkdownDescription: "A connector's exact name: only the connectors named so are listed. Not blank; every connector when left out.",
				Optional:            true,
				Validators:          []validator.String{nameValidator()},
			},
		},
	}
}

func (r *connectorListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// List asks no page that the query's limit cannot need.
func (r *connectorListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg connectorListModel
	diags := req.Config.Get(ctx, &cfg)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	ws := r.data.workspace(cfg.WorkspaceID, &diags)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	f, match := connectorFilter(cfg.Name.ValueStringPointer())
	stream.Results = func(push func(list.ListResult) bool) {
		// Collected before any is pushed: a list read again could not take back what was pushed.
		v, found := client.Collect(match, int(min(max(req.Limit, 0), math.MaxInt32)))
		if err := r.data.client.EachConnectorPage(ctx, ws, f, v); err != nil {
			var d diag.Diagnostics
			addRequestError(&d, "Unable to List Connectors", ws, err)
			push(list.ListResult{Diagnostics: d})
			return
		}
		for i := range *found {
			if !push(connectorListResult(ctx, req, ws, &(*found)[i])) {
				return
			}
		}
	}
}

func connectorListResult(ctx context.Context, req list.ListRequest, ws string, c *client.Connector) list.ListResult {
	res := req.NewListResult(ctx)
	res.DisplayName = c.Name
	m := connectorResourceModel{connectorModel: connectorModel{WorkspaceID: types.StringValue(ws)}}
	m.fill(c)
	setConnectorIdentity(ctx, nil, res.Identity, m.connectorModel, &res.Diagnostics)
	if req.IncludeResource {
		res.Diagnostics.Append(res.Resource.Set(ctx, &m)...)
	}
	return res
}
