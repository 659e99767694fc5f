package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// lostAnswers is a sandbox that carries out every POST, then answers 502 as
// a gateway would whose upstream answer was lost.
func lostAnswers(t *testing.T, cfg sandbox.Config) (*sandbox.Server, *providerData) {
	t.Helper()
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			srv.ServeHTTP(w, r)
			return
		}
		srv.ServeHTTP(httptest.NewRecorder(), r)
		http.Error(w, "upstream answer lost", http.StatusBadGateway)
	}))
	t.Cleanup(ts.Close)
	c, err := client.New(client.Config{BaseURL: ts.URL, APIKey: sandbox.DefaultAPIKey})
	if err != nil {
		t.Fatal(err)
	}
	return srv, &providerData{client: c, workspaceID: srv.Workspaces()[0]}
}

// create calls r's Create with a plan and configuration holding model.
func create(t *testing.T, r resource.Resource, model any) *resource.CreateResponse {
	t.Helper()
	st := stateOf(t, r, model)
	resp := &resource.CreateResponse{State: tfsdk.State{Schema: st.Schema, Raw: tftypes.NewValue(st.Raw.Type(), nil)}}
	r.Create(context.Background(), resource.CreateRequest{
		Plan:   tfsdk.Plan(st),
		Config: tfsdk.Config(st),
	}, resp)
	return resp
}

// TestConnectorCreateWhoseAnswerIsLost: the service made the connector but
// its answer was lost. The create fails, nothing is saved, and a warning
// names the connector found, so that the user imports it instead of
// applying again and making a second.
func TestConnectorCreateWhoseAnswerIsLost(t *testing.T) {
	srv, data := lostAnswers(t, sandbox.Config{})
	r := configured(t, NewConnectorResource(), data)
	model := connectorState(data.workspaceID, "")
	model.ID, model.ConnectorName, model.CreatedAt, model.UpdatedAt = types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	resp := create(t, r, model)

	ids := srv.ConnectorIDs(data.workspaceID)
	if len(ids) != 1 {
		t.Fatalf("the sandbox holds %d connectors, want the one made", len(ids))
	}
	if !resp.Diagnostics.HasError() || !resp.State.Raw.IsNull() {
		t.Fatalf("a create whose answer was lost: %v, state %v", resp.Diagnostics, resp.State.Raw)
	}
	var warned bool
	for _, d := range resp.Diagnostics.Warnings() {
		warned = warned || d.Summary() == "The Connector May Have Been Created" &&
			strings.Contains(d.Detail(), ids[0]) && strings.Contains(d.Detail(), "terraform import")
	}
	if !warned {
		t.Errorf("no warning naming connector %s: %v", ids[0], resp.Diagnostics)
	}
}

// TestConnectorCreateRefusedWarnsOfNothing: a refusal (here a 429 after the
// retries) cannot have created anything: no warning, no extra request.
func TestConnectorCreateRefusedWarnsOfNothing(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{429}}); err != nil {
		t.Fatal(err)
	}
	model := connectorState(data.workspaceID, "")
	model.ID, model.ConnectorName, model.CreatedAt, model.UpdatedAt = types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	resp := create(t, configured(t, NewConnectorResource(), data), model)
	if !resp.Diagnostics.HasError() || len(resp.Diagnostics.Warnings()) != 0 || srv.Stats().Requests != 1 {
		t.Errorf("%d requests, diagnostics %v", srv.Stats().Requests, resp.Diagnostics)
	}
}

// TestJobTriggerWhoseAnswerIsLost: the job started but the answer was a
// 502: the trigger fails, and a warning says the job may have started.
func TestJobTriggerWhoseAnswerIsLost(t *testing.T) {
	srv, data := lostAnswers(t, sandbox.Config{Jobs: 1})
	job := srv.Jobs(data.workspaceID)[0].ID
	r := configured(t, NewJobTriggerResource(), data)
	resp := create(t, r, triggerState(data.workspaceID, job, false))
	if n := len(srv.Executions(data.workspaceID, job)); n != 1 {
		t.Fatalf("%d executions, want the one started", n)
	}
	warnings := resp.Diagnostics.Warnings()
	if !resp.Diagnostics.HasError() || len(warnings) != 1 || warnings[0].Summary() != "The Job May Have Started" {
		t.Errorf("diagnostics: %v", resp.Diagnostics)
	}
}
