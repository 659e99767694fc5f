package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/jobsfastpath"
)

const jobsTypeName = "dataintegration_jobs"

// jobsSource is the jobs data source as jobsfastpath reads it: the same schema,
// read and model of a job as jobsDataSource, so that both answer alike.
type jobsSource struct{ p *dataIntegrationProvider }

var _ jobsfastpath.Source[jobModel] = jobsSource{}

func (jobsSource) TypeName() string { return jobsTypeName }

func (jobsSource) Schema(ctx context.Context, req datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	(&jobsDataSource{}).Schema(ctx, req, resp)
}

func (s jobsSource) Reader() jobsfastpath.Reader {
	data := s.p.configured.Load()
	if data == nil {
		return nil
	}
	return func(ctx context.Context, config tfsdk.Config, sink jobsfastpath.Sink) (map[string]tftypes.Value, diag.Diagnostics) {
		var m jobsDataSourceModel
		diags := readJobs(ctx, data, config, &m, sink)
		attrs := map[string]tftypes.Value{}
		if !diags.HasError() {
			state := tfsdk.State{Schema: config.Schema}
			diags.Append(state.Set(ctx, &m)...)
			if err := state.Raw.As(&attrs); err != nil {
				diags.AddError("Unable to Encode the State", err.Error())
			}
		}
		return attrs, diags
	}
}

func (jobsSource) Fields() []jobsfastpath.Field { return jobModelFields() }

func (jobsSource) Job(j client.Job) jobModel { return newJobModel(j) }
