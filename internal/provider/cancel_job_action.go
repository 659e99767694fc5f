package provider

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

var (
	_ action.ActionWithConfigure        = (*cancelJobAction)(nil)
	_ action.ActionWithConfigValidators = (*cancelJobAction)(nil)
	_ action.ActionWithModifyPlan       = (*cancelJobAction)(nil)
)

// NewCancelJobAction returns the dataintegration_cancel_job action.
func NewCancelJobAction() action.Action { return &cancelJobAction{} }

type cancelJobAction struct {
	jobAction
}

func (a *cancelJobAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cancel_job"
}

func (a *cancelJobAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Cancels the running execution of a job, on demand (`terraform apply -invoke`) or from an `action_trigger`. " +
			"No running execution gives a warning. Needs Terraform 1.14 or later.",
		Attributes: jobActionAttributes("whose execution to cancel", nil),
	}
}

func (a *cancelJobAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var t jobActionTarget
	resp.Diagnostics.Append(req.Config.Get(ctx, &t)...)
	checkValues(ctx, a, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := client.WithLimit(ctx, "the action's limit", defaultCancelTimeout)
	defer cancel()
	ws, job, at := a.resolve(ctx, t, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	err := a.data.client.CancelJob(ctx, ws, job)
	switch status := client.StatusCode(err); {
	case err == nil:
		sendProgress(resp, "the running execution of job %s cancelled", job)
	case status == http.StatusConflict:
		resp.Diagnostics.AddWarning("No Running Execution", fmt.Sprintf(
			"Job %s had no running execution to cancel (HTTP 409: %s): nothing was changed.", job, serviceMessage(err)))
	case status == http.StatusNotFound:
		addJobNotFound(&resp.Diagnostics, at, ws, job, err)
	default:
		addRequestError(&resp.Diagnostics, "Unable to Cancel Job", ws, err)
	}
}
