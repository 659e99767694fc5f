package provider

import (
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestWorkspace_checkAsksOncePerWorkspace: the plans of many connectors
// moving to one workspace share one request, in any letter case, whether
// the key reaches it or not; each workspace is asked about once.
func TestWorkspace_checkAsksOncePerWorkspace(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	const unreachable = "00000000-0000-4000-8000-0000000000f1"
	var wg sync.WaitGroup
	results := make([]diag.Diagnostics, 20)
	for i := range results {
		ws := data.workspaceID
		if i%2 == 1 {
			ws = unreachable
		}
		if i%4 == 1 {
			ws = strings.ToUpper(ws)
		}
		wg.Go(func() { data.checkWorkspace(t.Context(), ws, "workspace_id", &results[i]) })
	}
	wg.Wait()
	for i, diags := range results {
		if i%2 == 0 {
			failOn(t, diags)
			continue
		}
		onlyError(t, diags, "Workspace Not Reachable", "cannot reach workspace", "HTTP 403", "Nothing was changed", "Check workspace_id", EnvAPIKey)
	}
	if n := srv.Stats().ByRoute[acctest.RouteListJobs]; n != 2 {
		t.Errorf("20 checks of two workspaces sent %d requests, want 2", n)
	}
}

// TestWorkspace_checkThatCannotBeMade: a key the service refuses is the
// authentication error; a check that fails otherwise names the request and
// is asked again by the next plan that needs it.
func TestWorkspace_checkThatCannotBeMade(t *testing.T) {
	_, refused := unitSandbox(t, sandbox.Config{}, "not-a-key")
	var diags diag.Diagnostics
	refused.checkWorkspace(t.Context(), refused.workspaceID, "workspace_id", &diags)
	onlyError(t, diags, "Authentication Failed", "HTTP 401")

	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{502}}); err != nil {
		t.Fatal(err)
	}
	diags = nil
	data.checkWorkspace(t.Context(), data.workspaceID, "workspace_id", &diags)
	onlyError(t, diags, "Unable to Check Workspace", "HTTP 502", "GET /developers/workspaces/")
	if err := srv.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	diags = nil
	data.checkWorkspace(t.Context(), data.workspaceID, "workspace_id", &diags)
	failOn(t, diags)
	if n := srv.Stats().ByRoute[acctest.RouteListJobs]; n != 2 {
		t.Errorf("a failed check and the one after sent %d requests, want 2", n)
	}
}
