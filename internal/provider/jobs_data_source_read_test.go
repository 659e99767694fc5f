package provider

import (
	"context"
	"maps"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestJobsReadLeavesConfigAlone: the jobs data source builds its state
// without writing into the configuration it is given: jobs written into it
// would make the framework compare every job of the state with the
// configuration after Read, for nothing (BENCHMARKS.md, "The 10,000-job
// plan").
func TestJobsReadLeavesConfigAlone(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 150})
	ctx := context.Background()
	d := &jobsDataSource{data: &providerData{client: e.Client(t), workspaceID: e.WorkspaceID}}
	var s datasource.SchemaResponse
	d.Schema(ctx, datasource.SchemaRequest{}, &s)
	typ, ok := s.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema's type is not an object")
	}
	config := tftypes.NewValue(typ, acctest.ObjectAttrs[any](typ, nil))
	want := config.Copy()
	resp := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema, Raw: config.Copy()}}
	d.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: config}}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if !config.Equal(want) {
		t.Error("Read wrote into the configuration it was given")
	}
	var ids []string
	resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("ids"), &ids)...)
	if resp.Diagnostics.HasError() || len(ids) != 150 {
		t.Errorf("the state holds %d ids, want 150: %v", len(ids), resp.Diagnostics)
	}
}

// TestJobModelDescribesEveryAttribute: jobModel is the one description of a
// job: each of its fields has a description and each description a field,
// and both data sources, and packedJobs, show exactly its attributes, of
// its types.
func TestJobModelDescribesEveryAttribute(t *testing.T) {
	ctx := context.Background()
	fields := map[string]tftypes.Type{}
	for _, f := range jobModelFields() {
		fields[f.name] = f.typ
		if jobAttributeDescriptions[f.name] == "" {
			t.Errorf("jobModel's %s has no description", f.name)
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
	if _, err := newPackedJobs(typ); err != nil {
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
