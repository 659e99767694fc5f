package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The actions under an engine that has them (Terraform 1.14+); skipped,
// saying why, on the others.

// TestAccJobActions_invoke: `terraform apply -invoke` runs the job once
// and changes nothing else; the cancel action cancels its execution, and
// warns when there is none. terraform-plugin-testing has no -invoke: the
// CLI is run by hand.
func TestAccJobActions_invoke(t *testing.T) {
	t.Parallel()
	acctest.RequireCapability(t, acctest.CapActions) // before building the provider
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	dir := acctest.ConfigDir(t, fmt.Sprintf(`
provider "dataintegration" {}

action "dataintegration_run_job" "now" {
  config {
    job_id = %[1]q
  }
}

action "dataintegration_cancel_job" "now" {
  config {
    job_id = %[1]q
  }
}

resource "terraform_data" "untouched" {
  input = "a1"
}
`, job))
	vars := e.ServiceEnv()
	invoke := func(name string) string {
		t.Helper()
		return eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color", "-invoke=action."+name)
	}

	out := invoke("dataintegration_run_job.now")
	if ex := e.Sandbox.Executions(e.WorkspaceID, job); len(ex) != 1 || ex[0].Status != sandbox.StatusRunning {
		t.Fatalf("executions %+v, want one running", ex)
	}
	if !strings.Contains(out, "job "+job+" triggered") {
		t.Errorf("the invoke did not report the trigger:\n%s", out)
	}
	if res := acctest.StateResources(t, eng.Run(t, dir, nil, "show", "-json")); len(res) != 0 {
		t.Errorf("-invoke applied more than the action: the state holds %v", res)
	}

	invoke("dataintegration_cancel_job.now")
	if ex := e.Sandbox.Executions(e.WorkspaceID, job); len(ex) != 1 || ex[0].Status != sandbox.StatusCancelled {
		t.Fatalf("executions %+v, want one cancelled", ex)
	}
	out = invoke("dataintegration_cancel_job.now")
	if !strings.Contains(out, "No Running Execution") {
		t.Errorf("cancelling again did not warn that no execution runs:\n%s", out)
	}
	invoke("dataintegration_run_job.now")
	if ex := e.Sandbox.Executions(e.WorkspaceID, job); len(ex) != 2 {
		t.Errorf("executions %+v, want two: one per invoke", ex)
	}
	if got := e.Sandbox.Stats().ByRoute[acctest.RouteRunJob]; got != 2 {
		t.Errorf("%d triggers sent, want 2", got)
	}
}

// The actions' checks, called directly and over protocol 6 as Terraform
// asks for them.

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

// TestJobActions_checkTheirConfiguration: every argument of both actions is
// checked when Terraform validates the configuration, and the workspace
// when it plans, over protocol 6, before any request.
func TestJobActions_checkTheirConfiguration(t *testing.T) {
	t.Parallel()
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

// TestJobActions_checkTheirConfigurationWhenInvoked: a value unknown when
// Terraform validated the configuration (one from a resource of the same
// apply) reaches Invoke unchecked, since Terraform does not validate an
// action again before invoking it. Invoke refuses it with the same error,
// before any request.
func TestJobActions_checkTheirConfigurationWhenInvoked(t *testing.T) {
	t.Parallel()
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
