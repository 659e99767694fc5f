package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

var (
	_ resource.ResourceWithConfigure        = (*jobTriggerResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*jobTriggerResource)(nil)
	_ resource.ResourceWithConfigValidators = (*jobTriggerResource)(nil)
	_ resource.ResourceWithImportState      = (*jobTriggerResource)(nil)
	_ resource.ResourceWithUpgradeState     = (*jobTriggerResource)(nil)
)

// NewJobTriggerResource returns the dataintegration_job_trigger resource.
func NewJobTriggerResource() resource.Resource { return &jobTriggerResource{} }

type jobTriggerResource struct {
	data *providerData
}

type jobTriggerModel struct {
	ID               types.String   `tfsdk:"id"`
	WorkspaceID      types.String   `tfsdk:"workspace_id"`
	JobID            types.String   `tfsdk:"job_id"`
	JobName          types.String   `tfsdk:"job_name"`
	ForceFullRefresh types.Bool     `tfsdk:"force_full_refresh"`
	Triggers         types.Map      `tfsdk:"triggers"`
	CancelOnDestroy  types.Bool     `tfsdk:"cancel_on_destroy"`
	IfRunning        types.String   `tfsdk:"if_running"`
	TriggeredAt      types.String   `tfsdk:"triggered_at"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
}

func (r *jobTriggerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_trigger"
}

func (r *jobTriggerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: 1,
		MarkdownDescription: "Triggers one execution of a job when it is created. A trigger is an event: " +
			"refreshing it makes no request, and an unchanged configuration triggers nothing. " +
			"Changing the job, `force_full_refresh`, `workspace_id` or `triggers` replaces it, which triggers the job again.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "A UUID made by the provider for this trigger; a new one each time the job is triggered.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "The workspace (a UUID) that holds the job. Defaults to the provider's `workspace_id`; one of the two is required. Changing it triggers again.",
				Optional:            true,
				Computed:            true,
				Validators:          []validator.String{uuidValidator()},
			},
			"force_full_refresh": schema.BoolAttribute{
				MarkdownDescription: "Whether the execution reloads everything, even for a job that loads increments. Defaults to `false`. Changing it triggers again.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"triggers": schema.MapAttribute{
				MarkdownDescription: "Arbitrary strings, such as a commit: any change replaces the trigger, which triggers the job again. " +
					"An empty map and no map mean the same.",
				ElementType:   types.StringType,
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.Map{triggersPlanModifier{}},
			},
			"cancel_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "Whether destroying the trigger cancels the job's running execution (whichever it is). Defaults to `false`: destroy makes no request. " +
					"An execution already ended, or a job gone, gives a warning. Changes in place.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"if_running": schema.StringAttribute{
				MarkdownDescription: ifRunningDescription("the `create` timeout") + " Changes in place: it matters only when the job is triggered.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(validate.IfRunningFail),
				Validators:          []validator.String{stringCheck(allowedIfRunning, validate.IfRunning)},
			},
			"triggered_at": schema.StringAttribute{
				MarkdownDescription: "When the service accepted the trigger, by the clock of the machine that ran Terraform (the answer carries no time), " +
					"as an RFC 3339 time in UTC in whole seconds.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": triggerTimeouts(ctx),
		},
	}
	maps.Copy(resp.Schema.Attributes, triggerJobAttributes())
}

func triggerJobAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"job_id": schema.StringAttribute{
			MarkdownDescription: "The ID (a UUID, in any letter case) of the job to trigger. Exactly one of `job_id` and `job_name` is required. " +
				"Changing it triggers again. With `job_name`, the ID the name resolved to.",
			Optional:   true,
			Computed:   true,
			Validators: []validator.String{uuidValidator()},
		},
		"job_name": schema.StringAttribute{
			MarkdownDescription: "The exact name of the job to trigger, instead of `job_id`, resolved when the trigger is created: " +
				"no job or several of that name fail the apply. Planning needs no lookup, so naming the job of a connector in the same configuration " +
				"plans no change while the connector changes. Changing it triggers again; moving from `job_id` to the same job's name triggers nothing. " +
				"A `job_name` known only at apply replaces the trigger, which triggers the job again, even when it names the same job.",
			Optional:   true,
			Validators: []validator.String{jobNameValidator()},
		},
	}
}

// triggerTimeouts checks the durations itself: the block's own check accepts "0s"
// and "-1m", and adds a second error that names no attribute.
func triggerTimeouts(ctx context.Context) schema.Block {
	b := timeouts.Block(ctx, timeouts.Opts{
		Create: true,
		CreateDescription: "How long triggering the job may take, retries included, such as `\"2m\"`. " +
			"Defaults to `\"" + shortDuration(defaultTriggerTimeout) + "\"`. Ending in flight, the trigger is recorded as a lost answer; " +
			"between attempts, the job did not start and the apply fails.",
		Delete: true,
		DeleteDescription: "How long cancelling the execution on destroy may take, retries included, as a positive duration such as `\"30s\"`. " +
			"Defaults to `\"" + shortDuration(defaultCancelTimeout) + "\"`. Only used with `cancel_on_destroy = true`.",
	})
	nb, ok := b.(schema.SingleNestedBlock)
	if !ok {
		return b
	}
	nb.MarkdownDescription = "How long triggering and cancelling may take."
	for name, a := range nb.Attributes {
		if sa, ok := a.(schema.StringAttribute); ok {
			sa.Validators = []validator.String{stringCheck(`a positive duration such as "30s"`, validate.Duration)}
			sa.PlanModifiers = []planmodifier.String{sameDurationPlanModifier{}}
			nb.Attributes[name] = sa
		}
	}
	return nb
}

func (r *jobTriggerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (r *jobTriggerResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("job_id"), path.MatchRoot("job_name")),
	}
}

func (r *jobTriggerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.data.planWorkspace(ctx, req, resp, false)
	if resp.Diagnostics.HasError() || req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return
	}
	r.planJob(ctx, req, resp)
}

// planJob keeps the state's job_id, and replaces nothing, when the job named is
// the same: another case of its ID, the same job_name, or a move between the two.
func (r *jobTriggerResource) planJob(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var config, state jobTriggerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	same, changed := false, pathJobID
	switch {
	case !config.JobID.IsNull():
		same = !config.JobID.IsUnknown() && sameID(config.JobID.ValueString(), state.JobID.ValueString())
	case config.JobName.IsUnknown():
		changed = pathJobName
	case !state.JobName.IsNull():
		same, changed = config.JobName.Equal(state.JobName), pathJobName
	default:
		changed = pathJobName
		same = r.nameResolvesTo(ctx, state.WorkspaceID.ValueString(), config.JobName.ValueString(), state.JobID.ValueString(), &resp.Diagnostics)
	}
	if !same {
		resp.RequiresReplace = append(resp.RequiresReplace, changed)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, pathJobID, state.JobID)...)
}

// nameResolvesTo tells whether name is that of exactly one job, with the ID id.
func (r *jobTriggerResource) nameResolvesTo(ctx context.Context, ws, name, id string, diags *diag.Diagnostics) bool {
	if r.data == nil {
		return false
	}
	found, err := jobsByName(ctx, r.data.client, ws, name)
	if err != nil {
		addRequestError(diags, "Unable to List Jobs", ws, err)
		return false
	}
	return len(found) == 1 && sameID(found[0].ID, id)
}

// ImportState refuses: a trigger is an event, of which the service keeps no record.
func (r *jobTriggerResource) ImportState(_ context.Context, _ resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.AddError("Trigger Cannot Be Imported",
		"A dataintegration_job_trigger stands for an event, one run of a job that Terraform asked for: "+
			"the service holds no trigger, so there is nothing to import. "+
			"Remove the import and apply the configuration instead: creating the trigger runs the job once, "+
			"and from then on the state records it like any other trigger.")
}

func (r *jobTriggerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan jobTriggerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultTriggerTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := client.WithLimit(ctx, "timeouts.create", timeout)
	defer cancel()

	run := jobRun{ws: plan.WorkspaceID.ValueString(), force: plan.ForceFullRefresh.ValueBool(), wait: plan.IfRunning.ValueString() == validate.IfRunningWait, again: againApply}
	at := pathJobID
	if !plan.JobName.IsNull() {
		at = pathJobName
		id := jobIDByName(ctx, r.data.client, run.ws, plan.JobName.ValueString(), &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		plan.JobID = types.StringValue(id)
	}
	run.job = plan.JobID.ValueString()
	seen, err := run.trigger(ctx, r.data.client)
	limit := triggerLimit{d: timeout, setting: "timeouts.create"}
	if err != nil && !triggerAnswerLost(ctx, &resp.Diagnostics, run.job, err, limit, triggerLostInState) {
		addTriggerError(ctx, r.data.client, &resp.Diagnostics, at, run, seen, limit, err)
		return
	}
	plan.ID = types.StringValue(uuid.NewString())
	plan.TriggeredAt = types.StringValue(time.Now().UTC().Format(time.RFC3339))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

const triggerLostInState = "The trigger is recorded in the state all the same, so that no later apply sends it again " +
	"and the job never runs twice for one trigger. If the job did not run (look at its executions in the service), " +
	"run it again by replacing this trigger, with `terraform apply -replace=<this resource's address>` (or by changing a value in its triggers)."

// Read makes no request: a trigger is an event.
func (r *jobTriggerResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *jobTriggerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan jobTriggerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *jobTriggerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state jobTriggerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !state.CancelOnDestroy.ValueBool() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultCancelTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := client.WithLimit(ctx, "timeouts.delete", timeout)
	defer cancel()

	ws, job := state.WorkspaceID.ValueString(), state.JobID.ValueString()
	err := r.data.client.CancelJob(ctx, ws, job)
	switch status := client.StatusCode(err); {
	case err == nil:
	case status == http.StatusConflict:
		resp.Diagnostics.AddWarning("Execution Already Ended", fmt.Sprintf(
			"Job %s had no running execution to cancel (HTTP 409: %s). The trigger is removed from the state.", job, serviceMessage(err)))
	case status == http.StatusNotFound:
		resp.Diagnostics.AddWarning("Job Not Found", fmt.Sprintf(
			"Job %s is not in workspace %s any more (HTTP 404: %s): there is nothing to cancel. The trigger is removed from the state.", job, ws, serviceMessage(err)))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		resp.Diagnostics.AddError("Timeout Cancelling Job", fmt.Sprintf(
			"The cancel of job %s did not complete within the delete timeout (%s): %v. The trigger stays in the state; destroy again, or raise timeouts.delete.", job, timeout, err))
	default:
		addRequestError(&resp.Diagnostics, "Unable to Cancel Job", ws, err)
	}
}
