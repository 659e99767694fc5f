package provider

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/jobsfastpath"
)

// jobModel is the one description of a job's attributes: both job data sources
// and packedJobs show a job through it.
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

// newJobModel keeps a field the service sent as null (or left out) null.
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

// jobModelFields are jobModel's attributes in name order, the protocol's. A field
// of another type than types.String or types.Bool panics at the first schema.
var jobModelFields = sync.OnceValue(func() []jobsfastpath.Field {
	t := reflect.TypeFor[jobModel]()
	fields := make([]jobsfastpath.Field, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		jf := jobsfastpath.Field{Name: f.Tag.Get("tfsdk"), Index: i}
		switch f.Type {
		case reflect.TypeFor[types.String]():
			jf.Type = tftypes.String
		case reflect.TypeFor[types.Bool]():
			jf.Type = tftypes.Bool
		default:
			panic(fmt.Sprintf("jobModel.%s is a %s: a job attribute is a types.String or a types.Bool", f.Name, f.Type))
		}
		fields = append(fields, jf)
	}
	slices.SortFunc(fields, func(a, b jobsfastpath.Field) int { return cmp.Compare(a.Name, b.Name) })
	return fields
})

func jobAttributes() map[string]schema.Attribute {
	fields := jobModelFields()
	attrs := make(map[string]schema.Attribute, len(fields))
	for _, f := range fields {
		desc := jobAttributeDescriptions[f.Name]
		if f.Type.Is(tftypes.Bool) {
			attrs[f.Name] = schema.BoolAttribute{MarkdownDescription: desc, Computed: true}
		} else {
			attrs[f.Name] = schema.StringAttribute{MarkdownDescription: desc, Computed: true}
		}
	}
	return attrs
}
