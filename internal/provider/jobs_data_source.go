package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/jobsfastpath"
)

var _ datasource.DataSourceWithConfigure = (*jobsDataSource)(nil)

// NewJobsDataSource returns the dataintegration_jobs data source.
func NewJobsDataSource() datasource.DataSource { return &jobsDataSource{} }

type jobsDataSource struct {
	data *providerData
}

type jobsDataSourceModel struct {
	WorkspaceID   types.String `tfsdk:"workspace_id"`
	ConnectorName types.String `tfsdk:"connector_name"`
	DataSource    types.String `tfsdk:"data_source"`
	Name          types.String `tfsdk:"name"`
	SchemaName    types.String `tfsdk:"schema_name"`
	IsActive      types.Bool   `tfsdk:"is_active"`
	Ordering      types.String `tfsdk:"ordering"`
	Jobs          types.List   `tfsdk:"jobs"`
	IDs           types.List   `tfsdk:"ids"`
}

func (d *jobsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_jobs"
}

func (d *jobsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	filter := func(field string) schema.StringAttribute {
		return schema.StringAttribute{
			MarkdownDescription: "Only jobs whose `" + field + "` matches this value, as the service's filter matches (the sandbox's: exactly). " +
				"Not blank: leave it out for any.",
			Optional:   true,
			Validators: []validator.String{notBlank("a value with a character that shows; leave it out to list jobs of any " + field)},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The jobs of a workspace, filtered and ordered by the service. " +
			"Every page is read, 100 jobs per request, so the result holds every matching job.",
		Attributes: map[string]schema.Attribute{
			"workspace_id":   workspaceAttribute("whose jobs to list"),
			"connector_name": filter("connector_name"),
			"data_source":    filter("data_source"),
			"name":           filter("name"),
			"schema_name":    filter("schema_name"),
			"is_active": schema.BoolAttribute{
				MarkdownDescription: "Only active jobs when `true`, only inactive ones when `false`; both when unset.",
				Optional:            true,
			},
			"ordering": schema.StringAttribute{
				MarkdownDescription: "The field to order the jobs by, passed to the service as it is, such as `\"name\"` " +
					"(the sandbox takes fields separated by commas, `-` in front for descending). Not blank: leave it out for the service's order.",
				Optional:   true,
				Validators: []validator.String{notBlank("a value with a character that shows; leave it out for the service's order")},
			},
			"jobs": schema.ListNestedAttribute{
				MarkdownDescription: "The matching jobs, in the service's order.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: jobAttributes()},
			},
			"ids": schema.ListAttribute{
				MarkdownDescription: "The IDs of `jobs`, in the same order.",
				Computed:            true,
				ElementType:         types.StringType,
			},
		},
	}
}

func (d *jobsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// Read is the plain read that the jobs fast path stands in for; the tests hold the
// fast path to it, state for state.
func (d *jobsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m jobsDataSourceModel
	// No job is an empty list, not a null one.
	jobs := jobModels{jobs: []jobModel{}, ids: []types.String{}}
	resp.Diagnostics.Append(readJobs(ctx, d.data, req.Config, &m, &jobs)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var diags diag.Diagnostics
	m.Jobs, diags = types.ListValueFrom(ctx, m.Jobs.ElementType(ctx), jobs.jobs)
	resp.Diagnostics.Append(diags...)
	m.IDs, diags = types.ListValueFrom(ctx, m.IDs.ElementType(ctx), jobs.ids)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// readJobs reads config into m and the jobs it selects into sink, for Read and
// the fast path alike.
func readJobs(ctx context.Context, data *providerData, config tfsdk.Config, m *jobsDataSourceModel, sink jobsfastpath.Sink) diag.Diagnostics {
	var diags diag.Diagnostics
	ws, ok := readStart(ctx, data, config, m, &m.WorkspaceID, &diags)
	if !ok {
		return diags
	}
	f := client.JobFilter{
		ConnectorName: m.ConnectorName.ValueStringPointer(),
		DataSource:    m.DataSource.ValueStringPointer(),
		Name:          m.Name.ValueStringPointer(),
		SchemaName:    m.SchemaName.ValueStringPointer(),
		IsActive:      m.IsActive.ValueBoolPointer(),
		Ordering:      m.Ordering.ValueString(),
	}
	if err := data.client.EachJobPage(ctx, ws, f, client.Visitor[client.Job]{Page: sink.Add, Reset: sink.Reset}); err != nil {
		addRequestError(&diags, "Unable to List Jobs", ws, err)
		return diags
	}
	m.WorkspaceID = types.StringValue(ws)
	return diags
}

type jobModels struct {
	jobs []jobModel
	ids  []types.String
}

func (l *jobModels) Reset() { l.jobs, l.ids = l.jobs[:0], l.ids[:0] }

func (l *jobModels) Add(page []client.Job) int {
	for i := range page {
		j := newJobModel(page[i])
		l.jobs = append(l.jobs, j)
		l.ids = append(l.ids, j.ID)
	}
	return client.All
}
