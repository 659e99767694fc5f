package provider

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// loseAnswers makes the sandbox answer 502 to every request of methods,
// after carrying it out ("after") or without doing anything ("before").
func loseAnswers(t *testing.T, srv *sandbox.Server, when string, methods ...string) {
	t.Helper()
	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{502}, When: when, Methods: methods}); err != nil {
		t.Fatal(err)
	}
}

// create calls r's Create with a plan and configuration holding model.
func create(t *testing.T, r resource.Resource, model any) *resource.CreateResponse {
	t.Helper()
	return createIn(context.Background(), t, r, model)
}

// createIn is create with the context Terraform would give, which it may
// cancel.
func createIn(ctx context.Context, t *testing.T, r resource.Resource, model any) *resource.CreateResponse {
	t.Helper()
	st := stateOf(t, r, model)
	resp := &resource.CreateResponse{State: tfsdk.State{Schema: st.Schema, Raw: tftypes.NewValue(st.Raw.Type(), nil)}}
	r.Create(ctx, resource.CreateRequest{
		Plan:   tfsdk.Plan(st),
		Config: tfsdk.Config(st),
	}, resp)
	return resp
}

// createConnector plans connectorState's connector, "desk", and creates it.
func createConnector(t *testing.T, data *providerData) *resource.CreateResponse {
	t.Helper()
	return createIn(context.Background(), t, configured(t, NewConnectorResource(), data), plannedConnector(data))
}

// plannedConnector is connectorState's connector, "desk", as planned for a
// create: what the service sets is unknown.
func plannedConnector(data *providerData) connectorResourceModel {
	model := connectorState(data.workspaceID, "")
	model.ID, model.ConnectorName, model.CreatedAt, model.UpdatedAt = types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	return model
}

// createPastNameCheck sends createConnector's create as Create does once
// nameFree has found the name free, and settles its failure as Create does:
// the race in which connectors of the name appear between the check and the
// create. It returns the ID recorded, "" for none, and the diagnostics.
func createPastNameCheck(t *testing.T, data *providerData) (string, diag.Diagnostics) {
	t.Helper()
	r, ok := configured(t, NewConnectorResource(), data).(*connectorResource)
	if !ok {
		t.Fatal("not a *connectorResource")
	}
	var diags diag.Diagnostics
	spec, start := deskSpec("https://acme.example.com"), time.Now()
	c, err := data.client.CreateConnector(t.Context(), data.workspaceID, spec)
	if err != nil {
		c = r.createOrAdopt(t.Context(), &diags, data.workspaceID, spec, start, err)
	}
	if c == nil {
		return "", diags
	}
	return c.ID, diags
}

// deskSpec is what createConnector sends, with another URL if given.
func deskSpec(url string) client.ConnectorSpec {
	return client.ConnectorSpec{Name: "desk", URL: url, Token: "platform-token-1", AgentEmail: "agent@acme.com", Streams: []string{"chats"}}
}

// made creates a connector straight through the client, as someone else
// would.
func made(t *testing.T, data *providerData, spec client.ConnectorSpec) string {
	t.Helper()
	c, err := data.client.CreateConnector(t.Context(), data.workspaceID, spec)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// onlyError checks that diags hold one error with the summary and the
// phrases, and no warning.
func onlyError(t *testing.T, diags diag.Diagnostics, summary string, phrases ...string) {
	t.Helper()
	if len(diags) != 1 || diags[0].Severity() != diag.SeverityError || diags[0].Summary() != summary {
		t.Fatalf("diagnostics %v, want one error %q", diags, summary)
	}
	for _, p := range phrases {
		if !strings.Contains(diags[0].Detail(), p) {
			t.Errorf("error %q lacks %q", diags[0].Detail(), p)
		}
	}
}

// stateID is the id a Create recorded, "" when it recorded nothing.
func stateID(t *testing.T, resp *resource.CreateResponse) string {
	t.Helper()
	if resp.State.Raw.IsNull() {
		return ""
	}
	var id types.String
	failOn(t, resp.State.GetAttribute(context.Background(), path.Root("id"), &id))
	return id.ValueString()
}

// TestConnectorCreateWhoseAnswerIsLost: the service made the connector but
// its answer was lost. The provider finds it and records it as created,
// with a warning naming it: the next apply will not make a second.
func TestConnectorCreateWhoseAnswerIsLost(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	loseAnswers(t, srv, sandbox.FaultsAfter, "POST")
	resp := createConnector(t, data)

	ids := srv.ConnectorIDs(data.workspaceID)
	if len(ids) != 1 {
		t.Fatalf("the sandbox holds %d connectors, want the one made", len(ids))
	}
	onlyWarning(t, resp.Diagnostics, "Connector Created, Its Answer Lost", "HTTP 502", ids[0], "recorded in the state")
	if got := stateID(t, resp); got != ids[0] {
		t.Errorf("the state records connector %q, want %s", got, ids[0])
	}
}

// TestConnectorCreateLostAndNotMade: a 502 that the service answered before
// doing anything: the provider finds nothing made and says that applying
// again is safe. A connector of that name but another configuration, made
// meanwhile, is not taken for it.
func TestConnectorCreateLostAndNotMade(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	loseAnswers(t, srv, sandbox.FaultsBefore, "POST")
	resp := createConnector(t, data)
	onlyError(t, resp.Diagnostics, "Connector Not Created", "HTTP 502", "the service did not create it, and applying again is safe")
	if stateID(t, resp) != "" {
		t.Errorf("a connector was recorded: %v", resp.State.Raw)
	}

	if err := srv.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	other := made(t, data, deskSpec("https://other.example.com"))
	loseAnswers(t, srv, sandbox.FaultsBefore, "POST")
	id, diags := createPastNameCheck(t, data)
	onlyError(t, diags, "Connector Not Created", "HTTP 502", "the service did not create it, and applying again is safe")
	if strings.Contains(diags[0].Detail(), other) || id != "" {
		t.Errorf("the connector of another configuration was taken for the one sent: %v", diags)
	}
}

// TestConnectorCreateLostWithSeveralMade: two connectors of the name and
// configuration sent were made while the create was in flight: which one
// is this apply's is unknown, so none is recorded, and the error names
// each with its import command.
func TestConnectorCreateLostWithSeveralMade(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	twin := made(t, data, deskSpec("https://acme.example.com"))
	loseAnswers(t, srv, sandbox.FaultsAfter, "POST")
	id, diags := createPastNameCheck(t, data)

	ids := srv.ConnectorIDs(data.workspaceID)
	if len(ids) != 2 {
		t.Fatalf("the sandbox holds %v, want the twin and the one made", ids)
	}
	phrases := []string{"holds 2 connectors named \"desk\"", "none was recorded in the state"}
	for _, id := range ids {
		phrases = append(phrases, "terraform import <address> "+data.workspaceID+"/"+id)
	}
	onlyError(t, diags, "Connector May Have Been Created", phrases...)
	if id != "" || !strings.Contains(diags[0].Detail(), twin) {
		t.Errorf("recorded %q, diagnostics %v", id, diags)
	}
}

// TestConnectorCreateLostNeverAdoptsAnOlderOne: a connector of the same
// name and configuration made an hour before the request is never taken
// for the one the request made, whether it made one or not.
func TestConnectorCreateLostNeverAdoptsAnOlderOne(t *testing.T) {
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	srv, data := unitSandbox(t, sandbox.Config{Now: clock}, sandbox.DefaultAPIKey)
	offset.Store(int64(-time.Hour))
	old := made(t, data, deskSpec("https://acme.example.com"))
	offset.Store(0)

	loseAnswers(t, srv, sandbox.FaultsBefore, "POST")
	id, diags := createPastNameCheck(t, data)
	onlyError(t, diags, "Connector Not Created", "applying again is safe", "held 1 such connector(s) made before the request", old)
	if id != "" {
		t.Errorf("the older connector was adopted")
	}

	loseAnswers(t, srv, sandbox.FaultsAfter, "POST")
	if got, diags := createPastNameCheck(t, data); got == "" || got == old {
		t.Errorf("the state records %q, want the new connector, not %s: %v", got, old, diags)
	}
}

// TestConnectorCreateLostAndLookupFails: the create's answer is lost and
// so is the lookup's: nothing is recorded, and the error says to look
// before applying again.
func TestConnectorCreateLostAndLookupFails(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	loseAnswers(t, srv, sandbox.FaultsAfter, "POST", "GET")
	id, diags := createPastNameCheck(t, data)
	onlyError(t, diags, "Connector May Have Been Created", "looking for it failed too", "list connectors: HTTP 502",
		"terraform import <address> "+data.workspaceID+"/<id>")
	if id != "" || len(srv.ConnectorIDs(data.workspaceID)) != 1 {
		t.Errorf("recorded %q, connectors %v", id, srv.ConnectorIDs(data.workspaceID))
	}
}

// TestConnectorCreateRefusedWarnsOfNothing: a refusal (here a 429 after the
// retries) cannot have created anything: no warning, no request beyond the
// name check and the create.
func TestConnectorCreateRefusedWarnsOfNothing(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{429}, Methods: []string{"POST"}}); err != nil {
		t.Fatal(err)
	}
	resp := createConnector(t, data)
	if !resp.Diagnostics.HasError() || len(resp.Diagnostics.Warnings()) != 0 || srv.Stats().Requests != 2 {
		t.Errorf("%d requests, diagnostics %v", srv.Stats().Requests, resp.Diagnostics)
	}
}

// TestJobTriggerWhoseAnswerIsLost: whether the job started or not, a
// trigger whose answer was lost is recorded, with a warning, so that it is
// never sent again: the job runs at most once. The run_job action warns
// too, and does not fail: a failed action would be run again by the next
// apply.
func TestJobTriggerWhoseAnswerIsLost(t *testing.T) {
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

// TestJobTriggerRefusedIsNotRecorded: a 503 means the service did nothing:
// an error, nothing recorded, so that the next apply triggers the job.
func TestJobTriggerRefusedIsNotRecorded(t *testing.T) {
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

// TestJobTriggerLostAtItsTimeout: a trigger still in flight when its own
// time ends (timeouts.create, the action's timeout) is recorded as one whose
// answer was lost, and the warning names that limit, not the request
// timeout, which did not end.
func TestJobTriggerLostAtItsTimeout(t *testing.T) {
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

// TestConnectorCreateNameTaken: a workspace that holds a connector of the
// name (one an apply killed while creating it left out of the state) makes
// the create fail before it sends anything, naming the connector and the
// import block that adopts it: no second connector of the name.
func TestConnectorCreateNameTaken(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	there := made(t, data, deskSpec("https://acme.example.com"))
	before := srv.Stats().Requests
	resp := createConnector(t, data)
	onlyError(t, resp.Diagnostics, "Connector Name Taken", `already holds a connector named "desk": `+there,
		"import {\n  to = <this resource's address>\n  id = \""+data.workspaceID+"/"+there+"\"\n}", "No second one was created")
	if ids := srv.ConnectorIDs(data.workspaceID); len(ids) != 1 || stateID(t, resp) != "" {
		t.Errorf("connectors %v, state %v", ids, resp.State.Raw)
	}
	if got := srv.Stats(); got.Requests-before != 1 || got.ByRoute["POST /developers/workspaces/{workspace_id}/connectors/"] != 1 {
		t.Errorf("%d requests after the first create (%v), want the name check alone", got.Requests-before, got.ByRoute)
	}
}

// TestConnectorCreatesOfOneNameWait: two creates of one name in one apply
// (two resources, one name) wait for each other, so that the second finds
// the first's connector: one is created, the other fails.
func TestConnectorCreatesOfOneNameWait(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	// Slow answers: without the wait, both name checks would find none.
	if err := srv.SetFaults(sandbox.Faults{LatencyMS: 100}); err != nil {
		t.Fatal(err)
	}
	results := make(chan *resource.CreateResponse, 2)
	for range 2 {
		go func() { results <- createConnector(t, data) }()
	}
	var created, taken int
	for range 2 {
		resp := <-results
		switch {
		case !resp.Diagnostics.HasError():
			created++
		case resp.Diagnostics[0].Summary() == "Connector Name Taken":
			taken++
			// Importing the connector would make two resources manage it.
			if d := resp.Diagnostics[0].Detail(); !strings.Contains(d, "Another resource of this apply has just created connector") || strings.Contains(d, "import") {
				t.Errorf("the second create is not told that the first made the connector: %s", d)
			}
		default:
			t.Errorf("diagnostics %v", resp.Diagnostics)
		}
	}
	if ids := srv.ConnectorIDs(data.workspaceID); created != 1 || taken != 1 || len(ids) != 1 {
		t.Errorf("%d created, %d refused, the sandbox holds %v; want one of each and one connector", created, taken, ids)
	}
}

// TestConnectorCreateInterruptedDuringNameCheck: Terraform interrupted
// while the name check is in flight: no create is sent, and the error says
// so rather than report a failed request.
func TestConnectorCreateInterruptedDuringNameCheck(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	if err := srv.SetFaults(sandbox.Faults{LatencyMS: 2000}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	resp := createIn(ctx, t, configured(t, NewConnectorResource(), data), plannedConnector(data))
	onlyError(t, resp.Diagnostics, "Connector Not Created", "Terraform was interrupted", "nothing was created")
	if n := srv.Stats().ByRoute["POST "+acctest.RouteConnectors]; n != 0 || stateID(t, resp) != "" {
		t.Errorf("%d creates sent, state %v", n, resp.State.Raw)
	}
}
