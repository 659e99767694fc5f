package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// readStart begins each data source's read: config into m, then the workspace
// that workspaceID, a field of m, names; ok is false when diags hold an error.
func readStart(ctx context.Context, data *providerData, config tfsdk.Config, m any, workspaceID *types.String, diags *diag.Diagnostics) (ws string, ok bool) {
	diags.Append(config.Get(ctx, m)...)
	if diags.HasError() || !requireConfigured(data, diags) {
		return "", false
	}
	ws = data.workspace(*workspaceID, diags)
	return ws, !diags.HasError()
}

// requireConfigured fails a read without a client: the framework calls Read even
// when ConfigureProvider never ran.
func requireConfigured(data *providerData, diags *diag.Diagnostics) bool {
	if data != nil {
		return true
	}
	diags.AddError("Provider Not Configured",
		"The data source was read before the provider was configured. Terraform and OpenTofu configure a provider before they read its data sources: "+
			"this is a bug in the provider or in the engine, please report it.")
	return false
}
