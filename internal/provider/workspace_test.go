package provider

import (
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestWorkspace_checkAsksOncePerWorkspace: the plans of many connectors
// moving to one workspace share one request, in any letter case, whether
// the key reaches it or not; each workspace is asked about once.
func TestWorkspace_checkAsksOncePerWorkspace(t *testing.T) {
	t.Parallel()
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
		onlyError(t, diags, "Workspace Not Reachable", "cannot reach workspace", "HTTP 403", "Nothing was changed", "Check workspace_id", providerenv.APIKey)
	}
	if n := srv.Stats().ByRoute["GET "+acctest.RouteConnectors]; n != 2 {
		t.Errorf("20 checks of two workspaces sent %d requests, want 2", n)
	}
	// The check counts the workspace's connectors for the name checks.
	if held := data.checks.of(data.workspaceID).held; held != 0 {
		t.Errorf("the check counted %d connectors in an empty workspace", held)
	}
}

// TestWorkspace_checkThatCannotBeMade: a key the service refuses is the
// authentication error; a check that fails otherwise names the request and
// is asked again by the next plan that needs it.
func TestWorkspace_checkThatCannotBeMade(t *testing.T) {
	t.Parallel()
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
	if n := srv.Stats().ByRoute["GET "+acctest.RouteConnectors]; n != 2 {
		t.Errorf("a failed check and the one after sent %d requests, want 2", n)
	}
}

// TestWorkspace_refusedKeyToldOnce: the plans of many creates with a key
// the service refuses share one request; the first plan's error explains
// the cause and the fix, and each other one points at it.
func TestWorkspace_refusedKeyToldOnce(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{}, "not-a-key")
	results := make([]diag.Diagnostics, 10)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { data.checkWorkspace(t.Context(), data.workspaceID, "workspace_id", &results[i]) })
	}
	wg.Wait()
	explained := 0
	for _, diags := range results {
		if len(diags) != 1 || diags[0].Summary() != "Authentication Failed" {
			t.Fatalf("diagnostics %v, want one Authentication Failed", diags)
		}
		if strings.Contains(diags[0].Detail(), "Check api_key") {
			explained++
		} else if !strings.Contains(diags[0].Detail(), "the service did not accept the API key gives the cause and the fix") {
			t.Errorf("a later plan's error neither explains nor points at the first: %s", diags[0].Detail())
		}
	}
	if explained != 1 {
		t.Errorf("%d plans explained the refused key, want the first alone", explained)
	}
	if n := srv.Stats().Requests; n != 1 {
		t.Errorf("10 plans sent %d requests, want 1", n)
	}
}

// TestAccWorkspace_wrongKeyFailsThePlanOfCreates: a plan of new connectors
// in the provider's own workspace with a key the service refuses fails at
// plan with Authentication Failed, explained once, after one request (the
// check of the workspace), not at apply after one failed create each.
func TestAccWorkspace_wrongKeyFailsThePlanOfCreates(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the requests a plan sends")
	const n = 20
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
	vars := []string{providerenv.BaseURL + "=" + e.BaseURL, providerenv.APIKey + "=not-the-key-" + strings.Repeat("7", 24), providerenv.WorkspaceID + "=" + e.WorkspaceID}
	before := e.Sandbox.Stats().Requests
	out, err := eng.Try(dir, vars, "plan", "-input=false", "-detailed-exitcode", "-no-color")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("the plan of %d creates with a wrong key ended with %v, want exit code 1\n%s", n, err, out)
	}
	text := err.Error()
	if !strings.Contains(text, "Error: Authentication Failed") || !strings.Contains(text, "did not accept the API key") {
		t.Errorf("the plan does not fail with Authentication Failed:\n%s", text)
	}
	if got := strings.Count(text, "did not accept the API key (HTTP 401"); got != 1 {
		t.Errorf("the cause and fix are given %d times, want once:\n%s", got, text)
	}
	if got := e.Sandbox.Stats().Requests - before; got != 1 {
		t.Errorf("the plan sent %d requests, want 1", got)
	}
	if ids := e.Sandbox.ConnectorIDs(e.WorkspaceID); len(ids) != 0 {
		t.Errorf("connectors made: %v", ids)
	}
}

// TestWorkspace_planOfACreateChecksTheKey: the plan of a create in the
// provider's own workspace asks whether the key reaches it, and a refused
// key fails that plan; the plan of a connector that stays in its workspace
// asks nothing.
func TestWorkspace_planOfACreateChecksTheKey(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{}, "not-a-key")
	r, ok := configured(t, NewConnectorResource(), data).(resource.ResourceWithModifyPlan)
	if !ok {
		t.Fatal("the connector resource has no ModifyPlan")
	}
	modifyPlan := func(state tfsdk.State, planned connectorResourceModel) diag.Diagnostics {
		plan := stateOf(t, r, planned)
		resp := resource.ModifyPlanResponse{Plan: tfsdk.Plan(plan)}
		r.ModifyPlan(t.Context(), resource.ModifyPlanRequest{State: state, Plan: tfsdk.Plan(plan), Config: tfsdk.Config(plan)}, &resp)
		return resp.Diagnostics
	}
	kept := stateOf(t, r, connectorState(data.workspaceID, "7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10"))
	failOn(t, modifyPlan(kept, connectorState(data.workspaceID, "7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10")))
	if n := srv.Stats().Requests; n != 0 {
		t.Errorf("the plan of a connector kept in its workspace sent %d requests, want none", n)
	}
	none := tfsdk.State{Schema: kept.Schema, Raw: tftypes.NewValue(kept.Raw.Type(), nil)}
	onlyError(t, modifyPlan(none, plannedConnector(data)), "Authentication Failed", "HTTP 401", "Check api_key")
	if n := srv.Stats().Requests; n != 1 {
		t.Errorf("the plan of a create sent %d requests, want 1", n)
	}
}
