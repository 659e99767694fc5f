package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
)

func workspaceAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "The workspace (a UUID) " + what + ". Defaults to the provider's `workspace_id`; one of the two is required.",
		Optional:            true,
		Computed:            true,
		Validators:          []validator.String{uuidValidator()},
	}
}

// workspace is the resource's own workspace_id, else the provider's.
func (d *providerData) workspace(v types.String, diags *diag.Diagnostics) string {
	if !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		return v.ValueString()
	}
	if d.workspaceID == "" {
		diags.AddAttributeError(path.Root("workspace_id"), "Missing Workspace",
			"No workspace to use: set workspace_id here, or workspace_id in the provider configuration, or the "+providerenv.WorkspaceID+" environment variable.")
	}
	return d.workspaceID
}

// planWorkspace replaces the resource for another workspace, and keeps the
// state's value for the same UUID in another letter case. A value known only at
// apply replaces it too, unless keepUnknown: the engine refuses an update that
// turns into a replacement at apply, so an update planned over an unknown value
// fails there, before any change, when the value is another workspace.
func (d *providerData) planWorkspace(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, keepUnknown bool) {
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
		var id types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
		switch {
		case !planned.IsUnknown() && sameID(prior.ValueString(), planned.ValueString()):
			planned = prior
		case planned.IsUnknown() && keepUnknown:
			resp.Diagnostics.AddAttributeWarning(path.Root("workspace_id"), "Workspace Known Only at Apply", fmt.Sprintf(
				"workspace_id is known only at apply, so this plan updates connector %s in place rather than replace it. "+
					"If the value is then %s, its workspace, the connector is kept as it is. If it is another workspace, the apply fails "+
					"before changing the connector: plan again once the value is known, and that plan moves it.", id.ValueString(), prior.ValueString()))
		case keepUnknown && !d.holds.wasRead(id.ValueString()):
			// The apply of an update planned over an unknown workspace_id, or
			// a plan that does not refresh: the engine refuses a replacement
			// in the first, and both are told alike.
			resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "Connector Move Not Planned", fmt.Sprintf(
				"workspace_id is %s, but connector %s is in workspace %s. Either the plan being applied updated the connector in place, "+
					"workspace_id being known only at apply then, or this plan does not refresh (-refresh=false), and only a refreshing plan moves a connector. "+
					"Nothing was changed. Run terraform plan again, refreshing, with workspace_id known: that plan moves the connector "+
					"(deleting it and its job from workspace %s, and creating it in %s).",
				planned.ValueString(), id.ValueString(), prior.ValueString(), prior.ValueString(), planned.ValueString()))
			return
		default:
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("workspace_id"))
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("workspace_id"), planned)...)
}

func sameID(a, b string) bool { return strings.EqualFold(a, b) }

// checkPlannedWorkspace refuses at plan a create or move into a workspace the key
// cannot reach: else each create of the apply fails, and a replacement deletes the
// old connector first. A plan that creates and moves nothing asks nothing.
func (d *providerData) checkPlannedWorkspace(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if d == nil || req.Plan.Raw.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	var planned, prior types.String
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("workspace_id"), &planned)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &prior)...)
	}
	creates := req.State.Raw.IsNull()
	if resp.Diagnostics.HasError() || planned.IsUnknown() || planned.IsNull() || !creates && sameID(planned.ValueString(), prior.ValueString()) {
		return
	}
	var configured types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workspace_id"), &configured)...)
	from := "workspace_id"
	if configured.IsNull() {
		from = "the provider's workspace_id (or " + providerenv.WorkspaceID + ")"
	}
	d.checkWorkspace(ctx, planned.ValueString(), from, &resp.Diagnostics)
}

// checkWorkspace asks about each workspace once per process: the plans of its
// connectors wait for that one answer. Only the first plan told of a refused key
// explains it; the others point at that one.
func (d *providerData) checkWorkspace(ctx context.Context, ws, from string, diags *diag.Diagnostics) {
	check := d.reachable.of(ws)
	check.mu.Lock()
	defer check.mu.Unlock()
	if !check.asked {
		held, err := d.client.CheckWorkspace(ctx, ws)
		d.checks.counted(ws, held)
		switch status := client.StatusCode(err); {
		case err == nil, status == http.StatusUnauthorized, status == http.StatusForbidden, status == http.StatusNotFound:
			// Any other failure is asked again by the next plan.
			check.asked, check.err = true, err
		default:
			addRequestError(diags, "Unable to Check Workspace", ws, err)
			return
		}
	}
	err := check.err
	switch client.StatusCode(err) {
	case 0:
		return
	case http.StatusForbidden, http.StatusNotFound:
		e, _ := errors.AsType[*client.Error](err)
		diags.AddAttributeError(path.Root("workspace_id"), "Workspace Not Reachable", fmt.Sprintf(
			"The API key cannot reach workspace %s: %s. This plan would create a connector there, or move one there by deleting it (and its job) "+
				"from the workspace it is in, and the create would then fail. Nothing was changed. "+
				"Check %s for a typo, or use a key of that workspace: api_key in the provider configuration or the %s environment variable.",
			ws, strings.TrimSuffix(answer(e), "."), from, providerenv.APIKey))
	case http.StatusUnauthorized:
		if check.told {
			e, _ := errors.AsType[*client.Error](err)
			refused := *e
			refused.KeyRefused = true
			err = &refused
		}
		check.told = true
		addRequestError(diags, "Unable to Check Workspace", ws, err)
	default:
		addRequestError(diags, "Unable to Check Workspace", ws, err)
	}
}
