package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.RequireSandbox(t, "inject faults")
	jobs, _ := acctest.ActiveJobs(t, e, 10)
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
				Config:      cfg,
				ExpectError: acctest.Phrases("Timeout Triggering Job", "did not complete within timeouts.create (2s)", "The job did not start"),
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

// TestJobTriggerStateUpgrade: a trigger's state of schema version 0, as
// Terraform hands it over, is read with if_running as that version behaved
// ("fail") where it has none, keeps the one it has, and keeps every other
// attribute; job_name, which states before it lack, is null.
func TestJobTriggerStateUpgrade(t *testing.T) {
	p := serveProto(t)
	const typ = "dataintegration_job_trigger"
	const before = `"id":"7d0c5a44-3b7e-4c7a-9d8e-2f6b1a0c9e11","workspace_id":"11111111-1111-4111-8111-111111111111",` +
		`"job_id":"3F94703E-61D2-5F9C-A8A9-B88DB4DFA78E","force_full_refresh":true,"triggers":{"commit":"abc"},` +
		`"cancel_on_destroy":false,"triggered_at":"2026-11-21T07:00:00Z","timeouts":{"create":"2m","delete":null}`
	cases := []struct {
		name, state, ifRunning, jobName string
	}{
		{"before job_name and if_running (1addb2e)", `{` + before + `}`, "fail", ""},
		{"no triggers (1addb2e)", `{` + strings.Replace(before, `{"commit":"abc"}`, "null", 1) + `}`, "fail", ""},
		{"before if_running (a0b1d65)", `{` + before + `,"job_name":null}`, "fail", ""},
		{"if_running null", `{` + before + `,"job_name":"Nightly","if_running":null}`, "fail", "Nightly"},
		{"if_running wait", `{` + before + `,"job_name":null,"if_running":"wait"}`, "wait", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := p.Server.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
				TypeName: typ, Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(c.state)},
			})
			if err != nil {
				t.Fatal(err)
			}
			acctest.FailOnProto(t, resp.Diagnostics)
			v, err := resp.UpgradedState.Unmarshal(p.Schemas.ResourceSchemas[typ].ValueType())
			if err != nil {
				t.Fatal(err)
			}
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				t.Fatal(err)
			}
			str := func(name string) string {
				var s *string
				if err := attrs[name].As(&s); err != nil {
					t.Fatal(err)
				}
				if s == nil {
					return ""
				}
				return *s
			}
			if got := str("if_running"); got != c.ifRunning {
				t.Errorf("if_running = %q, want %q", got, c.ifRunning)
			}
			if got := str("job_name"); got != c.jobName {
				t.Errorf("job_name = %q, want %q", got, c.jobName)
			}
			if got := str("job_id"); got != "3F94703E-61D2-5F9C-A8A9-B88DB4DFA78E" {
				t.Errorf("job_id = %q, not kept as written", got)
			}
			var triggers map[string]tftypes.Value
			want := 1
			if strings.Contains(c.state, `"triggers":null`) {
				want = 0 // and known: the empty map written since
			}
			if err := attrs["triggers"].As(&triggers); err != nil || attrs["triggers"].IsNull() || len(triggers) != want {
				t.Errorf("triggers = %v (%v), want %d elements", attrs["triggers"], err, want)
			}
		})
	}
	if v := p.Schemas.ResourceSchemas[typ].Version; v != 1 {
		t.Errorf("the trigger's schema version is %d: a new version needs an upgrader from the one before (UpgradeState)", v)
	}
}
