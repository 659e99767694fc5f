package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The actions' Invoke called directly, with a client to a sandbox, for what
// needs no engine; and their checks over protocol 6, as Terraform asks for
// them.

// invoked is what an Invoke answered: its diagnostics and the progress it
// sent.
type invoked struct {
	diags    diag.Diagnostics
	progress []string
}

// invoke configures a with data and calls its Invoke with a configuration
// holding model: a model struct, or a map of the attributes set (strings
// and bools), every other one null.
func invoke(t *testing.T, a action.Action, data *providerData, model any) invoked {
	t.Helper()
	ctx := context.Background()
	var cr action.ConfigureResponse
	a.(action.ActionWithConfigure).Configure(ctx, action.ConfigureRequest{ProviderData: data}, &cr)
	failOn(t, cr.Diagnostics)
	var sr action.SchemaResponse
	a.Schema(ctx, action.SchemaRequest{}, &sr)
	st := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
	if set, ok := model.(map[string]any); ok {
		typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
		st.Raw = tftypes.NewValue(typ, acctest.ObjectAttrs(typ, set))
	} else {
		failOn(t, st.Set(ctx, model))
	}
	var out invoked
	resp := action.InvokeResponse{SendProgress: func(e action.InvokeProgressEvent) { out.progress = append(out.progress, e.Message) }}
	a.Invoke(ctx, action.InvokeRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: st.Raw}}, &resp)
	out.diags = resp.Diagnostics
	return out
}

// runJob is a dataintegration_run_job configuration of the job by ID, in
// the provider's workspace, with if_running.
func runJob(job, ifRunning string) runJobModel {
	m := runJobModel{
		jobActionTarget:  jobActionTarget{JobID: types.StringValue(job), JobName: types.StringNull(), WorkspaceID: types.StringNull()},
		ForceFullRefresh: types.BoolNull(), IfRunning: types.StringNull(), Timeout: types.StringNull(),
	}
	if ifRunning != "" {
		m.IfRunning = types.StringValue(ifRunning)
	}
	return m
}

// cancelJob is a dataintegration_cancel_job configuration of the job by ID.
func cancelJob(job string) jobActionTarget {
	return jobActionTarget{JobID: types.StringValue(job), JobName: types.StringNull(), WorkspaceID: types.StringNull()}
}

func expectProgress(t *testing.T, got []string, want string) {
	t.Helper()
	for _, p := range got {
		if strings.Contains(p, want) {
			return
		}
	}
	t.Errorf("progress %q, want a message with %q", got, want)
}

func TestRunJobActionRunsTheJobOnce(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 3}, sandbox.DefaultAPIKey)
	jobs := srv.Jobs(data.workspaceID)
	t.Run("by ID, full refresh", func(t *testing.T) {
		m := runJob(strings.ToUpper(jobs[0].ID), "")
		m.ForceFullRefresh = types.BoolValue(true)
		got := invoke(t, NewRunJobAction(), data, m)
		failOn(t, got.diags)
		expectProgress(t, got.progress, "triggered")
		if ex := srv.Executions(data.workspaceID, jobs[0].ID); len(ex) != 1 || !ex[0].ForceFullRefresh {
			t.Errorf("executions %+v, want one full refresh", ex)
		}
	})
	t.Run("by name", func(t *testing.T) {
		m := runJob("", "")
		m.JobID, m.JobName, m.WorkspaceID = types.StringNull(), types.StringValue(jobs[1].Name), types.StringValue(data.workspaceID)
		failOn(t, invoke(t, NewRunJobAction(), data, m).diags)
		if ex := srv.Executions(data.workspaceID, jobs[1].ID); len(ex) != 1 || ex[0].ForceFullRefresh {
			t.Errorf("executions %+v, want one, not a full refresh", ex)
		}
	})
}

// TestRunJobActionRefusals: each refusal fails the action with its reason,
// on the attribute that named the job, and starts nothing.
func TestRunJobActionRefusals(t *testing.T) {
	const other = "0f0f0f0f-0000-4000-8000-00000000abcd"
	cfg := sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour, Keys: []sandbox.KeyBinding{
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: sandbox.DefaultWorkspaceID},
		{APIKey: "other-key", WorkspaceID: acctest.SecondWorkspace},
	}}
	srv, data := unitSandbox(t, cfg, sandbox.DefaultAPIKey)
	var active, inactive string
	for _, j := range srv.Jobs(data.workspaceID) {
		if j.IsActive && active == "" {
			active = j.ID
		} else if !j.IsActive && inactive == "" {
			inactive = j.ID
		}
	}
	if err := data.client.TriggerJob(t.Context(), data.workspaceID, active, false); err != nil {
		t.Fatal(err)
	}
	byName := runJob("", "")
	byName.JobID, byName.JobName = types.StringNull(), types.StringValue("no such job")
	elsewhere := runJob(active, "")
	elsewhere.WorkspaceID = types.StringValue(acctest.SecondWorkspace)
	for _, c := range []struct {
		name    string
		model   runJobModel
		key     string
		summary string
		phrases []string
	}{
		// An apply of the same configuration does not run an action again:
		// its refusals say to invoke it.
		{"inactive", runJob(inactive, ""), "", "Job Is Inactive", []string{inactive, "HTTP 409: job is inactive", "then invoke the action again with `terraform apply -invoke"}},
		{"inactive, with wait", runJob(inactive, "wait"), "", "Job Is Inactive", []string{inactive, "HTTP 409: job is inactive"}},
		{"running", runJob(active, ""), "", "Job Already Running", []string{active, "HTTP 409: job is already running", `if_running = "wait"`, "invoke the action again"}},
		{"unknown ID", runJob(other, ""), "", "Job Not Found", []string{other, "HTTP 404"}},
		{"unknown name", byName, "", "Job Not Found", []string{`No job is named "no such job"`}},
		{"refused key", runJob(active, ""), "not-the-key", "Authentication Failed", []string{"HTTP 401"}},
		{"other workspace", elsewhere, "", "Access Denied", []string{acctest.SecondWorkspace, "HTTP 403"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := data
			if c.key != "" {
				_, d = unitSandboxAt(t, cfg, c.key, "")
			}
			before := srv.Stats().ByRoute
			onlyError(t, invoke(t, NewRunJobAction(), d, c.model).diags, c.summary, c.phrases...)
			after := srv.Stats().ByRoute
			if runs, lists := after[acctest.RouteRunJob]-before[acctest.RouteRunJob], after[acctest.RouteListJobs]-before[acctest.RouteListJobs]; runs > 1 || lists > 1 {
				t.Errorf("%d triggers and %d job lists sent, want at most one of each", runs, lists)
			}
		})
	}
	if ex := srv.Executions(data.workspaceID, active); len(ex) != 1 {
		t.Errorf("the running job has %d executions, want the one started before", len(ex))
	}
	if ex := srv.Executions(data.workspaceID, inactive); len(ex) != 0 {
		t.Errorf("the inactive job has %d executions", len(ex))
	}
}

// TestRunJobActionWaitsForTheRunningExecution: with if_running = "wait",
// the action waits for the running execution, saying so, and starts the
// next one after it ended: the job runs once more, not twice.
func TestRunJobActionWaitsForTheRunningExecution(t *testing.T) {
	srv, data, job := runningJob(t, 1500*time.Millisecond)
	got := invoke(t, NewRunJobAction(), data, runJob(job, "wait"))
	failOn(t, got.diags)
	expectProgress(t, got.progress, "job "+job+" is running; waiting (0s elapsed)")
	expectProgress(t, got.progress, "triggered")
	acctest.ExpectSequential(t, srv.Executions(data.workspaceID, job), 2)
}

// runningJob is a sandbox of one job, and the job's ID, with an execution
// of it started that runs for runFor.
func runningJob(t *testing.T, runFor time.Duration) (*sandbox.Server, *providerData, string) {
	t.Helper()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1, RunDuration: runFor}, sandbox.DefaultAPIKey)
	job := srv.Jobs(data.workspaceID)[0].ID
	if err := data.client.TriggerJob(t.Context(), data.workspaceID, job, false); err != nil {
		t.Fatal(err)
	}
	return srv, data, job
}

// TestRunJobActionWaitEndsAtTheTimeout: a wait that outlasts the timeout
// fails, saying so, and triggers nothing more.
func TestRunJobActionWaitEndsAtTheTimeout(t *testing.T) {
	srv, data, job := runningJob(t, time.Hour)
	m := runJob(job, "wait")
	m.Timeout = types.StringValue("3s")
	start := time.Now()
	got := invoke(t, NewRunJobAction(), data, m)
	onlyError(t, got.diags, "Job Still Running", job, "timeout (3s) ended", "HTTP 409: job is already running", "raise timeout")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the action took %v with a 3s timeout", took)
	}
	if ex := srv.Executions(data.workspaceID, job); len(ex) != 1 {
		t.Errorf("%d executions, want the one started before", len(ex))
	}
}

// TestJobTriggerWaitsForTheRunningExecution: the trigger resource's
// if_running = "wait" waits within the create timeout, and the one it
// records ran after the running one ended.
func TestJobTriggerWaitsForTheRunningExecution(t *testing.T) {
	srv, data, job := runningJob(t, 1500*time.Millisecond)
	m := triggerState(data.workspaceID, job, false)
	m.IfRunning = types.StringValue("wait")
	resp := create(t, configured(t, NewJobTriggerResource(), data), m)
	failOn(t, resp.Diagnostics)
	if resp.State.Raw.IsNull() {
		t.Fatal("the trigger was not recorded")
	}
	acctest.ExpectSequential(t, srv.Executions(data.workspaceID, job), 2)
}

// TestJobTriggerWaitEndsAtTheCreateTimeout: the create timeout bounds the
// wait; nothing is recorded, so that the next apply tries again.
func TestJobTriggerWaitEndsAtTheCreateTimeout(t *testing.T) {
	srv, data, job := runningJob(t, time.Hour)
	m := triggerState(data.workspaceID, job, false)
	m.IfRunning = types.StringValue("wait")
	m.Timeouts.Object = types.ObjectValueMust(m.Timeouts.AttributeTypes(context.Background()),
		map[string]attr.Value{"create": types.StringValue("3s"), "delete": types.StringNull()})
	resp := create(t, configured(t, NewJobTriggerResource(), data), m)
	onlyError(t, resp.Diagnostics, "Job Still Running", job, "timeouts.create (3s) ended", "raise timeouts.create")
	if !resp.State.Raw.IsNull() || len(srv.Executions(data.workspaceID, job)) != 1 {
		t.Errorf("state %v, executions %d", resp.State.Raw, len(srv.Executions(data.workspaceID, job)))
	}
}

func TestCancelJobAction(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 2, RunDuration: time.Hour}, sandbox.DefaultAPIKey)
	jobs := srv.Jobs(data.workspaceID)
	running, idle := jobs[0], jobs[1]
	if err := data.client.TriggerJob(t.Context(), data.workspaceID, running.ID, false); err != nil {
		t.Fatal(err)
	}

	byName := cancelJob("")
	byName.JobID, byName.JobName = types.StringNull(), types.StringValue(running.Name)
	got := invoke(t, NewCancelJobAction(), data, byName)
	failOn(t, got.diags)
	expectProgress(t, got.progress, "job "+running.ID+" cancelled")
	if ex := srv.Executions(data.workspaceID, running.ID); len(ex) != 1 || ex[0].Status != sandbox.StatusCancelled {
		t.Errorf("executions %+v, want one, cancelled", ex)
	}

	onlyWarning(t, invoke(t, NewCancelJobAction(), data, cancelJob(idle.ID)).diags,
		"No Running Execution", "Job "+idle.ID+" had no running execution to cancel (HTTP 409: no running execution)")

	const gone = "0f0f0f0f-0000-4000-8000-00000000abcd"
	onlyError(t, invoke(t, NewCancelJobAction(), data, cancelJob(gone)).diags, "Job Not Found", gone, "HTTP 404")

	_, refused := unitSandbox(t, sandbox.Config{Jobs: 1}, "not-the-key")
	onlyError(t, invoke(t, NewCancelJobAction(), refused, cancelJob(idle.ID)).diags, "Authentication Failed", "HTTP 401")
}

// actionConfigJob is a job ID of actionConfigCases.
const actionConfigJob = "5f0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10"

// actionConfigCases are configurations of both actions, and the error each
// gets before any request ("" for none).
var actionConfigCases = func() []struct {
	action string
	set    map[string]any
	want   string
} {
	const job = actionConfigJob
	return []struct {
		action string
		set    map[string]any
		want   string
	}{
		{"dataintegration_run_job", map[string]any{"job_id": job}, ""},
		{"dataintegration_run_job", map[string]any{"job_name": "Orders", "if_running": "wait", "timeout": "90s", "force_full_refresh": true}, ""},
		{"dataintegration_run_job", map[string]any{}, "job_id"},
		{"dataintegration_run_job", map[string]any{"job_id": job, "job_name": "Orders"}, "job_name"},
		{"dataintegration_run_job", map[string]any{"job_id": "42"}, "job_id: "},
		{"dataintegration_run_job", map[string]any{"job_name": "  "}, "job_name: "},
		{"dataintegration_run_job", map[string]any{"job_id": job, "workspace_id": "ws"}, "workspace_id: "},
		{"dataintegration_run_job", map[string]any{"job_id": job, "if_running": "Wait"}, `Allowed: "fail" or "wait"`},
		{"dataintegration_run_job", map[string]any{"job_id": job, "timeout": "0s"}, "timeout: the duration must be positive"},
		{"dataintegration_run_job", map[string]any{"job_id": job, "timeout": "10"}, "timeout: "},
		{"dataintegration_cancel_job", map[string]any{"job_id": job}, ""},
		{"dataintegration_cancel_job", map[string]any{}, "job_id"},
		{"dataintegration_cancel_job", map[string]any{"job_id": "not a uuid"}, "job_id: "},
		{"dataintegration_cancel_job", map[string]any{"job_id": job, "job_name": "x"}, "job_name"},
	}
}()

// TestJobActionsCheckTheirConfiguration: every argument of both actions is
// checked when Terraform validates the configuration, and the workspace
// when it plans, over protocol 6, before any request.
func TestJobActionsCheckTheirConfiguration(t *testing.T) {
	const job = actionConfigJob
	p := serveProto(t)
	actions, ok := p.Server.(tfprotov6.ActionServer)
	if !ok {
		t.Fatal("the provider's server has no actions")
	}
	for _, c := range actionConfigCases {
		resp, err := actions.ValidateActionConfig(context.Background(), &tfprotov6.ValidateActionConfigRequest{
			ActionType: c.action, Config: actionConfig(p, t, c.action, c.set),
		})
		if err != nil {
			t.Fatal(err)
		}
		errs := 0
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				errs++
				if c.want == "" || !strings.Contains(d.Summary+": "+d.Detail, c.want) {
					t.Errorf("%s %v: got %s, want %s", c.action, c.set, protoDiags(resp.Diagnostics), c.want)
				}
			}
		}
		if c.want != "" && errs != 1 {
			t.Errorf("%s %v: got %s, want one error with %q", c.action, c.set, protoDiags(resp.Diagnostics), c.want)
		}
	}

	// No workspace anywhere: the plan fails, and nothing was sent.
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1}, sandbox.DefaultAPIKey)
	noWorkspace := &providerData{client: data.client}
	for _, a := range []action.Action{NewRunJobAction(), NewCancelJobAction()} {
		var cr action.ConfigureResponse
		a.(action.ActionWithConfigure).Configure(context.Background(), action.ConfigureRequest{ProviderData: noWorkspace}, &cr)
		var sr action.SchemaResponse
		a.Schema(context.Background(), action.SchemaRequest{}, &sr)
		st := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(context.Background()), nil)}
		failOn(t, st.SetAttribute(context.Background(), pathJobID, types.StringValue(job)))
		var resp action.ModifyPlanResponse
		a.(action.ActionWithModifyPlan).ModifyPlan(context.Background(), action.ModifyPlanRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: st.Raw}}, &resp)
		onlyError(t, resp.Diagnostics, "Missing Workspace", "set workspace_id here")
	}
	if n := srv.Stats().Requests; n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// TestJobActionsCheckTheirConfigurationWhenInvoked: a value unknown when
// Terraform validated the configuration (one from a resource of the same
// apply) reaches Invoke unchecked, since Terraform does not validate an
// action again before invoking it. Invoke refuses it with the same error,
// before any request.
func TestJobActionsCheckTheirConfigurationWhenInvoked(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1}, sandbox.DefaultAPIKey)
	news := map[string]func() action.Action{"dataintegration_run_job": NewRunJobAction, "dataintegration_cancel_job": NewCancelJobAction}
	for _, c := range actionConfigCases {
		if c.want == "" {
			continue
		}
		got := invoke(t, news[c.action](), data, c.set).diags
		if got.ErrorsCount() != 1 || !strings.Contains(got.Errors()[0].Summary()+": "+got.Errors()[0].Detail(), c.want) {
			t.Errorf("%s %v invoked: got %v, want one error with %q", c.action, c.set, got, c.want)
		}
	}
	if n := srv.Stats().Requests; n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// actionConfig is a configuration of an action: the given attributes set
// (strings and bools), every other one null.
func actionConfig(p *acctest.ProtoProvider, t *testing.T, name string, set map[string]any) *tfprotov6.DynamicValue {
	t.Helper()
	s, ok := p.Schemas.ActionSchemas[name]
	if !ok {
		t.Fatalf("no action %s", name)
	}
	dv := acctest.ProtoValue(t, s.Schema, set)
	return &dv
}
