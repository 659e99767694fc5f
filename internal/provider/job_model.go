package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// jobModel is a job as the dataintegration_job data source shows it.
// dataintegration_jobs has the same attributes (jobAttributes), but builds
// its state without the framework's reflection, for speed: see jobFields,
// packedJobs and jobValues.
type jobModel struct {
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	DataSource    types.String `tfsdk:"data_source"`
	ConnectorName types.String `tfsdk:"connector_name"`
	SchemaName    types.String `tfsdk:"schema_name"`
	IsActive      types.Bool   `tfsdk:"is_active"`
	CreatedAt     types.String `tfsdk:"created_at"`
	UpdatedAt     types.String `tfsdk:"updated_at"`
}

// newJobModel is the service's job j as a jobModel: a field the service
// sent as null (or left out) is null.
func newJobModel(j client.Job) jobModel {
	return jobModel{
		ID:            types.StringValue(j.ID),
		Name:          types.StringPointerValue(j.Name),
		DataSource:    types.StringPointerValue(j.DataSource),
		ConnectorName: types.StringPointerValue(j.ConnectorName),
		SchemaName:    types.StringPointerValue(j.SchemaName),
		IsActive:      types.BoolValue(j.IsActive),
		CreatedAt:     types.StringPointerValue(j.CreatedAt),
		UpdatedAt:     types.StringPointerValue(j.UpdatedAt),
	}
}

// jobAttributeDescriptions describe a job's fields, for both data sources.
var jobAttributeDescriptions = map[string]string{
	"id":             "The job's ID (a UUID).",
	"name":           "The job's name.",
	"data_source":    "The job's data source.",
	"connector_name": "The name of the job's connector.",
	"schema_name":    "The job's destination schema.",
	"is_active":      "Whether the job is active: only an active job can be triggered.",
	"created_at":     "When the job was created, as the service gives it (ISO 8601 with milliseconds, UTC).",
	"updated_at":     "When the job was last changed, as the service gives it (ISO 8601 with milliseconds, UTC).",
}

// jobAttributes are a job's fields as computed attributes.
func jobAttributes() map[string]schema.Attribute {
	attrs := make(map[string]schema.Attribute, len(jobAttributeDescriptions))
	for name, desc := range jobAttributeDescriptions {
		if name == "is_active" {
			attrs[name] = schema.BoolAttribute{MarkdownDescription: desc, Computed: true}
		} else {
			attrs[name] = schema.StringAttribute{MarkdownDescription: desc, Computed: true}
		}
	}
	return attrs
}
