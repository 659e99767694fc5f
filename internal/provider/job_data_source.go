package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

var (
	_ datasource.DataSourceWithConfigure        = (*jobDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*jobDataSource)(nil)
)

// NewJobDataSource returns the dataintegration_job data source.
func NewJobDataSource() datasource.DataSource { return &jobDataSource{} }

type jobDataSource struct {
	data *providerData
}

type jobDataSourceModel struct {
	WorkspaceID   types.String `tfsdk:"workspace_id"`
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	DataSource    types.String `tfsdk:"data_source"`
	ConnectorName types.String `tfsdk:"connector_name"`
	SchemaName    types.String `tfsdk:"schema_name"`
	IsActive      types.Bool   `tfsdk:"is_active"`
	CreatedAt     types.String `tfsdk:"created_at"`
	UpdatedAt     types.String `tfsdk:"updated_at"`
}

func (d *jobDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job"
}

func (d *jobDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := jobAttributes()
	attrs["workspace_id"] = workspaceAttribute("of the job")
	attrs["id"] = schema.StringAttribute{
		MarkdownDescription: "The job's ID (a UUID). Exactly one of `id` and `name` is required. " +
			"A UUID in any letter case finds the job, and `id` keeps the form written. " +
			"The API has no single-job endpoint: the job is found by reading the list page by page until it appears. " +
			"The lookups by `id` of one plan or apply share one pass over the pages.",
		Optional:   true,
		Computed:   true,
		Validators: []validator.String{uuidValidator()},
	}
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "The job's exact name. Exactly one of `id` and `name` is required. " +
			"The lookup uses the service's `name` filter and fails when no job or more than one job has this name. " +
			"A blank name is refused at plan; spaces at either end are part of the name.",
		Optional:   true,
		Computed:   true,
		Validators: []validator.String{jobNameValidator()},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One job of a workspace, found by `id` or by `name`.",
		Attributes:          attrs,
	}
}

func (d *jobDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name")),
	}
}

func (d *jobDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *jobDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m jobDataSourceModel
	ws, ok := d.data.readConfig(ctx, req, &m, &resp.Diagnostics)
	if !ok {
		return
	}
	var found []client.Job
	var err error
	if !m.ID.IsNull() {
		id := m.ID.ValueString()
		var j *client.Job
		if j, err = d.data.jobs.find(ctx, d.data.client, ws, id); j != nil {
			found = append(found, *j)
		}
		if err == nil && len(found) == 0 {
			resp.Diagnostics.AddAttributeError(path.Root("id"), "Job Not Found",
				fmt.Sprintf("No job has the ID %s in workspace %s.", id, ws))
			return
		}
	} else {
		name := m.Name.ValueString()
		found, err = jobsByName(ctx, d.data.client, ws, name)
		if err == nil && len(found) != 1 {
			addNameMatchError(&resp.Diagnostics, path.Root("name"), name, ws, found)
			return
		}
	}
	if err != nil {
		addRequestError(&resp.Diagnostics, "Unable to List Jobs", ws, err)
		return
	}

	j := newJobModel(found[0])
	if !m.ID.IsNull() {
		// The same UUID in the configuration's letter case, so that what
		// uses it sees what was written.
		j.ID = m.ID
	}
	m = jobDataSourceModel{
		WorkspaceID: types.StringValue(ws), ID: j.ID, Name: j.Name, DataSource: j.DataSource,
		ConnectorName: j.ConnectorName, SchemaName: j.SchemaName, IsActive: j.IsActive,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt,
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
