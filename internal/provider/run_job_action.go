package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

var (
	_ action.ActionWithConfigure        = (*runJobAction)(nil)
	_ action.ActionWithConfigValidators = (*runJobAction)(nil)
	_ action.ActionWithModifyPlan       = (*runJobAction)(nil)
)

const defaultRunJobTimeout = 10 * time.Minute

// NewRunJobAction returns the dataintegration_run_job action.
func NewRunJobAction() action.Action { return &runJobAction{} }

type runJobAction struct {
	jobAction
}

type runJobModel struct {
	jobActionTarget
	ForceFullRefresh types.Bool   `tfsdk:"force_full_refresh"`
	IfRunning        types.String `tfsdk:"if_running"`
	Timeout          types.String `tfsdk:"timeout"`
}

func (a *runJobAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_run_job"
}

func (a *runJobAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a job once, leaving nothing in the state: from an `action_trigger`, or on demand with `terraform apply -invoke`. " +
			"Needs Terraform 1.14 or later.",
		Attributes: jobActionAttributes("to run", map[string]schema.Attribute{
			"force_full_refresh": schema.BoolAttribute{
				MarkdownDescription: "Whether the execution reloads everything, even for a job that loads increments. Defaults to `false`.",
				Optional:            true,
			},
			"if_running": schema.StringAttribute{
				MarkdownDescription: ifRunningDescription("`timeout`") + " While it waits, the action reports how long it has waited.",
				Optional:            true,
				Validators:          []validator.String{stringCheck(allowedIfRunning, validate.IfRunning)},
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "How long the action may take, retries and waiting included, as a positive duration such as `\"30s\"` or `\"15m\"`. " +
					"Defaults to `\"" + shortDuration(defaultRunJobTimeout) + "\"`. When it ends while the trigger is in flight, the action warns that the job may have started; " +
					"when it ends before, the job did not start and the action fails.",
				Optional:   true,
				Validators: []validator.String{stringCheck(`a positive duration such as "30s"`, validate.Duration)},
			},
		}),
	}
}

const runLostThen = "The action does not fail, so that nothing sends the trigger again: " +
	"the job never runs twice for one invocation. If the job did not run (look at its executions in the service), " + againInvoke + "."

func (a *runJobAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m runJobModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	checkValues(ctx, a, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	limit := triggerLimit{d: defaultRunJobTimeout, setting: "timeout"}
	if !m.Timeout.IsNull() {
		// Checked by checkValues.
		limit.d, _ = time.ParseDuration(m.Timeout.ValueString())
	}
	ctx, cancel := client.WithLimit(ctx, limit.setting, limit.d)
	defer cancel()

	ws, job, at := a.resolve(ctx, m.jobActionTarget, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	run := jobRun{ws: ws, job: job, force: m.ForceFullRefresh.ValueBool(), wait: m.IfRunning.ValueString() == validate.IfRunningWait,
		waiting: func(elapsed time.Duration) { sendProgress(resp, "%s", runningMessage(job, elapsed)) }, again: againInvoke}
	seen, err := run.trigger(ctx, a.data.client)
	switch {
	case err == nil:
		sendProgress(resp, "job %s triggered", job)
	case !triggerAnswerLost(ctx, &resp.Diagnostics, job, err, limit, runLostThen):
		addTriggerError(ctx, a.data.client, &resp.Diagnostics, at, run, seen, limit, err)
	}
}
