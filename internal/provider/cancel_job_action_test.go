package provider

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func TestCancelJobAction_invoke(t *testing.T) {
	t.Parallel()
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

// cancelJob is a dataintegration_cancel_job configuration of the job by ID.
func cancelJob(job string) jobActionTarget {
	return jobActionTarget{JobID: types.StringValue(job), JobName: types.StringNull(), WorkspaceID: types.StringNull()}
}
