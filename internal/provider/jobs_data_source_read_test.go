package provider

import (
	"context"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestJobsReadLeavesConfigAlone: the jobs data source builds its state
// without writing into the configuration it is given. It once wrote the
// jobs into it, which made the framework compare every job of the state
// with the configuration after Read, for nothing: 40% of the provider's CPU
// in a plan reading 10,000 jobs.
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
