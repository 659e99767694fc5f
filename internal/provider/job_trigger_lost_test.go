package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestJobTrigger_whoseAnswerIsLost: whether the job started or not, a
// trigger whose answer was lost is recorded, with a warning, so that it is
// never sent again: the job runs at most once. The run_job action warns
// too, and does not fail: a failed action would be run again by the next
// apply.
func TestJobTrigger_whoseAnswerIsLost(t *testing.T) {
	for when, runs := range map[string]int{sandbox.FaultsAfter: 1, sandbox.FaultsBefore: 0} {
		t.Run(when, func(t *testing.T) {
			srv, data := unitSandbox(t, sandbox.Config{Jobs: 2}, sandbox.DefaultAPIKey)
			job, other := srv.Jobs(data.workspaceID)[0].ID, srv.Jobs(data.workspaceID)[1].ID
			loseAnswers(t, srv, when, "POST")
			resp := create(t, configured(t, NewJobTriggerResource(), data), triggerState(data.workspaceID, job, false))
			onlyWarning(t, resp.Diagnostics, "Job Triggered, Its Answer Lost", "HTTP 502", job, "recorded in the state", "changing the trigger's triggers")
			if resp.State.Raw.IsNull() {
				t.Error("the trigger was not recorded: the next apply would send it again")
			}
			got := invoke(t, NewRunJobAction(), data, runJob(other, "wait"))
			onlyWarning(t, got.diags, "Job Triggered, Its Answer Lost", "HTTP 502", other, "The action does not fail", "invoke the action again")
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

// TestJobTrigger_lostAtItsTimeout: a trigger still in flight when its own
// time ends (timeouts.create, the action's timeout) is recorded as one whose
// answer was lost, and the warning names that limit, not the request
// timeout, which did not end.
func TestJobTrigger_lostAtItsTimeout(t *testing.T) {
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
