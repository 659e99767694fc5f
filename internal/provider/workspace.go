package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// workspaceAttribute is a data source's workspace_id, described as "The
// workspace (a UUID) " followed by what.
func workspaceAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "The workspace (a UUID) " + what + ". Defaults to the provider's `workspace_id`; one of the two is required.",
		Optional:            true,
		Computed:            true,
		Validators:          []validator.String{uuidValidator()},
	}
}

// workspace is the workspace a resource or data source uses: its own
// workspace_id, else the provider's. Neither is an error on workspace_id.
func (d *providerData) workspace(v types.String, diags *diag.Diagnostics) string {
	if !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		return v.ValueString()
	}
	if d.workspaceID == "" {
		diags.AddAttributeError(path.Root("workspace_id"), "Missing Workspace",
			"No workspace to use: set workspace_id here, or workspace_id in the provider configuration, or the "+EnvWorkspaceID+" environment variable.")
	}
	return d.workspaceID
}

// planWorkspace plans a resource's workspace_id: the configured one, else
// the provider's, known at plan time. A different workspace than the state's
// replaces the resource, and so does one known only at apply, as
// RequiresReplace plans it: Terraform refuses an apply whose update turned
// into a replacement. The same workspace in another letter case (a UUID's
// case means nothing to the service) keeps the state's value, so that no
// plan shows a difference of case alone. Unconfigured provider data (d nil)
// leaves it unknown.
func (d *providerData) planWorkspace(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || d == nil {
		return
	}
	var planned types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workspace_id"), &planned)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if planned.IsNull() {
		planned = types.StringValue(d.workspace(planned, &resp.Diagnostics))
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if !req.State.Raw.IsNull() {
		var prior types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &prior)...)
		switch {
		case !planned.IsUnknown() && sameID(prior.ValueString(), planned.ValueString()):
			planned = prior
		default:
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("workspace_id"))
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("workspace_id"), planned)...)
}

// sameID tells whether two UUIDs are the same, in any letter case.
func sameID(a, b string) bool { return strings.EqualFold(a, b) }
