package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// expectAction is a pre-apply check of the trigger's planned action.
func expectAction(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.TriggerAddress, action)}}
}

// TestAccJobTrigger_jobIDInAnyCase: a job ID is the same UUID in any letter
// case. The trigger keeps the form it was created with, and a change of case
// alone plans nothing; the job data source finds the job by an upper-case ID
// and keeps that form.
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

// TestAccJobTrigger_emptyTriggersMeanNone: triggers = {} and no triggers at
// all mean the same, so going from one to the other runs nothing.
func TestAccJobTrigger_emptyTriggersMeanNone(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	cfg := func(body string) string { return e.ProviderConfig() + acctest.TriggerHCL("test", job, body) }
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg(""), Check: e.ExpectExecutions(job, sandbox.Execution{})},
			{Config: cfg("  triggers = {}"), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop)},
			{Config: cfg(""), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop)},
			{Config: cfg("  triggers = {}"), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop)},
			{
				// A value in it is a change: the job runs again.
				Config:           cfg(`  triggers = { commit = "a1b2c3" }`),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionReplace),
				Check:            e.ExpectExecutions(job, sandbox.Execution{}, sandbox.Execution{}),
			},
			{
				Config:           cfg(""),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionReplace),
				Check:            e.ExpectExecutions(job, sandbox.Execution{}, sandbox.Execution{}, sandbox.Execution{}),
			},
		},
	})
}

// TestAccJobTrigger_timeoutsRefused: a timeout of zero or less, or one that
// is not a duration, is refused at plan time, on the attribute, before any
// request. (That it is the only error: TestJobTriggerTimeoutsOneErrorEach.)
func TestAccJobTrigger_timeoutsRefused(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	jobs := e.AllJobs(t)
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

// TestAccJobTrigger_sameTimeoutsPlanNothing: a timeout written another way,
// "300s" for "5m", plans nothing, and the state keeps the form it has;
// another length of time changes in place. Removing the block plans null:
// Terraform requires that of a null, non-computed attribute.
func TestAccJobTrigger_sameTimeoutsPlanNothing(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	cfg := func(create string) string {
		return e.ProviderConfig() + acctest.TriggerHCL("test", job, fmt.Sprintf("  timeouts {\n    create = %q\n  }", create))
	}
	create := func(want string) []statecheck.StateCheck {
		return []statecheck.StateCheck{statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("timeouts").AtMapKey("create"), knownvalue.StringExact(want))}
	}
	one := sandbox.Execution{}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg("5m"), ConfigStateChecks: create("5m"), Check: e.ExpectExecutions(job, one)},
			{Config: cfg("300s"), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop), ConfigStateChecks: create("5m")},
			{Config: cfg("5m0s"), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop), ConfigStateChecks: create("5m")},
			{
				Config:            cfg("10m"),
				ConfigPlanChecks:  expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: create("10m"),
				Check:             e.ExpectExecutions(job, one),
			},
			{
				Config:           e.ProviderConfig() + acctest.TriggerHCL("test", job, ""),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				Check:            e.ExpectExecutions(job, one),
			},
		},
	})
}

// TestAccJobTrigger_importRefused: importing a trigger says why there is
// nothing to import and what to do instead.
func TestAccJobTrigger_importRefused(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	jobs := e.AllJobs(t)
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

// TestAccJobTrigger_jobName: a trigger names its job; the name is resolved
// when the trigger is created, and job_id then says which job ran. Another
// name triggers again; moving between job_id and job_name of the same job
// does not.
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

// TestAccJobTrigger_jobNameUnknownAtPlan: moving from job_id to a job_name
// known only at apply (from a resource being created) cannot look the name
// up while planning: it replaces the trigger, which runs the job again, even
// when the name is that of the same job. The docs say so.
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
