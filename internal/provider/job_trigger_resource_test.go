package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func TestAccJobTrigger_lifecycle(t *testing.T) {
	// Executions end at once, so that the job can run again.
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	full := sandbox.Execution{ForceFullRefresh: true}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	cfg := func(body string) string {
		return e.ProviderConfig() + acctest.TriggerHCL("test", job, "  force_full_refresh = true\n"+body)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			// cancel_on_destroy was true, and the execution had ended: the
			// cancel was asked once, and answered 409 (a warning).
			e.ExpectRouteCount(acctest.RouteCancelJob, 1),
			e.ExpectExecutions(job, full, full),
		),
		Steps: []resource.TestStep{
			{
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.WorkspaceID)),
						plancheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("cancel_on_destroy"), knownvalue.Bool(false)),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(acctest.TriggerAddress, tfjsonpath.New("id")),
					newID.AddStateValue(acctest.TriggerAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("id"), knownvalue.StringRegexp(acctest.UUIDRE)),
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("triggered_at"), knownvalue.StringRegexp(acctest.RFC3339RE)),
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(job)),
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("force_full_refresh"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("triggers"), knownvalue.MapSizeExact(0)),
				},
				Check: e.ExpectExecutions(job, full),
			},
			{
				// The same configuration again, after a refresh: nothing is sent.
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionNoop)},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(acctest.TriggerAddress, tfjsonpath.New("id"))},
				Check: resource.ComposeAggregateTestCheckFunc(
					e.ExpectExecutions(job, full),
					// The trigger was the only request: refreshes and plans send none.
					func(*terraform.State) error {
						if st := e.Sandbox.Stats(); st.Requests != 1 || st.ByRoute[acctest.RouteRunJob] != 1 {
							return fmt.Errorf("the sandbox served %d requests (%v), want the one trigger", st.Requests, st.ByRoute)
						}
						return nil
					},
				),
			},
			{
				Config: cfg(`  triggers = { schema_version = "2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionReplace)},
				},
				ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(acctest.TriggerAddress, tfjsonpath.New("id"))},
				Check:             e.ExpectExecutions(job, full, full),
			},
			{
				Config: cfg("  triggers = { schema_version = \"2\" }\n  cancel_on_destroy = true\n  timeouts {\n    delete = \"1m\"\n  }"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("cancel_on_destroy"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					e.ExpectExecutions(job, full, full),
					e.ExpectRouteCount(acctest.RouteRunJob, 2),
				),
			},
		},
	})
}

func TestAccJobTrigger_cancelOnDestroy(t *testing.T) {
	// Executions run for an hour: still running when the test destroys.
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour})
	e.RequireSandbox(t, "see whether the execution was cancelled")
	jobs, _ := acctest.ActiveJobs(t, e, 2)
	cancelled, kept := jobs[0], jobs[1]
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			e.ExpectExecutions(cancelled, sandbox.Execution{Status: sandbox.StatusCancelled}),
			e.ExpectExecutions(kept, sandbox.Execution{Status: sandbox.StatusRunning}),
			e.ExpectRouteCount(acctest.RouteCancelJob, 1),
		),
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + acctest.TriggerHCL("cancelled", cancelled, "  cancel_on_destroy = true") + acctest.TriggerHCL("kept", kept, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				e.ExpectExecutions(cancelled, sandbox.Execution{Status: sandbox.StatusRunning}),
				e.ExpectExecutions(kept, sandbox.Execution{Status: sandbox.StatusRunning}),
			),
		}},
	})
}

func TestAccJobTrigger_refusals(t *testing.T) {
	e, running, inactive := acctest.RefusingEnv(t)
	const unknown = "0f0f0f0f-0000-4000-8000-00000000abcd"
	// After a refusal the trigger is not in the state: the next plan creates it.
	notInState := resource.TestStep{
		Config:             e.ProviderConfig() + acctest.TriggerHCL("test", inactive, ""),
		PlanOnly:           true,
		ExpectNonEmptyPlan: true,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PostApplyPreRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionCreate)},
		},
	}
	badKey := e.ProviderWithKey("not-the-key")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      e.ProviderConfig() + acctest.TriggerHCL("test", inactive, ""),
				ExpectError: acctest.Phrases("Job Is Inactive", "refused to run job "+inactive+" because it is inactive", "HTTP 409: job is inactive", "Activate the job in the service, then apply again."),
			},
			notInState,
			{
				Config:      e.ProviderConfig() + acctest.TriggerHCL("test", running, ""),
				ExpectError: acctest.Phrases("Job Already Running", "refused to run job "+running, "HTTP 409: job is already running"),
			},
			{
				Config:      e.ProviderConfig() + acctest.TriggerHCL("test", unknown, ""),
				ExpectError: acctest.Phrases("Job Not Found", "No job has the ID "+unknown+" in workspace "+e.WorkspaceID, "HTTP 404: Not found."),
			},
			{
				Config:      badKey + acctest.TriggerHCL("test", inactive, ""),
				ExpectError: acctest.Phrases("Authentication Failed", "did not accept the API key", "HTTP 401: Invalid API key."),
			},
			{
				Config:      e.ProviderConfig() + acctest.TriggerHCL("test", "job-1", ""),
				ExpectError: acctest.Phrases("Invalid Attribute Value", `"job-1" is not a UUID`),
			},
			notInState,
		},
	})
	// One refused trigger each for the inactive, running, unknown job and the
	// bad key; the job that was running still has its one execution.
	if got := e.Sandbox.Stats().ByRoute[acctest.RouteRunJob]; got != 1+4 {
		t.Errorf("the sandbox served %d triggers, want 5 (one by the test, four refused)", got)
	}
	if got := e.Sandbox.Executions(e.WorkspaceID, running); len(got) != 1 {
		t.Errorf("the running job has %d executions, want 1", len(got))
	}
}

// TestAccJobTrigger_faults: the sandbox refuses 30% of requests with 429 or
// 503 before doing anything; the retries make every trigger succeed, and no
// job runs twice.
func TestAccJobTrigger_faults(t *testing.T) {
	// 20 jobs, so that none of their triggers meeting a fault (0.7^20)
	// does not happen in practice.
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 40})
	e.RequireSandbox(t, "inject faults")
	jobs, _ := acctest.ActiveJobs(t, e, 20)
	var body strings.Builder
	for i, id := range jobs {
		body.WriteString(acctest.TriggerHCL(fmt.Sprintf("t%d", i), id, ""))
	}
	// Retries enough that all of them failing (0.3^11 for one trigger) does not
	// happen in practice.
	faultsRunEachOnce(t, e, e.ProviderConfig("max_retries = 10")+body.String(), jobs, 7)
}

// TestAccJobTrigger_maxRetries: a service that answers every trigger 429
// is tried max_retries + 1 times, then the apply fails naming max_retries,
// and saying the job did not start, with nothing in the state.
func TestAccJobTrigger_maxRetries(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.RequireSandbox(t, "inject faults")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{429}, Methods: []string{"POST"}}); err != nil {
					t.Fatal(err)
				}
			},
			Config:      e.ProviderConfig("max_retries = 2") + acctest.TriggerHCL("test", jobs[0], ""),
			ExpectError: acctest.Phrases("Unable to Trigger Job", "HTTP 429", "gave up after 3 attempts", "at max_retries (2)", "The job did not start"),
		}},
	})
	if n, sent := len(e.Sandbox.Executions(e.WorkspaceID, jobs[0])), e.Sandbox.Stats().ByRoute[acctest.RouteRunJob]; n != 0 || sent != 3 {
		t.Errorf("the job has %d executions after %d triggers, want none after 3", n, sent)
	}
}

// TestAccJobTrigger_createTimeout: a service that keeps answering 503 is
// retried until timeouts.create, then the apply fails saying so, with nothing
// in the state.
func TestAccJobTrigger_createTimeout(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.RequireSandbox(t, "inject faults")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	provider := e.ProviderConfig("max_retries = 10")
	cfg := provider + acctest.TriggerHCL("test", jobs[0], "  timeouts {\n    create = \"2s\"\n  }")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{503}}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				// Cut off by the timeout, or given up before it when the next wait would pass it.
				ExpectError: regexp.MustCompile(`(Timeout Triggering Job[\s\S]*did not complete within|Trigger Given Up Before Its Limit[\s\S]*given up before)\s+timeouts\.create\s+\(2s\)[\s\S]*The\s+job\s+did\s+not\s+start`),
			},
			{
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
	if n := len(e.Sandbox.Executions(e.WorkspaceID, jobs[0])); n != 0 {
		t.Errorf("the job has %d executions, want none", n)
	}
}

func TestJobTrigger_destroyAfterTheExecutionEnded(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1, RunDuration: time.Millisecond}, sandbox.DefaultAPIKey)
	job := srv.Jobs(data.workspaceID)[0].ID
	if err := data.client.TriggerJob(t.Context(), data.workspaceID, job, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	r := configured(t, NewJobTriggerResource(), data)
	onlyWarning(t, destroy(t, r, triggerState(data.workspaceID, job, true)),
		"Execution Already Ended", "Job "+job+" had no running execution to cancel (HTTP 409: no running execution)")
	if ex := srv.Executions(data.workspaceID, job); len(ex) != 1 || ex[0].Status != sandbox.StatusSucceeded {
		t.Errorf("executions %+v", ex)
	}
}

func TestJobTrigger_destroyOfAJobGone(t *testing.T) {
	t.Parallel()
	_, data := unitSandbox(t, sandbox.Config{Jobs: 1}, sandbox.DefaultAPIKey)
	r := configured(t, NewJobTriggerResource(), data)
	const gone = "0f0f0f0f-0000-4000-8000-00000000abcd"
	onlyWarning(t, destroy(t, r, triggerState(data.workspaceID, gone, true)),
		"Job Not Found", "Job "+gone+" is not in workspace "+data.workspaceID+" any more (HTTP 404")
}

func TestJobTrigger_destroyWithoutCancelMakesNoRequest(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1, RunDuration: time.Hour}, sandbox.DefaultAPIKey)
	job := srv.Jobs(data.workspaceID)[0].ID
	if err := data.client.TriggerJob(t.Context(), data.workspaceID, job, false); err != nil {
		t.Fatal(err)
	}
	before := srv.Stats().Requests
	r := configured(t, NewJobTriggerResource(), data)
	failOn(t, destroy(t, r, triggerState(data.workspaceID, job, false)))
	if n := srv.Stats().Requests - before; n != 0 {
		t.Errorf("destroy without cancel_on_destroy sent %d requests", n)
	}
	if ex := srv.Executions(data.workspaceID, job); ex[0].Status != sandbox.StatusRunning {
		t.Errorf("the execution is %s, want it still running", ex[0].Status)
	}
}

func TestJobTrigger_destroyRefused(t *testing.T) {
	t.Parallel()
	_, data := unitSandbox(t, sandbox.Config{Jobs: 1}, "not-the-key")
	r := configured(t, NewJobTriggerResource(), data)
	diags := destroy(t, r, triggerState(data.workspaceID, "0f0f0f0f-0000-4000-8000-00000000abcd", true))
	if !diags.HasError() || diags[0].Summary() != "Authentication Failed" {
		t.Errorf("diagnostics %v, want Authentication Failed", diags)
	}
}

// TestJobTrigger_timeoutsOneErrorEach: a malformed timeout gets the provider's
// error alone, not also the block's, which names no attribute and offers "-1.5h".
func TestJobTrigger_timeoutsOneErrorEach(t *testing.T) {
	t.Parallel()
	p := serveProto(t)
	srv := p.Server
	typ, ok := p.Schemas.ResourceSchemas["dataintegration_job_trigger"].ValueType().(tftypes.Object)
	if !ok {
		t.Fatal("the trigger's schema is not an object")
	}
	for _, attrName := range []string{"create", "delete"} {
		for _, bad := range []string{"", "abc", " 5m", "5", "1d", "0s", "-1.5h"} {
			diags := validateTrigger(t, srv, typ, map[string]string{attrName: bad})
			want := "timeouts." + attrName
			if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError ||
				!strings.Contains(diags[0].Detail, want) || !strings.Contains(diags[0].Detail, "a positive duration") {
				t.Errorf("%s = %q: got %s, want one error on %s asking for a positive duration", attrName, bad, protoDiags(diags), want)
			}
		}
	}
	if diags := validateTrigger(t, srv, typ, map[string]string{"create": "5m", "delete": "1h30m"}); len(diags) != 0 {
		t.Errorf("valid timeouts: got %s, want none", protoDiags(diags))
	}
}

func validateTrigger(t *testing.T, srv tfprotov6.ProviderServer, typ tftypes.Object, durations map[string]string) []*tfprotov6.Diagnostic {
	t.Helper()
	tt, ok := typ.AttributeTypes["timeouts"].(tftypes.Object)
	if !ok {
		t.Fatal("timeouts is not an object")
	}
	vals := acctest.ObjectAttrs(typ, map[string]any{"job_id": "5f0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10", "timeouts": acctest.ObjectAttrs(tt, durations)})
	cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
		TypeName: "dataintegration_job_trigger", Config: &cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

func expectAction(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.TriggerAddress, action)}}
}

// TestAccJobTrigger_jobIDInAnyCase: a change of case alone plans nothing, and the
// trigger keeps the form it was created with.
func TestAccJobTrigger_jobIDInAnyCase(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	upper := strings.ToUpper(job)
	lookup := fmt.Sprintf("data \"dataintegration_job\" \"test\" {\n  id = %q\n}\n", upper)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.ProviderConfig() + lookup + acctest.TriggerHCL("test", upper, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(upper)),
					statecheck.ExpectKnownValue(acctest.JobAddress, tfjsonpath.New("id"), knownvalue.StringExact(upper)),
					statecheck.ExpectKnownValue(acctest.JobAddress, tfjsonpath.New("is_active"), knownvalue.Bool(true)),
				},
				Check: e.ExpectExecutions(job, sandbox.Execution{}),
			},
			{
				// The service's form, from the data source or typed: no change.
				Config:           e.ProviderConfig() + acctest.TriggerHCL("test", job, ""),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(upper)),
				},
				Check: e.ExpectExecutions(job, sandbox.Execution{}),
			},
			{
				// An update in place of another attribute keeps the case too.
				Config:           e.ProviderConfig() + acctest.TriggerHCL("test", job, "  cancel_on_destroy = true"),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				Check:            e.ExpectExecutions(job, sandbox.Execution{}),
			},
		},
	})
}

// TestAccJobTrigger_timeoutsRefused: a timeout of zero or less, or one that
// is not a duration, is refused at plan time, on the attribute, before any
// request. (That it is the only error: TestJobTrigger_timeoutsOneErrorEach.)
func TestAccJobTrigger_timeoutsRefused(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	jobs := e.JobsOneByOne(t, client.JobFilter{})
	before := int64(0)
	if e.Sandbox != nil {
		before = e.Sandbox.Stats().Requests
	}
	var steps []resource.TestStep
	for _, c := range []struct{ attr, value string }{
		{"create", "0s"}, {"create", "-1m"}, {"delete", "0s"}, {"delete", "-30s"},
	} {
		steps = append(steps, resource.TestStep{
			Config:      e.ProviderConfig() + acctest.TriggerHCL("test", jobs[0].ID, fmt.Sprintf("  timeouts {\n    %s = %q\n  }", c.attr, c.value)),
			PlanOnly:    true,
			ExpectError: acctest.Phrases("Invalid Attribute Value", "timeouts."+c.attr, "the duration must be positive", `a positive duration such as "30s"`),
		})
	}
	for _, c := range []struct{ attr, value string }{
		{"create", ""}, {"create", "abc"}, {"create", " 5m"}, {"create", "5"}, {"delete", "1d"},
	} {
		steps = append(steps, resource.TestStep{
			Config:      e.ProviderConfig() + acctest.TriggerHCL("test", jobs[0].ID, fmt.Sprintf("  timeouts {\n    %s = %q\n  }", c.attr, c.value)),
			PlanOnly:    true,
			ExpectError: acctest.Phrases("Invalid Attribute Value", "timeouts."+c.attr, fmt.Sprintf("%q is not a duration", c.value), `a positive duration such as "30s"`),
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
	if e.Sandbox != nil {
		if n := e.Sandbox.Stats().Requests - before; n != 0 {
			t.Errorf("the sandbox served %d requests, want none", n)
		}
	}
}

// TestAccJobTrigger_importRefused: importing a trigger says why there is
// nothing to import and what to do instead.
func TestAccJobTrigger_importRefused(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	jobs := e.JobsOneByOne(t, client.JobFilter{})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:        e.ProviderConfig() + acctest.TriggerHCL("test", jobs[0].ID, ""),
			ResourceName:  acctest.TriggerAddress,
			ImportState:   true,
			ImportStateId: "5f0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10",
			ExpectError: acctest.Phrases("Trigger Cannot Be Imported", "an event", "nothing to import",
				"apply the configuration", "runs the job once"),
		}},
	})
	if e.Sandbox != nil {
		if st := e.Sandbox.Stats(); st.ByRoute[acctest.RouteRunJob] != 0 {
			t.Errorf("the import triggered the job %d times", st.ByRoute[acctest.RouteRunJob])
		}
	}
}

// TestAccJobTrigger_jobName: another name triggers again; moving between job_id
// and job_name of the same job does not.
func TestAccJobTrigger_jobName(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the jobs' executions")
	ids, _ := acctest.ActiveJobs(t, e, 2)
	names := map[string]string{}
	for _, j := range e.Sandbox.Jobs(e.WorkspaceID) {
		names[j.ID] = j.Name
	}
	a, b := ids[0], ids[1]
	one := sandbox.Execution{}
	jobID := func(id string) []statecheck.StateCheck {
		return []statecheck.StateCheck{statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(id))}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.ProviderConfig() + acctest.TriggerByNameHCL(names[a], ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(acctest.TriggerAddress, tfjsonpath.New("job_id")),
				}},
				ConfigStateChecks: jobID(a),
				Check:             e.ExpectExecutions(a, one),
			},
			{
				// A change in place keeps the job: no lookup, no new run.
				Config: e.ProviderConfig() + acctest.TriggerByNameHCL(names[a], "  cancel_on_destroy = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(a)),
				}},
				ConfigStateChecks: jobID(a),
				Check:             e.ExpectExecutions(a, one),
			},
			{
				Config:            e.ProviderConfig() + acctest.TriggerByNameHCL(names[b], ""),
				ConfigPlanChecks:  expectAction(plancheck.ResourceActionReplace),
				ConfigStateChecks: jobID(b),
				Check:             resource.ComposeAggregateTestCheckFunc(e.ExpectExecutions(a, one), e.ExpectExecutions(b, one)),
			},
			{
				// The same job by its ID, in another case: no new run.
				Config:            e.ProviderConfig() + acctest.TriggerHCL("test", strings.ToUpper(b), ""),
				ConfigPlanChecks:  expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: jobID(b),
				Check:             e.ExpectExecutions(b, one),
			},
			{
				// And back to its name: the name resolves to the same job.
				Config:            e.ProviderConfig() + acctest.TriggerByNameHCL(names[b], ""),
				ConfigPlanChecks:  expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: jobID(b),
				Check:             e.ExpectExecutions(b, one),
			},
			{
				// The ID of another job: a new run.
				Config:            e.ProviderConfig() + acctest.TriggerHCL("test", a, ""),
				ConfigPlanChecks:  expectAction(plancheck.ResourceActionReplace),
				ConfigStateChecks: jobID(a),
				Check:             e.ExpectExecutions(a, one, one),
			},
		},
	})
}

// TestAccJobTrigger_jobNameUnknownAtPlan: a job_name known only at apply cannot
// be looked up at plan: it replaces the trigger, as the docs say.
func TestAccJobTrigger_jobNameUnknownAtPlan(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	ids, _ := acctest.ActiveJobs(t, e, 1)
	job := ids[0]
	var name string
	for _, j := range e.Sandbox.Jobs(e.WorkspaceID) {
		if j.ID == job {
			name = j.Name
		}
	}
	later := fmt.Sprintf("resource \"terraform_data\" \"name\" {\n  input = %q\n}\n", name) +
		"resource \"dataintegration_job_trigger\" \"test\" {\n  job_name = terraform_data.name.output\n}\n"
	one := sandbox.Execution{}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.ProviderConfig() + acctest.TriggerHCL("test", job, ""), Check: e.ExpectExecutions(job, one)},
			{
				Config:           e.ProviderConfig() + later,
				ConfigPlanChecks: expectAction(plancheck.ResourceActionReplace),
				Check:            e.ExpectExecutions(job, one, one),
			},
		},
	})
}

// TestAccJobTrigger_jobNameRefusals: a name that matches no job or several
// fails the apply on job_name, with nothing triggered; job_id and job_name
// together, or neither, fail the plan. (A blank name:
// TestAccJobLookups_blankRefused.)
func TestAccJobTrigger_jobNameRefusals(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.RequireSandbox(t, "add two jobs of the same name")
	const twice = "nightly export"
	if err := e.Sandbox.AddJobs(e.WorkspaceID, sandbox.Job{Name: twice, IsActive: true}, sandbox.Job{Name: twice, IsActive: true}); err != nil {
		t.Fatal(err)
	}
	ids, _ := acctest.ActiveJobs(t, e, 1)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      e.ProviderConfig() + acctest.TriggerByNameHCL("no such job", ""),
				ExpectError: acctest.Phrases("Job Not Found", `No job is named "no such job" in workspace `+e.WorkspaceID),
			},
			{
				Config:      e.ProviderConfig() + acctest.TriggerByNameHCL(twice, ""),
				ExpectError: acctest.Phrases("Several Jobs Match", `2 jobs are named "nightly export"`, "give the job's ID instead"),
			},
			{
				Config:      e.ProviderConfig() + acctest.TriggerByNameHCL(twice, fmt.Sprintf("  job_id = %q", ids[0])),
				PlanOnly:    true,
				ExpectError: acctest.Phrases("Invalid Attribute Combination", "job_id", "job_name"),
			},
			{
				Config:      e.ProviderConfig() + "resource \"dataintegration_job_trigger\" \"test\" {}\n",
				PlanOnly:    true,
				ExpectError: acctest.Phrases("Missing Attribute Configuration", "Exactly one of these attributes must be configured: [job_id,job_name]"),
			},
		},
	})
	if got := e.Sandbox.Stats().ByRoute[acctest.RouteRunJob]; got != 0 {
		t.Errorf("the sandbox served %d triggers, want none", got)
	}
}

// TestAccJobTrigger_waitsIfRunning: the trigger resource's
// if_running = "wait", on every engine.
func TestAccJobTrigger_waitsIfRunning(t *testing.T) {
	testWaitsIfRunning(t, func(job string) string { return acctest.TriggerHCL("test", job, "  if_running = \"wait\"") },
		resource.TestCheckResourceAttr(acctest.TriggerAddress, "if_running", "wait"))
}

// TestJobTrigger_waitsForTheRunningExecution: the trigger resource's
// if_running = "wait" waits within the create timeout, and the one it
// records ran after the running one ended.
func TestJobTrigger_waitsForTheRunningExecution(t *testing.T) {
	t.Parallel()
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

// TestJobTrigger_waitEndsAtTheCreateTimeout: the create timeout bounds the
// wait; nothing is recorded, so that the next apply tries again.
func TestJobTrigger_waitEndsAtTheCreateTimeout(t *testing.T) {
	t.Parallel()
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

// TestJobTrigger_whoseAnswerIsLost: recorded with a warning, so that it is never
// sent again; the run_job action warns too, as a failed action would run again.
func TestJobTrigger_whoseAnswerIsLost(t *testing.T) {
	t.Parallel()
	for when, runs := range map[string]int{sandbox.FaultsAfter: 1, sandbox.FaultsBefore: 0} {
		t.Run(when, func(t *testing.T) {
			srv, data := unitSandbox(t, sandbox.Config{Jobs: 2}, sandbox.DefaultAPIKey)
			job, other := srv.Jobs(data.workspaceID)[0].ID, srv.Jobs(data.workspaceID)[1].ID
			loseAnswers(t, srv, when, "POST")
			resp := create(t, configured(t, NewJobTriggerResource(), data), triggerState(data.workspaceID, job, false))
			onlyWarning(t, resp.Diagnostics, "Job Triggered, Its Answer Lost", "HTTP 502", job, "recorded in the state", "terraform apply -replace=")
			if resp.State.Raw.IsNull() {
				t.Error("the trigger was not recorded: the next apply would send it again")
			}
			got := invoke(t, NewRunJobAction(), data, runJob(other, "wait"))
			onlyWarning(t, got.diags, "Job Triggered, Its Answer Lost", "HTTP 502", other, "The action does not fail", "terraform apply -invoke=")
			for _, j := range []string{job, other} {
				if n := len(srv.Executions(data.workspaceID, j)); n != runs {
					t.Errorf("job %s: %d executions, want %d", j, n, runs)
				}
			}
			if n := srv.Stats().ByRoute[acctest.RouteRunJob]; n != 2 {
				t.Errorf("%d triggers sent, want one each", n)
			}
		})
	}
}

// TestJobTrigger_refusedIsNotRecorded: a 503 means the service did nothing:
// an error, nothing recorded, so that the next apply triggers the job.
func TestJobTrigger_refusedIsNotRecorded(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1}, sandbox.DefaultAPIKey)
	job := srv.Jobs(data.workspaceID)[0].ID
	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{503}}); err != nil {
		t.Fatal(err)
	}
	resp := create(t, configured(t, NewJobTriggerResource(), data), triggerState(data.workspaceID, job, false))
	onlyError(t, resp.Diagnostics, "Unable to Trigger Job", "HTTP 503")
	if !resp.State.Raw.IsNull() || len(srv.Executions(data.workspaceID, job)) != 0 {
		t.Errorf("state %v", resp.State.Raw)
	}
}

// TestJobTrigger_lostAtItsTimeout: a trigger in flight at its own time limit is
// recorded as lost, and the warning names that limit.
func TestJobTrigger_lostAtItsTimeout(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 2}, sandbox.DefaultAPIKey)
	job, other := srv.Jobs(data.workspaceID)[0].ID, srv.Jobs(data.workspaceID)[1].ID
	if err := srv.SetFaults(sandbox.Faults{LatencyMS: 4000}); err != nil {
		t.Fatal(err)
	}
	m := triggerState(data.workspaceID, job, false)
	m.Timeouts = timeouts.Value{Object: types.ObjectValueMust(
		map[string]attr.Type{"create": types.StringType, "delete": types.StringType},
		map[string]attr.Value{"create": types.StringValue("1s"), "delete": types.StringNull()})}
	resp := create(t, configured(t, NewJobTriggerResource(), data), m)
	onlyWarning(t, resp.Diagnostics, "Job Triggered, Its Answer Lost", "to POST", "before timeouts.create (1s) ran out", job, "recorded in the state")
	a := runJob(other, "")
	a.Timeout = types.StringValue("1s")
	got := invoke(t, NewRunJobAction(), data, a)
	onlyWarning(t, got.diags, "Job Triggered, Its Answer Lost", "to POST", "before timeout (1s) ran out", other)
	for _, d := range append(resp.Diagnostics, got.diags...) {
		if strings.Contains(d.Detail(), "request timeout") {
			t.Errorf("the warning blames the request timeout: %s", d.Detail())
		}
	}
}
