package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

var pathJobID = path.Root("job_id")

var (
	_ resource.ResourceWithConfigure  = (*jobTriggerResource)(nil)
	_ resource.ResourceWithModifyPlan = (*jobTriggerResource)(nil)
)

// Default timeouts of a trigger and of a cancel: room for the client's
// retries, each bounded by the request timeout and Retry-After.
const (
	defaultTriggerTimeout = 5 * time.Minute
	defaultCancelTimeout  = 5 * time.Minute
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
	ForceFullRefresh types.Bool     `tfsdk:"force_full_refresh"`
	Triggers         types.Map      `tfsdk:"triggers"`
	CancelOnDestroy  types.Bool     `tfsdk:"cancel_on_destroy"`
	TriggeredAt      types.String   `tfsdk:"triggered_at"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
}

func (r *jobTriggerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_trigger"
}

func (r *jobTriggerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Triggers one execution of a job when it is created. A trigger is an event: " +
			"refreshing it makes no request, and applying an unchanged configuration triggers nothing. " +
			"Changing `job_id`, `force_full_refresh`, `workspace_id` or `triggers` replaces it, which triggers the job again. " +
			"Destroying it cancels the job's running execution when `cancel_on_destroy` is `true`, and does nothing otherwise. " +
			"It cannot be imported: an event that already happened has nothing to import.",
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
			"job_id": schema.StringAttribute{
				MarkdownDescription: "The ID (a UUID) of the job to trigger. The job must be active and not running. Changing it triggers again.",
				Required:            true,
				Validators:          []validator.String{uuidValidator()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"force_full_refresh": schema.BoolAttribute{
				MarkdownDescription: "Whether the execution reloads everything, even for a job that loads increments. Defaults to `false`. Changing it triggers again.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"triggers": schema.MapAttribute{
				MarkdownDescription: "Arbitrary strings, such as a schema version or a commit: any change replaces the trigger, which triggers the job again. " +
					"Use it to run the job whenever something it depends on changes.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"cancel_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "Whether destroying the trigger cancels the job's running execution. Defaults to `false`: destroy makes no request. " +
					"The service cancels whatever execution of the job is running, which may be a later one than this trigger's. " +
					"An execution that has already ended, or a job that is gone, gives a warning, not an error. Changes in place.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"triggered_at": schema.StringAttribute{
				MarkdownDescription: "When the service accepted the trigger, as an RFC 3339 time in UTC.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": triggerTimeouts(ctx),
		},
	}
}

// triggerTimeouts is the timeouts block, described for the docs.
func triggerTimeouts(ctx context.Context) schema.Block {
	b := timeouts.Block(ctx, timeouts.Opts{
		Create: true,
		CreateDescription: "How long triggering the job may take, retries included, as a duration such as `\"30s\"` or `\"2m\"`. " +
			"Defaults to `\"" + shortDuration(defaultTriggerTimeout) + "\"`. When it ends before an answer came, the job may have started.",
		Delete: true,
		DeleteDescription: "How long cancelling the execution on destroy may take, retries included, as a duration such as `\"30s\"`. " +
			"Defaults to `\"" + shortDuration(defaultCancelTimeout) + "\"`. Only used with `cancel_on_destroy = true`.",
	})
	if nb, ok := b.(schema.SingleNestedBlock); ok {
		nb.MarkdownDescription = "How long triggering and cancelling may take."
		return nb
	}
	return b
}

// shortDuration writes d as people do: "5m", not "5m0s".
func shortDuration(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}

func (r *jobTriggerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (r *jobTriggerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.data.planWorkspace(ctx, req, resp)
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ws, job := plan.WorkspaceID.ValueString(), plan.JobID.ValueString()
	if err := r.data.client.TriggerJob(ctx, ws, job, plan.ForceFullRefresh.ValueBool()); err != nil {
		r.addTriggerError(ctx, &resp.Diagnostics, ws, job, timeout, err)
		return
	}
	plan.ID = types.StringValue(uuid.NewString())
	plan.TriggeredAt = types.StringValue(time.Now().UTC().Format(time.RFC3339))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read makes no request: a trigger is an event, and the state says when it
// happened.
func (r *jobTriggerResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

// Update changes only cancel_on_destroy or the timeouts: nothing to send.
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ws, job := state.WorkspaceID.ValueString(), state.JobID.ValueString()
	err := r.data.client.CancelJob(ctx, ws, job)
	var e *client.Error
	errors.As(err, &e)
	switch {
	case err == nil:
	case e != nil && e.StatusCode == http.StatusConflict:
		resp.Diagnostics.AddWarning("Execution Already Ended", fmt.Sprintf(
			"Job %s had no running execution to cancel (HTTP 409: %s). The trigger is removed from the state.", job, serviceMessage(e)))
	case e != nil && e.StatusCode == http.StatusNotFound:
		resp.Diagnostics.AddWarning("Job Not Found", fmt.Sprintf(
			"Job %s is not in workspace %s any more (HTTP 404: %s): there is nothing to cancel. The trigger is removed from the state.", job, ws, serviceMessage(e)))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		resp.Diagnostics.AddError("Timeout Cancelling Job", fmt.Sprintf(
			"The cancel of job %s did not complete within the delete timeout (%s): %v. The trigger stays in the state; destroy again, or raise timeouts.delete.", job, timeout, err))
	default:
		addRequestError(&resp.Diagnostics, "Unable to Cancel Job", ws, err)
	}
}

// addTriggerError explains why a trigger failed. On a 409 it reads the job,
// once, to say whether it is inactive or running: the service's reason is
// not part of its published API.
func (r *jobTriggerResource) addTriggerError(ctx context.Context, diags *diag.Diagnostics, ws, job string, timeout time.Duration, err error) {
	var e *client.Error
	errors.As(err, &e)
	switch {
	case e != nil && e.StatusCode == http.StatusNotFound:
		diags.AddAttributeError(pathJobID, "Job Not Found", fmt.Sprintf(
			"No job has the ID %s in workspace %s (HTTP 404: %s). Check job_id, for example with the dataintegration_jobs data source.", job, ws, serviceMessage(e)))
	case e != nil && e.StatusCode == http.StatusConflict:
		// Best effort: when the job cannot be read, the generic reason stays.
		j, _ := findJob(ctx, r.data.client, ws, job)
		switch {
		case j != nil && !j.IsActive:
			diags.AddAttributeError(pathJobID, "Job Is Inactive", fmt.Sprintf(
				"The service refused to run job %s because it is inactive (HTTP 409: %s). Activate the job in the service, then apply again.", job, serviceMessage(e)))
		case j != nil:
			diags.AddAttributeError(pathJobID, "Job Already Running", fmt.Sprintf(
				"The service refused to run job %s, which is active, so most likely already running (HTTP 409: %s). "+
					"Apply again once its execution has ended, or cancel it.", job, serviceMessage(e)))
		default:
			diags.AddAttributeError(pathJobID, "Job Not Triggered", fmt.Sprintf(
				"The service refused to run job %s (HTTP 409: %s). A job that is inactive or already running cannot be triggered.", job, serviceMessage(e)))
		}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		diags.AddError("Timeout Triggering Job", fmt.Sprintf(
			"The trigger of job %s did not complete within the create timeout (%s): %v. "+
				"The job may have started: check its executions before applying again, or raise timeouts.create.", job, timeout, err))
	case e != nil && e.MayHaveTakenEffect():
		addRequestError(diags, "Unable to Trigger Job", ws, err)
		diags.AddWarning("The Job May Have Started", fmt.Sprintf(
			"The trigger of job %s reached the service, but its answer was lost or is one given after the work may have been done, "+
				"so whether the service started the job is unknown. Check its executions before applying again.", job))
	default:
		addRequestError(diags, "Unable to Trigger Job", ws, err)
	}
}
