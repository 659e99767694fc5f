package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

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

// createPastNameCheck sends the create as Create does once the name check found
// the name free: the race in which connectors of the name appear meanwhile.
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

// TestConnector_createWhoseAnswerIsLost: the service made the connector but
// its answer was lost. The provider finds it and records it as created,
// with a warning naming it: the next apply will not make a second.
func TestConnector_createWhoseAnswerIsLost(t *testing.T) {
	t.Parallel()
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

// TestConnector_createLostAndNotMade: a 502 before the service acted; a
// connector of that name but another configuration is not taken for it.
func TestConnector_createLostAndNotMade(t *testing.T) {
	t.Parallel()
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

// gatewayOfCreates answers the creates in turn as answers says: "before" 502
// without passing it on, "after" passes it on and answers 502, "ok" passes it on.
func gatewayOfCreates(t *testing.T, srv *sandbox.Server, onCreate func(n int), answers ...string) string {
	t.Helper()
	var mu sync.Mutex
	n := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			srv.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		if onCreate != nil {
			onCreate(i)
		}
		how := "ok"
		if i <= len(answers) {
			how = answers[i-1]
		}
		switch how {
		case "before":
		case "after":
			srv.ServeHTTP(httptest.NewRecorder(), r)
		default:
			srv.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// resendingData is provider data whose client retries as the provider's
// defaults do (no max_retries), within budget, through the gateway at base.
func resendingData(t *testing.T, srv *sandbox.Server, base string, budget time.Duration, maxRetries int) *providerData {
	t.Helper()
	return unitData(t, base, sandbox.DefaultAPIKey, srv.Workspaces()[0], func(c *client.Config) {
		c.MaxRetries, c.RetryBudget = maxRetries, budget
	})
}

// TestConnector_createSentAgainWhenNothingMade: a 502 that made nothing is sent
// again, under the name lock, until answered.
func TestConnector_createSentAgainWhenNothingMade(t *testing.T) {
	t.Parallel()
	srv, err := sandbox.New(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	data := resendingData(t, srv, gatewayOfCreates(t, srv, nil, "before", "before"), time.Minute, client.NoRetryLimit)
	resp := createConnector(t, data)
	failOn(t, resp.Diagnostics)
	ids := srv.ConnectorIDs(data.workspaceID)
	if len(ids) != 1 || stateID(t, resp) != ids[0] {
		t.Errorf("the sandbox holds %v, the state %q: want the one connector, recorded", ids, stateID(t, resp))
	}
	if n := srv.Stats().ByRoute["POST "+acctest.RouteConnectors]; n != 1 {
		t.Errorf("the service saw %d creates, want the third send alone", n)
	}
}

// TestConnector_createSentAgainThenAdopted: the first send made nothing and
// the second made the connector but lost its answer: the second is adopted,
// not sent a third time.
func TestConnector_createSentAgainThenAdopted(t *testing.T) {
	t.Parallel()
	srv, err := sandbox.New(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sends := 0
	base := gatewayOfCreates(t, srv, func(n int) { sends = n }, "before", "after")
	data := resendingData(t, srv, base, time.Minute, client.NoRetryLimit)
	resp := createConnector(t, data)
	ids := srv.ConnectorIDs(data.workspaceID)
	if len(ids) != 1 {
		t.Fatalf("the sandbox holds %v, want one connector", ids)
	}
	onlyWarning(t, resp.Diagnostics, "Connector Created, Its Answer Lost", "HTTP 502", "send 2 of the create: the 1 before it made nothing", ids[0], "recorded in the state")
	if stateID(t, resp) != ids[0] || sends != 2 {
		t.Errorf("state %q, %d sends: want %s after 2", stateID(t, resp), sends, ids[0])
	}
}

// TestConnector_createNotSentAgainPastItsLimits: sent again only within
// max_retries and the retry budget, never once interrupted; the error says which.
func TestConnector_createNotSentAgainPastItsLimits(t *testing.T) {
	always := slices.Repeat([]string{"before"}, 100)
	for name, tc := range map[string]struct {
		budget     time.Duration
		maxRetries int
		interrupt  bool
		sends      int // 0: at least 2
		why        string
	}{
		"max_retries": {budget: time.Minute, maxRetries: 2, sends: 3, why: "max_retries (2) was reached"},
		"budget":      {budget: 3 * time.Second, maxRetries: client.NoRetryLimit, why: "the retry budget (3s) would run out first"},
		"interrupted": {budget: time.Minute, maxRetries: client.NoRetryLimit, interrupt: true, sends: 1, why: "Terraform was interrupted"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, err := sandbox.New(sandbox.Config{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var sends atomic.Int64
			base := gatewayOfCreates(t, srv, func(n int) {
				sends.Store(int64(n))
				if tc.interrupt {
					cancel()
				}
			}, always...)
			data := resendingData(t, srv, base, tc.budget, tc.maxRetries)
			start := time.Now()
			resp := createIn(ctx, t, configured(t, NewConnectorResource(), data), plannedConnector(data))
			onlyError(t, resp.Diagnostics, "Connector Not Created", "HTTP 502", "applying again is safe", "It was not sent again: "+tc.why)
			n := int(sends.Load())
			if tc.sends != 0 && n != tc.sends || tc.sends == 0 && n < 2 {
				t.Errorf("%d sends, want %d", n, tc.sends)
			}
			if n > 1 && !strings.Contains(resp.Diagnostics[0].Detail(), fmt.Sprintf("send %d of the create", n)) {
				t.Errorf("the error does not count the %d sends: %s", n, resp.Diagnostics[0].Detail())
			}
			if took := time.Since(start); took > tc.budget+2*time.Second {
				t.Errorf("the sends took %s, past the budget of %s", took, tc.budget)
			}
			if ids := srv.ConnectorIDs(data.workspaceID); len(ids) != 0 || stateID(t, resp) != "" {
				t.Errorf("connectors %v, state %q", ids, stateID(t, resp))
			}
		})
	}
}

// TestConnector_createLostWithSeveralMade: which of two matches is this apply's
// is unknown, so none is recorded.
func TestConnector_createLostWithSeveralMade(t *testing.T) {
	t.Parallel()
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
		phrases = append(phrases, "- "+id+" (created at ")
	}
	phrases = append(phrases, "import {\n  to = <the address after \"with\" above>\n  id = \""+data.workspaceID+"/<the one to keep>\"\n}")
	onlyError(t, diags, "Connector May Have Been Created", phrases...)
	if id != "" || !strings.Contains(diags[0].Detail(), twin) {
		t.Errorf("recorded %q, diagnostics %v", id, diags)
	}
}

// TestConnector_createLostNeverAdoptsAnOlderOne: a connector of the same
// name and configuration made an hour before the request is never taken
// for the one the request made, whether it made one or not.
func TestConnector_createLostNeverAdoptsAnOlderOne(t *testing.T) {
	t.Parallel()
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

// TestConnector_createLostAndLookupFails: the create's answer is lost and
// so is the lookup's: nothing is recorded, and the error says to look
// before applying again.
func TestConnector_createLostAndLookupFails(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	loseAnswers(t, srv, sandbox.FaultsAfter, "POST", "GET")
	id, diags := createPastNameCheck(t, data)
	onlyError(t, diags, "Connector May Have Been Created", "looking for it failed too", "list connectors: HTTP 502",
		"import {\n  to = <the address after \"with\" above>\n  id = \""+data.workspaceID+"/<its id>\"\n}")
	if id != "" || len(srv.ConnectorIDs(data.workspaceID)) != 1 {
		t.Errorf("recorded %q, connectors %v", id, srv.ConnectorIDs(data.workspaceID))
	}
}

// TestConnector_createRefusedWarnsOfNothing: a refusal (here a 429 after the
// retries) cannot have created anything: no warning, no request beyond the
// name check and the create.
func TestConnector_createRefusedWarnsOfNothing(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{429}, Methods: []string{"POST"}}); err != nil {
		t.Fatal(err)
	}
	resp := createConnector(t, data)
	if !resp.Diagnostics.HasError() || len(resp.Diagnostics.Warnings()) != 0 || srv.Stats().Requests != 2 {
		t.Errorf("%d requests, diagnostics %v", srv.Stats().Requests, resp.Diagnostics)
	}
}

// TestConnector_createNameTaken: the create fails before sending anything, with
// the import block that adopts the connector.
func TestConnector_createNameTaken(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	there := made(t, data, deskSpec("https://acme.example.com"))
	before := srv.Stats().Requests
	resp := createConnector(t, data)
	onlyError(t, resp.Diagnostics, "Connector Name Taken", `already holds a connector named "desk": `+there,
		"import {\n  to = <the address after \"with\" above>\n  id = \""+data.workspaceID+"/"+there+"\"\n}", "No second one was created")
	if ids := srv.ConnectorIDs(data.workspaceID); len(ids) != 1 || stateID(t, resp) != "" {
		t.Errorf("connectors %v, state %v", ids, resp.State.Raw)
	}
	if got := srv.Stats(); got.Requests-before != 1 || got.ByRoute["POST /developers/workspaces/{workspace_id}/connectors/"] != 1 {
		t.Errorf("%d requests after the first create (%v), want the name check alone", got.Requests-before, got.ByRoute)
	}
}

// TestConnector_createsOfOneNameWait: two creates of one name in one apply
// (two resources, one name) wait for each other, so that the second finds
// the first's connector: one is created, the other fails.
func TestConnector_createsOfOneNameWait(t *testing.T) {
	t.Parallel()
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

// TestConnector_createInterruptedDuringNameCheck: Terraform interrupted
// while the name check is in flight: no create is sent, and the error says
// so rather than report a failed request.
func TestConnector_createInterruptedDuringNameCheck(t *testing.T) {
	t.Parallel()
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

// TestConnector_createInterruptedBeforeItIsSent: the error says nothing was
// created, and nothing is looked up.
func TestConnector_createInterruptedBeforeItIsSent(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	r, ok := configured(t, NewConnectorResource(), data).(*connectorResource)
	if !ok {
		t.Fatal("not a connector resource")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	spec := client.ConnectorSpec{Name: "queued", URL: "https://acme.example-helpdesk.com", Token: "t", AgentEmail: "agent@acme.com"}
	_, err := data.client.CreateConnector(ctx, data.workspaceID, spec)
	var diags diag.Diagnostics
	if c := r.createOrAdopt(ctx, &diags, data.workspaceID, spec, time.Now(), err); c != nil {
		t.Fatalf("adopted %v", c)
	}
	onlyError(t, diags, "Connector Not Created", `Terraform was interrupted before the create of connector "queued" was sent`, "nothing was created")
	if n := srv.Stats().Requests; n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestConnector_racingCreatesNeverBothStand: two provider processes create one
// name, many times; the later one (or both, in one millisecond) deletes its own.
func TestConnector_racingCreatesNeverBothStand(t *testing.T) {
	t.Parallel()
	var raced int
	for round := range 20 {
		srv, err := sandbox.New(sandbox.Config{})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		ws := srv.Workspaces()[0]
		// Slow answers, so that both name checks are in flight at once.
		if err := srv.SetFaults(sandbox.Faults{LatencyMS: 20}); err != nil {
			t.Fatal(err)
		}
		results := make(chan *resource.CreateResponse, 2)
		for range 2 {
			data := unitData(t, ts.URL, sandbox.DefaultAPIKey, ws)
			go func() { results <- createConnector(t, data) }()
		}
		var kept []string
		for range 2 {
			resp := <-results
			switch {
			case !resp.Diagnostics.HasError():
				kept = append(kept, stateID(t, resp))
			case resp.Diagnostics[0].Summary() != "Connector Name Taken" || stateID(t, resp) != "":
				t.Errorf("round %d: a losing create recorded %q with %v", round, stateID(t, resp), resp.Diagnostics)
			}
		}
		if srv.Stats().ByRoute["POST "+acctest.RouteConnectors] == 2 {
			raced++
		}
		ids := srv.ConnectorIDs(ws)
		switch {
		case len(kept) > 1 || len(ids) > 1:
			t.Errorf("round %d: creates recorded %v, the sandbox holds %v: two connectors of one name stand", round, kept, ids)
		case len(kept) != len(ids) || len(kept) == 1 && !sameID(kept[0], ids[0]):
			t.Errorf("round %d: the state records %v, the sandbox holds %v", round, kept, ids)
		}
		ts.Close()
	}
	if raced == 0 {
		t.Fatal("no round sent two creates: the test raced nothing")
	}
}

// TestConnector_raceLoserDeletesOnlyItsOwn: the loser deletes the one it made,
// never the other; a failed delete names both. A tie loses on both sides.
func TestConnector_raceLoserDeletesOnlyItsOwn(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	r, ok := configured(t, NewConnectorResource(), data).(*connectorResource)
	if !ok {
		t.Fatal("not a *connectorResource")
	}
	older, err := data.client.CreateConnector(t.Context(), data.workspaceID, deskSpec("https://acme.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	newer, err := data.client.CreateConnector(t.Context(), data.workspaceID, deskSpec("https://acme.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	var diags diag.Diagnostics
	if !r.outlivesRivals(t.Context(), &diags, data.workspaceID, older) || diags.HasError() {
		t.Fatalf("the older connector does not stand: %v", diags)
	}

	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{500}, Methods: []string{"DELETE"}}); err != nil {
		t.Fatal(err)
	}
	if r.outlivesRivals(t.Context(), &diags, data.workspaceID, newer) {
		t.Fatal("the newer connector stands beside the older one")
	}
	onlyError(t, diags, "Connector Name Taken", "Another apply, or another provider configuration of this one, created connector "+older.ID, "Deleting connector "+newer.ID, "failed too",
		"Delete connector "+newer.ID+" by hand", "import")

	if err := srv.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	diags = nil
	if r.outlivesRivals(t.Context(), &diags, data.workspaceID, newer) {
		t.Fatal("the newer connector stands beside the older one")
	}
	onlyError(t, diags, "Connector Name Taken", "Another apply, or another provider configuration of this one, created connector "+older.ID, "a moment ago", "This apply deleted connector "+newer.ID)
	if ids := srv.ConnectorIDs(data.workspaceID); len(ids) != 1 || !sameID(ids[0], older.ID) {
		t.Errorf("the sandbox holds %v, want the older connector %s alone", ids, older.ID)
	}

	// Made in the same millisecond as the older one: it loses too, and is
	// not told to import a connector that its rival's apply deletes.
	tied, err := data.client.CreateConnector(t.Context(), data.workspaceID, deskSpec("https://acme.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	tied.CreatedAt = older.CreatedAt
	diags = nil
	if r.outlivesRivals(t.Context(), &diags, data.workspaceID, tied) {
		t.Fatal("a connector made in the same millisecond as its rival stands")
	}
	onlyError(t, diags, "Connector Name Taken", "at the same moment", "This apply deleted connector "+tied.ID, "apply again")
	if strings.Contains(diags[0].Detail(), "import") {
		t.Errorf("a tie suggests importing the rival, which its own apply deletes: %s", diags[0].Detail())
	}
	if ids := srv.ConnectorIDs(data.workspaceID); len(ids) != 1 || !sameID(ids[0], older.ID) {
		t.Errorf("the sandbox holds %v, want the older connector %s alone", ids, older.ID)
	}
}

// TestConnector_createdAfterTiesLose: a rival created in the same
// millisecond, or at a time that cannot be read, counts as older.
func TestConnector_createdAfterTiesLose(t *testing.T) {
	t.Parallel()
	at := func(s string) client.Connector { return client.Connector{CreatedAt: s} }
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"2026-11-21T09:30:00.124Z", "2026-11-21T09:30:00.123Z", true},
		{"2026-11-21T09:30:00.123Z", "2026-11-21T09:30:00.123Z", false},
		{"2026-11-21T09:30:00.122Z", "2026-11-21T09:30:00.123Z", false},
		{"2026-11-21T10:30:00.124+01:00", "2026-11-21T09:30:00.123Z", true},
		{"yesterday", "2026-11-21T09:30:00.123Z", false},
		{"2026-11-21T09:30:00.124Z", "", false},
	} {
		if got := createdAfter(at(c.a), at(c.b)); got != c.want {
			t.Errorf("createdAfter(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestConnector_raceCheckStopsWhenInterrupted: Terraform interrupted while
// the name is listed again after a create stops the list at once; the
// connector made is kept, with a warning that its rivals were not checked.
func TestConnector_raceCheckStopsWhenInterrupted(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	r, ok := configured(t, NewConnectorResource(), data).(*connectorResource)
	if !ok {
		t.Fatal("not a *connectorResource")
	}
	made, err := data.client.CreateConnector(t.Context(), data.workspaceID, deskSpec("https://acme.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.SetFaults(sandbox.Faults{LatencyMS: 5000}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	var diags diag.Diagnostics
	if !r.outlivesRivals(ctx, &diags, data.workspaceID, made) {
		t.Fatalf("the connector made is not kept: %v", diags)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the interrupted check took %s", took)
	}
	onlyWarning(t, diags, "Connector Created, Rivals Not Checked", "Terraform was interrupted", "recorded in the state", made.ID)
}

// TestAccReliability_hardKill: after SIGKILL to Terraform and the provider, the
// next plan refuses each name the service holds with the import block that
// adopts it; with those blocks, the apply converges.
func TestAccReliability_hardKill(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "slow the service down and read its connectors' names")
	const n = 20
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
	vars := e.ServiceEnv()
	if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: 400}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(eng.Path, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.Env...), vars...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the provider too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(e.Sandbox.ConnectorIDs(e.WorkspaceID)) < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	time.Sleep(time.Second) // requests cut off end in the sandbox
	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	held, inState := e.Sandbox.ConnectorIDs(e.WorkspaceID), eng.StateIDs(t, dir, "dataintegration_customer_service_connector")
	t.Logf("killed: the service holds %d connectors, the state %d", len(held), len(inState))

	out, err := eng.Try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	lost := len(held) - len(inState)
	if got := strings.Count(out+fmt.Sprint(err), "Error: Connector Name Taken"); got != lost || (lost > 0) != (err != nil) {
		t.Fatalf("the apply after the kill refused %d names, want %d (held %d, in the state %d): %v\n%s", got, lost, len(held), len(inState), err, out)
	}
	byName := e.ConnectorsByName(t)
	inState = eng.StateIDs(t, dir, "dataintegration_customer_service_connector")
	t.Logf("next apply: %d names refused; the service holds %d connectors of %d names, the state %d", lost, len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), len(byName), len(inState))
	want := n
	if lost > 0 {
		want = len(held) // the plan failed: nothing was created
	}
	if len(byName) != want || len(e.Sandbox.ConnectorIDs(e.WorkspaceID)) != want {
		t.Fatalf("the service holds %d connectors of %d names, want %d, none twice: %v", len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), len(byName), want, byName)
	}

	// Adopt what the state lost with the import blocks the errors give.
	var imports strings.Builder
	for i := range n {
		ids := byName[fmt.Sprintf("fleet %d", i)]
		if len(ids) == 0 {
			continue // created by the apply below
		}
		if _, ok := inState[ids[0]]; !ok {
			id := ids[0]
			fmt.Fprintf(&imports, "import {\n  to = dataintegration_customer_service_connector.c[%d]\n  id = %q\n}\n\n", i, e.WorkspaceID+"/"+id)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "imports.tf"), []byte(imports.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	if c, _ := acctest.ExpectStateMatchesService(t, eng, dir, e, nil); c != n {
		t.Errorf("after the imports: %d connectors in the state, want %d", c, n)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccLostAnswers_connectorsAndTriggers: with 30% of the POSTs' answers lost,
// the first apply converges and nothing is sent twice. Executions last an hour:
// a trigger sent again would fail with Job Already Running.
func TestAccLostAnswers_connectorsAndTriggers(t *testing.T) {
	t.Parallel()
	e := acctest.NewEngine(t)
	env := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour})
	env.RequireSandbox(t, "lose the service's answers")
	jobs, _ := acctest.ActiveJobs(t, env, 10)
	jobsVar := acctest.JobsVar(t, jobs)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(20, "", false))
	vars := env.ServiceEnv(jobsVar)
	if err := env.Sandbox.SetFaults(lostAnswerFaults); err != nil {
		t.Fatal(err)
	}

	diags, err := applyJSON(e, t, dir, vars)
	if err != nil {
		t.Fatalf("the first apply failed: %v", err)
	}
	st := env.Sandbox.Stats()
	adopted, triggersLost := diags["warning: "+summaryAdopted], diags["warning: "+summaryTriggerLost]
	t.Logf("%d answers lost of %d POSTs: %d connectors adopted, %d triggers recorded without their answer; diagnostics %v",
		st.Faults, st.ByRoute[routeCreateConnector]+st.ByRoute[routeTriggerJob], adopted, triggersLost, diags)
	if st.Faults == 0 || int64(adopted+triggersLost) != st.Faults {
		t.Errorf("%d answers lost, but %d adoptions and %d lost triggers reported", st.Faults, adopted, triggersLost)
	}
	if c, tr := st.ByRoute[routeCreateConnector], st.ByRoute[routeTriggerJob]; c != 20 || tr != 10 {
		t.Errorf("%d creates and %d triggers sent, want 20 and 10: nothing is sent twice", c, tr)
	}
	if ran := expectAtMostOnce(t, e, dir, env, jobs, 20); ran != 10 {
		t.Errorf("%d of 10 jobs ran, want each once: every trigger was carried out", ran)
	}
	e.ExpectConverged(t, dir, vars)
	if err := env.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	e.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccLostAnswers_mixedFaults: 502s before the service acted and answers lost
// after: connectors are sent again or adopted; no job runs twice.
func TestAccLostAnswers_mixedFaults(t *testing.T) {
	t.Parallel()
	e := acctest.NewEngine(t)
	env := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: 100 * time.Millisecond})
	env.RequireSandbox(t, "lose the service's answers")
	jobs, _ := acctest.ActiveJobs(t, env, 10)
	jobsVar := acctest.JobsVar(t, jobs)
	front, refused := loseBefore(env.Sandbox, 0.15, 9)
	ts := httptest.NewServer(front)
	t.Cleanup(ts.Close)
	mixed := *env
	mixed.BaseURL = ts.URL
	dir := acctest.ConfigDir(t, acctest.FleetHCL(20, "", false))
	vars := mixed.ServiceEnv(jobsVar)
	after := lostAnswerFaults
	after.Rate = 0.15
	if err := env.Sandbox.SetFaults(after); err != nil {
		t.Fatal(err)
	}

	diags, err := applyJSON(e, t, dir, vars)
	if err != nil {
		t.Fatalf("the first apply failed: %v; diagnostics %v", err, diags)
	}
	st := env.Sandbox.Stats()
	ran := expectAtMostOnce(t, e, dir, &mixed, jobs, 20)
	t.Logf("%d POSTs refused before the service, %d answers lost after it; "+
		"%d connectors adopted; %d triggers recorded without their answer; %d of 10 jobs ran",
		refused(), st.Faults, diags["warning: "+summaryAdopted], diags["warning: "+summaryTriggerLost], ran)
	if refused() == 0 || st.Faults == 0 {
		t.Errorf("%d POSTs refused before the service and %d answers lost after it: the faults were not mixed", refused(), st.Faults)
	}
	if diags["warning: "+summaryTriggerLost] != 10-ran+int(st.Faults)-diags["warning: "+summaryAdopted] {
		t.Errorf("%d jobs did not run and %d trigger answers were lost after the service, but %d lost triggers were reported",
			10-ran, int(st.Faults)-diags["warning: "+summaryAdopted], diags["warning: "+summaryTriggerLost])
	}
	e.ExpectConverged(t, dir, vars)
	if err := env.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	e.Run(t, dir, env.ServiceEnv(jobsVar), "destroy", "-auto-approve", "-input=false")
}

// TestAccLostAnswers_createsBehindAGateway: a gateway's 502s, before or after
// the service acted, converge in one apply, each connector once.
func TestAccLostAnswers_createsBehindAGateway(t *testing.T) {
	t.Parallel()
	const n = 30
	for _, when := range []string{sandbox.FaultsBefore, sandbox.FaultsAfter} {
		t.Run(when, func(t *testing.T) {
			e := acctest.NewEngine(t)
			env := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
			env.RequireSandbox(t, "answer creates 502")
			dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
			vars := env.ServiceEnv()
			if err := env.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{502}, Methods: []string{"POST"}, When: when, Seed: 50}); err != nil {
				t.Fatal(err)
			}
			diags, err := applyJSON(e, t, dir, vars)
			if err != nil {
				t.Fatalf("the apply failed: %v; diagnostics %v", err, diags)
			}
			st := env.Sandbox.Stats()
			creates, adopted := st.ByRoute[routeCreateConnector], diags["warning: "+summaryAdopted]
			t.Logf("%d creates sent, %d answered 502 %s the service acted; %d adopted; diagnostics %v", creates, st.Faults, when, adopted, diags)
			switch {
			case st.Faults == 0:
				t.Error("no create was answered 502")
			case when == sandbox.FaultsBefore && (creates != n+st.Faults || adopted != 0):
				t.Errorf("%d creates sent and %d adopted, want each of the %d refused sent again and none adopted", creates, adopted, st.Faults)
			case when == sandbox.FaultsAfter && (creates != n || int64(adopted) != st.Faults):
				t.Errorf("%d creates sent and %d adopted, want %d creates and each of the %d lost answers adopted", creates, adopted, n, st.Faults)
			}
			expectAtMostOnce(t, e, dir, env, nil, n)
			for name, ids := range env.ConnectorsByName(t) {
				if len(ids) != 1 {
					t.Errorf("the service holds %d connectors named %q", len(ids), name)
				}
			}
			e.ExpectConverged(t, dir, vars)
			if err := env.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
				t.Fatal(err)
			}
			e.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
		})
	}
}

// Summaries of the diagnostics a lost answer gives.
const (
	summaryAdopted       = "Connector Created, Its Answer Lost"
	summaryTriggerLost   = "Job Triggered, Its Answer Lost"
	routeCreateConnector = "POST /developers/workspaces/{workspace_id}/connectors/"
	routeTriggerJob      = "POST /developers/workspaces/{workspace_id}/jobs/{_id}/run/"
)

// lostAnswerFaults loses the answer of 30% of the POSTs, once the sandbox
// has carried them out, as a gateway that lost the service's answer would.
var lostAnswerFaults = sandbox.Faults{Rate: 0.3, Statuses: []int{500, 502, 504}, When: sandbox.FaultsAfter, Methods: []string{"POST"}, Seed: 18}

// applyJSON counts the diagnostics by severity and summary: Terraform's human
// output folds similar warnings into one.
func applyJSON(e *acctest.Engine, t *testing.T, dir string, env []string) (map[string]int, error) {
	t.Helper()
	out, err := e.Try(dir, env, "apply", "-auto-approve", "-input=false", "-json")
	counts := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity string `json:"severity"`
				Summary  string `json:"summary"`
			} `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "diagnostic" {
			counts[line.Diagnostic.Severity+": "+line.Diagnostic.Summary]++
		}
	}
	return counts, err
}

// expectAtMostOnce: the state holds the service's connectors and no job ran twice.
// It returns how many jobs ran.
func expectAtMostOnce(t *testing.T, e *acctest.Engine, dir string, env *acctest.Env, jobs []string, connectors int) (ran int) {
	t.Helper()
	acctest.ExpectStateMatchesService(t, e, dir, env, jobs)
	if held := len(env.Sandbox.ConnectorIDs(env.WorkspaceID)); held != connectors {
		t.Errorf("the service holds %d connectors for %d configured", held, connectors)
	}
	for _, job := range jobs {
		ran += min(len(env.Sandbox.Executions(env.WorkspaceID, job)), 1)
	}
	return ran
}

// loseBefore answers a share of the POSTs 502 without passing them on: with the
// sandbox's "after" faults, no 502 tells whether it did nothing.
func loseBefore(h http.Handler, rate float64, seed uint64) (http.Handler, func() int) {
	var mu sync.Mutex
	rng, count := rand.New(rand.NewPCG(seed, seed)), 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fail := r.Method == http.MethodPost && rng.Float64() < rate
		if fail {
			count++
		}
		mu.Unlock()
		if fail {
			http.Error(w, `{"detail": "bad gateway"}`, http.StatusBadGateway)
			return
		}
		h.ServeHTTP(w, r)
	}), func() int { mu.Lock(); defer mu.Unlock(); return count }
}
