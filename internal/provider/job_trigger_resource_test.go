package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

const (
	triggerAddress = "dataintegration_job_trigger.test"
	routeRunJob    = "POST /developers/workspaces/{workspace_id}/jobs/{_id}/run/"
	routeCancelJob = "DELETE /developers/workspaces/{workspace_id}/jobs/{_id}/cancel/"
)

var (
	uuidRE    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	rfc3339RE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)
)

// triggerHCL is a trigger block named name; body holds its other attributes.
func triggerHCL(name, jobID, body string) string {
	return fmt.Sprintf("resource \"dataintegration_job_trigger\" %q {\n  job_id = %q\n%s\n}\n", name, jobID, body)
}

func TestAccJobTrigger_lifecycle(t *testing.T) {
	// Executions end at once, so that the job can run again.
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.requireSandbox(t, "count the job's executions")
	jobs, _ := activeJobs(t, e, 1)
	job := jobs[0]
	full := sandbox.Execution{ForceFullRefresh: true}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	cfg := func(body string) string {
		return e.providerConfig() + triggerHCL("test", job, "  force_full_refresh = true\n"+body)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			// cancel_on_destroy was true, and the execution had ended: the
			// cancel was asked once, and answered 409 (a warning).
			e.expectRouteCount(routeCancelJob, 1),
			e.expectExecutions(job, full, full),
		),
		Steps: []resource.TestStep{
			{
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(triggerAddress, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(triggerAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.workspaceID)),
						plancheck.ExpectKnownValue(triggerAddress, tfjsonpath.New("cancel_on_destroy"), knownvalue.Bool(false)),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(triggerAddress, tfjsonpath.New("id")),
					newID.AddStateValue(triggerAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(triggerAddress, tfjsonpath.New("id"), knownvalue.StringRegexp(uuidRE)),
					statecheck.ExpectKnownValue(triggerAddress, tfjsonpath.New("triggered_at"), knownvalue.StringRegexp(rfc3339RE)),
					statecheck.ExpectKnownValue(triggerAddress, tfjsonpath.New("job_id"), knownvalue.StringExact(job)),
					statecheck.ExpectKnownValue(triggerAddress, tfjsonpath.New("force_full_refresh"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(triggerAddress, tfjsonpath.New("triggers"), knownvalue.MapSizeExact(0)),
				},
				Check: e.expectExecutions(job, full),
			},
			{
				// The same configuration again, after a refresh: nothing is sent.
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(triggerAddress, plancheck.ResourceActionNoop)},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(triggerAddress, tfjsonpath.New("id"))},
				Check: resource.ComposeAggregateTestCheckFunc(
					e.expectExecutions(job, full),
					// The trigger was the only request: refreshes and plans send none.
					func(*terraform.State) error {
						if st := e.sandbox.Stats(); st.Requests != 1 || st.ByRoute[routeRunJob] != 1 {
							return fmt.Errorf("the sandbox served %d requests (%v), want the one trigger", st.Requests, st.ByRoute)
						}
						return nil
					},
				),
			},
			{
				Config: cfg(`  triggers = { schema_version = "2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(triggerAddress, plancheck.ResourceActionReplace)},
				},
				ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(triggerAddress, tfjsonpath.New("id"))},
				Check:             e.expectExecutions(job, full, full),
			},
			{
				Config: cfg("  triggers = { schema_version = \"2\" }\n  cancel_on_destroy = true\n  timeouts {\n    delete = \"1m\"\n  }"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(triggerAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(triggerAddress, tfjsonpath.New("cancel_on_destroy"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					e.expectExecutions(job, full, full),
					e.expectRouteCount(routeRunJob, 2),
				),
			},
		},
	})
}

func TestAccJobTrigger_cancelOnDestroy(t *testing.T) {
	// Executions run for an hour: still running when the test destroys.
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour})
	e.requireSandbox(t, "see whether the execution was cancelled")
	jobs, _ := activeJobs(t, e, 2)
	cancelled, kept := jobs[0], jobs[1]
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			e.expectExecutions(cancelled, sandbox.Execution{Status: sandbox.StatusCancelled}),
			e.expectExecutions(kept, sandbox.Execution{Status: sandbox.StatusRunning}),
			e.expectRouteCount(routeCancelJob, 1),
		),
		Steps: []resource.TestStep{{
			Config: e.providerConfig() + triggerHCL("cancelled", cancelled, "  cancel_on_destroy = true") + triggerHCL("kept", kept, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				e.expectExecutions(cancelled, sandbox.Execution{Status: sandbox.StatusRunning}),
				e.expectExecutions(kept, sandbox.Execution{Status: sandbox.StatusRunning}),
			),
		}},
	})
}

// refusingEnv is a sandbox with a job that is running (for an hour) and
// an inactive one, whose triggers the service refuses.
func refusingEnv(t *testing.T) (e *testEnv, running, inactive string) {
	t.Helper()
	e = newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour})
	e.requireSandbox(t, "find an inactive job and start one")
	jobs, inactive := activeJobs(t, e, 1)
	if err := e.client(t).TriggerJob(context.Background(), e.workspaceID, jobs[0], false); err != nil {
		t.Fatal(err)
	}
	return e, jobs[0], inactive
}

func TestAccJobTrigger_refusals(t *testing.T) {
	e, running, inactive := refusingEnv(t)
	const unknown = "0f0f0f0f-0000-4000-8000-00000000abcd"
	// After a refusal the trigger is not in the state: the next plan creates it.
	notInState := resource.TestStep{
		Config:             e.providerConfig() + triggerHCL("test", inactive, ""),
		PlanOnly:           true,
		ExpectNonEmptyPlan: true,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PostApplyPreRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(triggerAddress, plancheck.ResourceActionCreate)},
		},
	}
	badKey := e.providerWithKey("not-the-key")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      e.providerConfig() + triggerHCL("test", inactive, ""),
				ExpectError: phrases("Job Is Inactive", "refused to run job "+inactive+" because it is inactive", "HTTP 409: job is inactive", "Activate the job in the service, then apply again."),
			},
			notInState,
			{
				Config:      e.providerConfig() + triggerHCL("test", running, ""),
				ExpectError: phrases("Job Already Running", "refused to run job "+running, "HTTP 409: job is already running"),
			},
			{
				Config:      e.providerConfig() + triggerHCL("test", unknown, ""),
				ExpectError: phrases("Job Not Found", "No job has the ID "+unknown+" in workspace "+e.workspaceID, "HTTP 404: Not found."),
			},
			{
				Config:      badKey + triggerHCL("test", inactive, ""),
				ExpectError: phrases("Authentication Failed", "did not accept the API key", "HTTP 401: Invalid API key."),
			},
			{
				Config:      e.providerConfig() + triggerHCL("test", "job-1", ""),
				ExpectError: phrases("Invalid Attribute Value", `"job-1" is not a UUID`),
			},
			notInState,
		},
	})
	// One refused trigger each for the inactive, running, unknown job and the
	// bad key; the job that was running still has its one execution.
	if got := e.sandbox.Stats().ByRoute[routeRunJob]; got != 1+4 {
		t.Errorf("the sandbox served %d triggers, want 5 (one by the test, four refused)", got)
	}
	if got := e.sandbox.Executions(e.workspaceID, running); len(got) != 1 {
		t.Errorf("the running job has %d executions, want 1", len(got))
	}
}

// TestAccJobTrigger_faults: the sandbox refuses 30% of requests with 429 or
// 503 before doing anything; the retries make every trigger succeed, and no
// job runs twice.
func TestAccJobTrigger_faults(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.requireSandbox(t, "inject faults")
	jobs, _ := activeJobs(t, e, 10)
	var body strings.Builder
	for i, id := range jobs {
		body.WriteString(triggerHCL(fmt.Sprintf("t%d", i), id, ""))
	}
	// Retries enough that all of them failing (0.3^11 for one trigger) does not
	// happen in practice.
	e.testFaultsRunEachOnce(t, e.providerConfig("max_retries = 10")+body.String(), jobs, 7)
}

// testFaultsRunEachOnce applies config while the sandbox refuses 30% of
// requests with 429 or 503 (faults seeded with seed), and checks that
// triggers were retried and that each of jobs ran exactly once.
func (e *testEnv) testFaultsRunEachOnce(t *testing.T, config string, jobs []string, seed uint64) {
	t.Helper()
	var checks []resource.TestCheckFunc
	for _, id := range jobs {
		checks = append(checks, e.expectExecutions(id, sandbox.Execution{}))
	}
	checks = append(checks, func(*terraform.State) error {
		st := e.sandbox.Stats()
		if st.Faults == 0 {
			return fmt.Errorf("no fault was injected: %+v", st)
		}
		if got := st.ByRoute[routeRunJob]; got <= int64(len(jobs)) {
			return fmt.Errorf("%d trigger requests for %d jobs: no trigger was retried", got, len(jobs))
		}
		t.Logf("%d faults injected, %d trigger requests for %d jobs", st.Faults, st.ByRoute[routeRunJob], len(jobs))
		return nil
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				if err := e.sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 503}, Seed: seed}); err != nil {
					t.Fatal(err)
				}
			},
			Config: config,
			Check:  resource.ComposeAggregateTestCheckFunc(checks...),
		}},
	})
	for _, id := range jobs {
		if n := len(e.sandbox.Executions(e.workspaceID, id)); n != 1 {
			t.Errorf("after the whole test, job %s has %d executions, want 1", id, n)
		}
	}
}

// TestAccJobTrigger_maxRetries: a service that answers every trigger 429
// is tried max_retries + 1 times, then the apply fails naming max_retries,
// and saying the job did not start, with nothing in the state.
func TestAccJobTrigger_maxRetries(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.requireSandbox(t, "inject faults")
	jobs, _ := activeJobs(t, e, 1)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				if err := e.sandbox.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{429}, Methods: []string{"POST"}}); err != nil {
					t.Fatal(err)
				}
			},
			Config:      e.providerConfig("max_retries = 2") + triggerHCL("test", jobs[0], ""),
			ExpectError: phrases("Unable to Trigger Job", "HTTP 429", "gave up after 3 attempts", "at max_retries (2)", "The job did not start"),
		}},
	})
	if n, sent := len(e.sandbox.Executions(e.workspaceID, jobs[0])), e.sandbox.Stats().ByRoute[routeRunJob]; n != 0 || sent != 3 {
		t.Errorf("the job has %d executions after %d triggers, want none after 3", n, sent)
	}
}

// TestAccJobTrigger_createTimeout: a service that keeps answering 503 is
// retried until timeouts.create, then the apply fails saying so, with nothing
// in the state.
func TestAccJobTrigger_createTimeout(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.requireSandbox(t, "inject faults")
	jobs, _ := activeJobs(t, e, 1)
	provider := e.providerConfig("max_retries = 10")
	cfg := provider + triggerHCL("test", jobs[0], "  timeouts {\n    create = \"2s\"\n  }")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := e.sandbox.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{503}}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      cfg,
				ExpectError: phrases("Timeout Triggering Job", "did not complete within timeouts.create (2s)", "The job did not start"),
			},
			{
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(triggerAddress, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
	if n := len(e.sandbox.Executions(e.workspaceID, jobs[0])); n != 0 {
		t.Errorf("the job has %d executions, want none", n)
	}
}
