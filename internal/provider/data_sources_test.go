package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
)

// TestDataSources_readBeforeConfigure: the framework may call Read without
// Configure; each data source then answers with an error, not a panic.
func TestDataSources_readBeforeConfigure(t *testing.T) {
	for name, ds := range map[string]datasource.DataSource{
		"connector":  NewConnectorDataSource(),
		"connectors": NewConnectorsDataSource(),
		"job":        NewJobDataSource(),
		"jobs":       NewJobsDataSource(),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var sr datasource.SchemaResponse
			ds.Schema(ctx, datasource.SchemaRequest{}, &sr)
			typ, _ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
			config := tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, acctest.ObjectAttrs(typ, map[string]any{
				"workspace_id": "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
				"id":           "3f2504e0-4f89-11d3-9a0c-0305e82c3302",
			}))}
			resp := datasource.ReadResponse{State: tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(typ, nil)}}
			ds.Read(ctx, datasource.ReadRequest{Config: config}, &resp)
			onlyError(t, resp.Diagnostics, "Provider Not Configured")
		})
	}
}
