package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// jobAction is what the two actions on a job share. Engines before Terraform 1.14
// ignore actions and load the provider all the same.
type jobAction struct {
	data *providerData
}

type jobActionTarget struct {
	JobID       types.String `tfsdk:"job_id"`
	JobName     types.String `tfsdk:"job_name"`
	WorkspaceID types.String `tfsdk:"workspace_id"`
}

func jobActionAttributes(verb string, others map[string]schema.Attribute) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"job_id": schema.StringAttribute{
			MarkdownDescription: "The ID (a UUID, in any letter case) of the job " + verb + ". Exactly one of `job_id` and `job_name` is required.",
			Optional:            true,
			Validators:          []validator.String{uuidValidator()},
		},
		"job_name": schema.StringAttribute{
			MarkdownDescription: "The exact name of the job " + verb + ", as an alternative to `job_id`. It is looked up when the action runs, " +
				"with the service's `name` filter, as the `dataintegration_job` data source does: no job or more than one job of that name fails the action.",
			Optional:   true,
			Validators: []validator.String{jobNameValidator()},
		},
		"workspace_id": schema.StringAttribute{
			MarkdownDescription: "The workspace (a UUID) that holds the job. Defaults to the provider's `workspace_id`; one of the two is required.",
			Optional:            true,
			Validators:          []validator.String{uuidValidator()},
		},
	}
	maps.Copy(attrs, others)
	return attrs
}

func (a *jobAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (a *jobAction) ConfigValidators(context.Context) []action.ConfigValidator {
	return []action.ConfigValidator{
		actionvalidator.ExactlyOneOf(path.MatchRoot("job_id"), path.MatchRoot("job_name")),
	}
}

// ModifyPlan checks the values known at plan: Terraform validates an action's
// configuration before input variables have values.
func (a *jobAction) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	checkValues(ctx, a, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var ws types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workspace_id"), &ws)...)
	if resp.Diagnostics.HasError() || a.data == nil || !ws.IsNull() {
		return
	}
	a.data.workspace(ws, &resp.Diagnostics)
}

// checkValues runs the attribute and configuration validators again with the values
// known: Terraform validates a resource again once its values are known, but not
// an action, so a value from a variable or the apply would reach a request unchecked.
func checkValues(ctx context.Context, a interface {
	ConfigValidators(context.Context) []action.ConfigValidator
}, config tfsdk.Config, diags *diag.Diagnostics) {
	attrs := config.Schema.GetAttributes()
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		attr, ok := attrs[name].(schema.StringAttribute)
		if !ok {
			continue
		}
		at := path.Root(name)
		var v types.String
		diags.Append(config.GetAttribute(ctx, at, &v)...)
		for _, check := range attr.Validators {
			var resp validator.StringResponse
			check.ValidateString(ctx, validator.StringRequest{Path: at, PathExpression: at.Expression(), Config: config, ConfigValue: v}, &resp)
			diags.Append(resp.Diagnostics...)
		}
	}
	for _, check := range a.ConfigValidators(ctx) {
		var resp action.ValidateConfigResponse
		check.ValidateAction(ctx, action.ValidateConfigRequest{Config: config}, &resp)
		diags.Append(resp.Diagnostics...)
	}
}

// resolve returns the workspace, the job's ID ("" after an error) and the
// attribute that named it.
func (a *jobAction) resolve(ctx context.Context, t jobActionTarget, diags *diag.Diagnostics) (ws, job string, at path.Path) {
	ws = a.data.workspace(t.WorkspaceID, diags)
	if diags.HasError() {
		return "", "", pathJobID
	}
	if t.JobName.IsNull() {
		return ws, t.JobID.ValueString(), pathJobID
	}
	return ws, jobIDByName(ctx, a.data.client, ws, t.JobName.ValueString(), diags), pathJobName
}

// sendProgress does nothing without SendProgress, as in a unit test.
func sendProgress(resp *action.InvokeResponse, format string, args ...any) {
	if resp.SendProgress != nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf(format, args...)})
	}
}
