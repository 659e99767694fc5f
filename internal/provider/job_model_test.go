package provider

import (
	"context"
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/jobsfastpath"
)

// TestJobsDataSource_jobModelDescribesEveryAttribute: jobModel is the one description of a
// job: each of its fields has a description and each description a field,
// and both data sources, and the jobs fast path, show exactly its attributes, of
// its types.
func TestJobsDataSource_jobModelDescribesEveryAttribute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fields := map[string]tftypes.Type{}
	for _, f := range jobModelFields() {
		fields[f.Name] = f.Type
		if jobAttributeDescriptions[f.Name] == "" {
			t.Errorf("jobModel's %s has no description", f.Name)
		}
	}
	for name := range jobAttributeDescriptions {
		if _, ok := fields[name]; !ok {
			t.Errorf("the description of %s describes no field of jobModel", name)
		}
	}
	same := func(what string, got map[string]tftypes.Type) {
		t.Helper()
		if len(got) != len(fields) {
			t.Errorf("%s has %d attributes, jobModel %d", what, len(got), len(fields))
		}
		for name, typ := range fields {
			if !typ.Equal(got[name]) {
				t.Errorf("%s's %s is a %v, jobModel's a %s", what, name, got[name], typ)
			}
		}
	}

	var jobs datasource.SchemaResponse
	(&jobsDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &jobs)
	typ, ok := jobs.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema's type is not an object")
	}
	list, ok := typ.AttributeTypes["jobs"].(tftypes.List)
	if !ok {
		t.Fatal("jobs is not a list")
	}
	job, ok := list.ElementType.(tftypes.Object)
	if !ok {
		t.Fatal("a job is not an object")
	}
	same("a job of dataintegration_jobs", job.AttributeTypes)
	if _, err := jobsfastpath.NewPackedJobs(typ, jobsSource{}.Fields(), newJobModel); err != nil {
		t.Errorf("packedJobs refuses the schema: %v", err)
	}

	var one datasource.SchemaResponse
	(&jobDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &one)
	oneType, ok := one.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema's type is not an object")
	}
	attrs := maps.Clone(oneType.AttributeTypes)
	delete(attrs, "workspace_id")
	same("dataintegration_job", attrs)
}
