package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccRunJobAction_actionTrigger: an action_trigger after create runs
// the job once, an apply with nothing changed runs nothing, an update runs
// it again; nothing of the runs is in the state.
func TestAccRunJobAction_actionTrigger(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActions)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	cfg := func(commit string) string {
		return e.ProviderConfig() + acctest.RunJobHCL("commit", commit, fmt.Sprintf("    job_id = %q\n    force_full_refresh = true", strings.ToUpper(job)))
	}
	full := sandbox.Execution{ForceFullRefresh: true}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg("a1b2c3"), Check: resource.ComposeAggregateTestCheckFunc(e.ExpectExecutions(job, full), expectTriggers(e, 1))},
			{Config: cfg("a1b2c3"), Check: resource.ComposeAggregateTestCheckFunc(e.ExpectExecutions(job, full), expectTriggers(e, 1))},
			{
				PreConfig: func() { time.Sleep(10 * time.Millisecond) }, // the first execution ends
				Config:    cfg("d4e5f6"),
				Check: resource.ComposeAggregateTestCheckFunc(e.ExpectExecutions(job, full, full), expectTriggers(e, 2),
					func(s *terraform.State) error {
						if n := len(s.RootModule().Resources); n != 1 {
							return fmt.Errorf("the state holds %d resources, want the terraform_data alone", n)
						}
						return nil
					}),
			},
		},
	})
}

// TestAccRunJobAction_refusals: bad arguments fail the plan with no
// request sent; the service's refusals fail the apply, with the reason.
func TestAccRunJobAction_refusals(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActions)
	const job = "5f0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10"
	t.Run("before any request", func(t *testing.T) {
		e := acctest.NewEnv(t, sandbox.Config{Jobs: 1})
		var steps []resource.TestStep
		for _, c := range []struct{ provider, body, want string }{
			{e.ProviderConfig(), `    job_id = "42"`, `job_id: "42" is not a UUID`},
			{e.ProviderConfig(), `    job_name = " "`, `job_name: `},
			{e.ProviderConfig(), fmt.Sprintf("    job_id = %q\n    job_name = \"Orders\"", job), `job_name`},
			{e.ProviderConfig(), fmt.Sprintf("    job_id = %q\n    if_running = \"queue\"", job), `Allowed: "fail" or "wait"`},
			{e.ProviderConfig(), fmt.Sprintf("    job_id = %q\n    timeout = \"0s\"", job), `timeout: the duration must be positive`},
			{e.ProviderWithoutWorkspace(), fmt.Sprintf("    job_id = %q", job), `Missing Workspace`},
		} {
			steps = append(steps, resource.TestStep{Config: c.provider + acctest.RunJobHCL("bad", "a1", c.body), ExpectError: acctest.Phrases(c.want)})
		}
		resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
		e.ExpectNoRequests(t)
	})
	t.Run("from variables", func(t *testing.T) {
		// Terraform validates an action before variables have values: the
		// plan checks them, before anything is applied.
		expectValuesRefused(t, job, "variable \"v\" {\n  default = %s\n}\n",
			"    job_id     = try(var.v.job_id, null)\n"+
				"    job_name   = try(var.v.job_name, null)\n"+
				"    if_running = try(var.v.if_running, null)\n"+
				"    timeout    = try(var.v.timeout, null)",
			true, []refusedValues{
				{`{ job_id = "42" }`, `job_id: "42" is not a UUID`},
				{`{ job_name = " " }`, `job_name: `},
				{`{ job_id = "%s", if_running = "Wait" }`, `Allowed: "fail" or "wait"`},
				{`{ job_id = "%s", timeout = "0s" }`, `timeout: the duration must be positive`},
			})
	})
	t.Run("known only at apply", func(t *testing.T) {
		// Values from a resource the same apply makes are unknown when
		// Terraform validates the action, and it does not validate the
		// action again before invoking it: the action checks them itself.
		expectValuesRefused(t, job, "resource \"terraform_data\" \"values\" {\n  input = %s\n}\n",
			"    job_id       = terraform_data.values.output.job_id\n"+
				"    if_running   = try(terraform_data.values.output.if_running, null)\n"+
				"    timeout      = try(terraform_data.values.output.timeout, null)\n"+
				"    workspace_id = try(terraform_data.values.output.workspace_id, null)",
			false, []refusedValues{
				{`{ job_id = "42" }`, `job_id: "42" is not a UUID`},
				{`{ job_id = null }`, `job_id`},
				{`{ job_id = "%s", if_running = "WAIT" }`, `Allowed: "fail" or "wait"`},
				{`{ job_id = "%s", timeout = "-5m" }`, `timeout: `},
				{`{ job_id = "%s", workspace_id = "zzz" }`, `workspace_id: `},
			})
	})
	t.Run("by the service", func(t *testing.T) {
		e, running, inactive := acctest.RefusingEnv(t)
		badKey := e.ProviderWithKey("not-the-key")
		var steps []resource.TestStep
		// Each step a new input, so that each runs the action: a failed run
		// leaves the terraform_data updated all the same.
		for i, c := range []struct {
			provider, job string
			want          []string
		}{
			{e.ProviderConfig(), inactive, []string{"Job Is Inactive", "refused to run job " + inactive, "HTTP 409: job is inactive"}},
			{e.ProviderConfig(), running, []string{"Job Already Running", "refused to run job " + running, "HTTP 409: job is already running"}},
			{e.ProviderConfig(), job, []string{"Job Not Found", "No job has the ID " + job, "HTTP 404"}},
			{badKey, running, []string{"Authentication Failed", "HTTP 401: Invalid API key."}},
		} {
			steps = append(steps, resource.TestStep{
				Config:      c.provider + acctest.RunJobHCL("refused", fmt.Sprint("commit ", i), fmt.Sprintf("    job_id = %q", c.job)),
				ExpectError: acctest.Phrases(c.want...),
			})
		}
		// The terraform_data was created all the same: applying the same
		// commit again runs nothing (the guide says to use -invoke).
		again := steps[0]
		again.ExpectError, again.Check = nil, expectTriggers(e, 2)
		steps = append(steps[:1], append([]resource.TestStep{again}, steps[1:]...)...)
		resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
		if got := e.Sandbox.Stats().ByRoute[acctest.RouteRunJob]; got != 1+4 {
			t.Errorf("the sandbox served %d triggers, want 5 (one by the test, four refused)", got)
		}
		if got := e.Sandbox.Executions(e.WorkspaceID, running); len(got) != 1 {
			t.Errorf("the running job has %d executions, want 1", len(got))
		}
	})
}

// TestAccRunJobAction_waitsIfRunning: with if_running = "wait", a job
// started a moment before is waited for; the second execution starts after
// the first ended.
func TestAccRunJobAction_waitsIfRunning(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActions)
	testWaitsIfRunning(t, func(job string) string {
		return acctest.RunJobHCL("wait", "a1", fmt.Sprintf("    job_id = %q\n    if_running = \"wait\"\n    timeout = \"1m\"", job))
	})
}

// TestAccRunJobAction_faults: the sandbox refuses 30% of requests with 429
// or 503 before doing anything; the retries make every run succeed, and
// every job runs exactly once.
func TestAccRunJobAction_faults(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActions)
	// 20 jobs, so that none of their runs meeting a fault (0.7^20) does not
	// happen in practice.
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 40})
	e.RequireSandbox(t, "inject faults")
	jobs, _ := acctest.ActiveJobs(t, e, 20)
	all := e.JobsOneByOne(t, client.JobFilter{})
	names := map[string]string{}
	for _, j := range all {
		names[j.ID] = *j.Name
	}
	var body strings.Builder
	for i, id := range jobs {
		// Half by name, so that the lookups meet faults too.
		by := fmt.Sprintf("    job_id = %q", id)
		if i%2 == 1 {
			by = fmt.Sprintf("    job_name = %q", names[id])
		}
		body.WriteString(acctest.RunJobHCL(fmt.Sprintf("r%d", i), "a1", by))
	}
	// Retries enough that all of them failing does not happen in practice.
	faultsRunEachOnce(t, e, e.ProviderConfig("max_retries = 10")+body.String(), jobs, 5)
}

// TestAccRunJobAction_taintedAfterTimeout: with on_failure = taint, a
// wait that outlasts its timeout fails the apply and taints the
// terraform_data; the next apply of the same commit waits again and runs
// the job, once; the one after runs nothing (Terraform 1.16+).
func TestAccRunJobAction_taintedAfterTimeout(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActionTriggers)
	// The first apply must reach its 2s wait well before the execution
	// started before it ends, however loaded the machine.
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: 20 * time.Second})
	e.RequireSandbox(t, "start an execution of some seconds and count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	cfg := func(timeout string) string {
		return e.ProviderConfig() + fmt.Sprintf(`
action "dataintegration_run_job" "this" {
  config {
    job_id     = %q
    if_running = "wait"
    timeout    = %q
  }
}

resource "terraform_data" "commit" {
  triggers_replace = "a1b2c3"

  lifecycle {
    action_trigger {
      events     = [after_create]
      actions    = [action.dataintegration_run_job.this]
      on_failure = taint
    }
  }
}
`, job, timeout)
	}
	executions := func(n int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			acctest.ExpectSequential(t, e.Sandbox.Executions(e.WorkspaceID, job), n)
			return nil
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := e.Client(t).TriggerJob(context.Background(), e.WorkspaceID, job, false); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg("2s"),
				// The wait ends between two attempts (Job Still Running), or,
				// on a loaded machine, during one (Timeout Triggering Job) or
				// before one that would pass it.
				ExpectError: regexp.MustCompile(`Job Still Running|Timeout Triggering Job|Trigger Given Up Before Its Limit`),
			},
			// A raised timeout changes nothing planned: the taint alone
			// replaces the terraform_data.
			{Config: cfg("1m"), Check: executions(2)},
			{Config: cfg("1m"), Check: executions(2)},
		},
	})
}

func TestRunJobAction_runsTheJobOnce(t *testing.T) {
	t.Parallel()
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

// TestRunJobAction_refusals: each refusal fails the action with its reason,
// on the attribute that named the job, and starts nothing.
func TestRunJobAction_refusals(t *testing.T) {
	t.Parallel()
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

// TestRunJobAction_waitsForTheRunningExecution: with if_running = "wait",
// the action waits for the running execution, saying so, and starts the
// next one after it ended: the job runs once more, not twice.
func TestRunJobAction_waitsForTheRunningExecution(t *testing.T) {
	t.Parallel()
	srv, data, job := runningJob(t, 1500*time.Millisecond)
	got := invoke(t, NewRunJobAction(), data, runJob(job, "wait"))
	failOn(t, got.diags)
	expectProgress(t, got.progress, "job "+job+" is running; waiting (0s elapsed)")
	expectProgress(t, got.progress, "triggered")
	acctest.ExpectSequential(t, srv.Executions(data.workspaceID, job), 2)
}

// TestRunJobAction_waitEndsAtTheTimeout: a wait that outlasts the timeout
// fails, saying so, and triggers nothing more.
func TestRunJobAction_waitEndsAtTheTimeout(t *testing.T) {
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

// expectTriggers checks how many triggers the sandbox served in all.
func expectTriggers(e *acctest.Env, want int64) resource.TestCheckFunc {
	return e.ExpectRouteCount(acctest.RouteRunJob, want)
}

// refusedValues is an object of the action's arguments, in HCL (%s, if
// any, is the job's ID), and the phrase its refusal must hold.
type refusedValues struct{ values, want string }

// expectValuesRefused applies, for each case, a run_job action whose config
// is body, taking its arguments from the case's values declared by decl
// (whose %s is the object); each must be refused with its phrase, at plan
// when planOnly, and no request may reach the service.
func expectValuesRefused(t *testing.T, job, decl, body string, planOnly bool, cases []refusedValues) {
	t.Helper()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 1})
	var steps []resource.TestStep
	for i, c := range cases {
		values := c.values
		if strings.Contains(values, "%s") {
			values = fmt.Sprintf(values, job)
		}
		steps = append(steps, resource.TestStep{
			Config:      e.ProviderConfig() + fmt.Sprintf(decl, values) + acctest.RunJobHCL("refused", fmt.Sprint("commit ", i), body),
			PlanOnly:    planOnly,
			ExpectError: acctest.Phrases(c.want),
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
	e.ExpectNoRequests(t)
}
