package provider

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
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
			MarkdownDescription: "Only jobs whose `" + field + "` matches this value. The service applies the filter; the sandbox matches exactly and case-sensitively. " +
				"An empty or blank value is refused at plan: leave it out to list jobs of any `" + field + "`.",
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
				MarkdownDescription: "The field to order the jobs by, passed to the service as it is, such as `\"name\"`. " +
					"With the sandbox: one or more job fields separated by commas, `-` in front for descending (`\"-name\"`); " +
					"an unknown field is an error from the service. Unset: the service's order. " +
					"An empty or blank value is refused at plan: leave it out for the service's order.",
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

func (d *jobsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	typ, ok := req.Config.Raw.Type().(tftypes.Object)
	values, okJobs := newJobValues(typ)
	if !ok || !okJobs {
		resp.Diagnostics.AddError("Unexpected Configuration", fmt.Sprintf("The configuration's type %s is not the schema's.", req.Config.Raw.Type()))
		return
	}
	attrs, diags := readJobs(ctx, d.data, req.Config, values)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	attrs["jobs"] = tftypes.NewValue(values.listType, values.jobs)
	attrs["ids"] = tftypes.NewValue(typ.AttributeTypes["ids"], values.ids)
	resp.State.Raw = tftypes.NewValue(typ, attrs)
}

// jobSink receives the jobs of a read, page by page, in order.
type jobSink interface {
	// add takes a page; it always asks for every job (client.All).
	add(page []client.Job) int
	// reset forgets the jobs added: the list is read again.
	reset()
}

// readJobs reads the jobs a dataintegration_jobs of configuration config
// selects, in the service's order, into sink, and returns the other
// attributes of its state: the configuration's, with its workspace. Both
// the framework's read and fastJobs, which serves it without the
// framework, call it.
func readJobs(ctx context.Context, data *providerData, config tfsdk.Config, sink jobSink) (map[string]tftypes.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	var m jobsDataSourceModel
	diags.Append(config.Get(ctx, &m)...)
	if diags.HasError() {
		return nil, diags
	}
	ws := data.workspace(m.WorkspaceID, &diags)
	if diags.HasError() {
		return nil, diags
	}
	f := client.JobFilter{
		ConnectorName: m.ConnectorName.ValueStringPointer(),
		DataSource:    m.DataSource.ValueStringPointer(),
		Name:          m.Name.ValueStringPointer(),
		SchemaName:    m.SchemaName.ValueStringPointer(),
		IsActive:      m.IsActive.ValueBoolPointer(),
		Ordering:      m.Ordering.ValueString(),
	}
	// The jobs go into the state page by page as the pages arrive, not
	// through the framework's reflection over a model: that took the read
	// of 10,000 jobs from 1.7 s to 1.2 s (BENCHMARKS.md).
	if err := data.client.EachJobPage(ctx, ws, f, client.Visitor[client.Job]{Page: sink.add, Reset: sink.reset}); err != nil {
		addRequestError(&diags, "Unable to List Jobs", ws, err)
		return nil, diags
	}
	var attrs map[string]tftypes.Value
	if err := config.Raw.As(&attrs); err != nil {
		diags.AddError("Unexpected Configuration", err.Error())
		return nil, diags
	}
	// As hands out the configuration's own map: written into, it made the
	// framework compare each job of the state with the configuration.
	attrs = maps.Clone(attrs)
	attrs["workspace_id"] = tftypes.NewValue(tftypes.String, ws)
	return attrs, diags
}

// jobFields are the attributes of a job in a dataintegration_jobs state,
// each with its value: a string, a *string (nil for null) or a bool.
var jobFields = map[string]func(j *client.Job) any{
	"id":             func(j *client.Job) any { return j.ID },
	"name":           func(j *client.Job) any { return j.Name },
	"data_source":    func(j *client.Job) any { return j.DataSource },
	"connector_name": func(j *client.Job) any { return j.ConnectorName },
	"schema_name":    func(j *client.Job) any { return j.SchemaName },
	"is_active":      func(j *client.Job) any { return j.IsActive },
	"created_at":     func(j *client.Job) any { return j.CreatedAt },
	"updated_at":     func(j *client.Job) any { return j.UpdatedAt },
}

// jobValues are the jobs of a dataintegration_jobs state as Terraform
// values: the elements of its jobs and ids lists.
type jobValues struct {
	listType  tftypes.List
	jobType   tftypes.Object
	jobs, ids []tftypes.Value
}

// newJobValues prepares the values of a data source of type typ; false when
// typ has no list of job objects.
func newJobValues(typ tftypes.Object) (*jobValues, bool) {
	list, ok := typ.AttributeTypes["jobs"].(tftypes.List)
	if !ok {
		return nil, false
	}
	job, ok := list.ElementType.(tftypes.Object)
	return &jobValues{listType: list, jobType: job}, ok
}

func (v *jobValues) reset() { v.jobs, v.ids = nil, nil }

func (v *jobValues) add(page []client.Job) int {
	for i := range page {
		attrs := make(map[string]tftypes.Value, len(jobFields))
		for name, field := range jobFields {
			switch x := field(&page[i]).(type) {
			case string:
				attrs[name] = tftypes.NewValue(tftypes.String, x)
			case *string:
				attrs[name] = tftypes.NewValue(tftypes.String, x)
			case bool:
				attrs[name] = tftypes.NewValue(tftypes.Bool, x)
			}
		}
		v.jobs = append(v.jobs, tftypes.NewValue(v.jobType, attrs))
		v.ids = append(v.ids, attrs["id"])
	}
	return client.All
}
