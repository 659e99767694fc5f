package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"

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
	if diags.HasError() || !requireConfigured(data, &diags) {
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

// fastJobs answers ReadDataSource for dataintegration_jobs itself, with the
// data source's own readJobs, and leaves every other call to the framework.
// After a data source's read, the framework copies the state, looks for
// attributes whose custom types have a semantic equality (the jobs data
// source has none, so it finds nothing to do), compares the state it got
// with the one it made, then encodes it: for 10,000 jobs, 0.25 s after the
// last page arrives, in which the plan waits (BENCHMARKS.md). A call it
// cannot answer the same way (the provider not configured, a configuration
// not fully known) goes to the framework.
type fastJobs struct {
	fullServer
	p *dataIntegrationProvider

	once   sync.Once
	schema datasource.SchemaResponse
	typ    tftypes.Type
	// answered counts the reads answered here, for the tests.
	answered atomic.Int64
}

const jobsTypeName = "dataintegration_jobs"

func (s *fastJobs) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	data := s.p.configured.Load()
	if req.TypeName != jobsTypeName || data == nil || req.Config == nil {
		return s.fullServer.ReadDataSource(ctx, req)
	}
	s.once.Do(func() {
		(&jobsDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &s.schema)
		s.typ = s.schema.Schema.Type().TerraformType(ctx)
	})
	config, err := req.Config.Unmarshal(s.typ)
	if err != nil || !config.IsFullyKnown() || s.schema.Diagnostics.HasError() {
		return s.fullServer.ReadDataSource(ctx, req)
	}
	sink, err := newPackedJobs(s.typ)
	if err != nil {
		return s.fullServer.ReadDataSource(ctx, req)
	}
	s.answered.Add(1)
	attrs, diags := readJobs(ctx, data, tfsdk.Config{Schema: s.schema.Schema, Raw: config}, sink)
	resp := &tfprotov6.ReadDataSourceResponse{Diagnostics: protoDiagnostics(diags)}
	if diags.HasError() {
		// The framework answers a read that failed with the configuration
		// as the state: so does fastJobs, for the same answer either way.
		if state, err := tfprotov6.NewDynamicValue(s.typ, config); err == nil {
			resp.State = &state
		}
		return resp, nil
	}
	if state, err := sink.state(attrs); err == nil {
		resp.State = &tfprotov6.DynamicValue{MsgPack: state}
	} else {
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
			Severity: tfprotov6.DiagnosticSeverityError, Summary: "Unable to Encode the State", Detail: err.Error(),
		})
	}
	return resp, nil
}

// packedJobs is a jobSink that encodes the jobs as the protocol carries
// them (MessagePack, as tftypes encodes it: an object is a map of its
// attributes in name order), each page as it arrives, so that the state is
// ready moments after the last page.
type packedJobs struct {
	typ    tftypes.Object
	fields []string // the job's attributes, in name order
	// jobs and ids hold the elements of the two lists, encoded.
	jobs, ids       bytes.Buffer
	jobsEnc, idsEnc *msgpack.Encoder
	n               int   // how many jobs
	err             error // the first encoding error
}

// newPackedJobs prepares the encoding of a dataintegration_jobs state of
// type typ: its jobs must have exactly the attributes of jobFields, and its
// other attributes, but ids, must be strings or bools.
func newPackedJobs(typ tftypes.Type) (*packedJobs, error) {
	obj, ok := typ.(tftypes.Object)
	values, okJobs := newJobValues(obj)
	if !ok || !okJobs {
		return nil, fmt.Errorf("type %s has no list of jobs", typ)
	}
	for name, t := range obj.AttributeTypes {
		if name != "jobs" && name != "ids" && !t.Is(tftypes.String) && !t.Is(tftypes.Bool) {
			return nil, fmt.Errorf("attribute %s is a %s, not a string or a bool", name, t)
		}
	}
	p := &packedJobs{typ: obj, fields: slices.Sorted(maps.Keys(values.jobType.AttributeTypes))}
	if !slices.Equal(p.fields, slices.Sorted(maps.Keys(jobFields))) {
		return nil, fmt.Errorf("the job's attributes %v are not those of jobFields", p.fields)
	}
	p.jobsEnc, p.idsEnc = msgpack.NewEncoder(&p.jobs), msgpack.NewEncoder(&p.ids)
	return p, nil
}

func (p *packedJobs) reset() { p.jobs.Reset(); p.ids.Reset(); p.n = 0 }

func (p *packedJobs) add(page []client.Job) int {
	for i := range page {
		p.keep(p.jobsEnc.EncodeMapLen(len(p.fields)))
		for _, name := range p.fields {
			p.keep(p.jobsEnc.EncodeString(name))
			switch x := jobFields[name](&page[i]).(type) {
			case string:
				p.keep(p.jobsEnc.EncodeString(x))
			case *string:
				if x == nil {
					p.keep(p.jobsEnc.EncodeNil())
				} else {
					p.keep(p.jobsEnc.EncodeString(*x))
				}
			case bool:
				p.keep(p.jobsEnc.EncodeBool(x))
			}
		}
		p.keep(p.idsEnc.EncodeString(page[i].ID))
		p.n++
	}
	return client.All
}

func (p *packedJobs) keep(err error) {
	if p.err == nil {
		p.err = err
	}
}

// state is the whole state: attrs and the jobs and ids added, in the
// attributes' name order.
func (p *packedJobs) state(attrs map[string]tftypes.Value) ([]byte, error) {
	if p.err != nil {
		return nil, p.err
	}
	var out bytes.Buffer
	out.Grow(p.jobs.Len() + p.ids.Len() + 1024)
	enc := msgpack.NewEncoder(&out)
	names := slices.Sorted(maps.Keys(p.typ.AttributeTypes))
	if err := enc.EncodeMapLen(len(names)); err != nil {
		return nil, err
	}
	for _, name := range names {
		if err := enc.EncodeString(name); err != nil {
			return nil, err
		}
		switch name {
		case "jobs", "ids":
			list := &p.jobs
			if name == "ids" {
				list = &p.ids
			}
			if err := enc.EncodeArrayLen(p.n); err != nil {
				return nil, err
			}
			out.Write(list.Bytes())
		default:
			if err := encodePrimitive(enc, attrs[name]); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return out.Bytes(), nil
}

// encodePrimitive encodes a known string or bool, or null.
func encodePrimitive(enc *msgpack.Encoder, v tftypes.Value) error {
	switch {
	case v.Type() == nil || !v.IsKnown():
		return errors.New("no known value")
	case v.IsNull():
		return enc.EncodeNil()
	case v.Type().Is(tftypes.String):
		var s string
		if err := v.As(&s); err != nil {
			return err
		}
		return enc.EncodeString(s)
	case v.Type().Is(tftypes.Bool):
		var b bool
		if err := v.As(&b); err != nil {
			return err
		}
		return enc.EncodeBool(b)
	}
	return fmt.Errorf("a %s is not a string or a bool", v.Type())
}
