package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

const (
	demoConnector = "dataintegration_customer_service_connector.support"
	demoTrigger   = "dataintegration_job_trigger.support_sync"
)

// plannedActions plans in dir, saving the plan, and returns the actions the
// engine's plan JSON gives each resource address.
func (e *engine) plannedActions(t *testing.T, dir string, env []string) map[string][]string {
	t.Helper()
	e.run(t, dir, env, "plan", "-input=false", "-no-color", "-out=tfplan")
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(e.run(t, dir, env, "show", "-json", "tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	actions := map[string][]string{}
	for _, rc := range plan.ResourceChanges {
		actions[rc.Address] = rc.Change.Actions
	}
	return actions
}

func expectActions(t *testing.T, actions map[string][]string, address string, want ...string) {
	t.Helper()
	if got := actions[address]; !slices.Equal(got, want) {
		t.Errorf("%s: planned %v, want %v", address, got, want)
	}
}

// TestAccGuide_demoTriggersOnStreamsOnly follows step 7 of "Getting started
// with the sandbox" on examples/demo: a new token updates the connector and
// plans no change to the trigger, so the job does not run again; a new
// stream replaces the trigger, which runs the job again.
func TestAccGuide_demoTriggersOnStreamsOnly(t *testing.T) {
	e := newEngine(t)
	env := newTestEnv(t, sandbox.Config{})
	env.requireSandbox(t, "count the executions of the connector's job")
	dir := workdir(t, "demo")
	vars := env.serviceEnv()

	e.run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	job := unquote(t, e.outputs(t, dir)["triggered_job_id"])
	runs := func() int { return len(env.sandbox.Executions(env.workspaceID, job)) }
	if runs() != 1 {
		t.Fatalf("job %s ran %d times after the first apply, want once", job, runs())
	}

	rotated := env.serviceEnv("TF_VAR_platform_token=" + testName("rotated token"))
	actions := e.plannedActions(t, dir, rotated)
	expectActions(t, actions, demoConnector, "update")
	expectActions(t, actions, demoTrigger, "no-op")
	e.run(t, dir, rotated, "apply", "-auto-approve", "-input=false", "tfplan")
	if runs() != 1 {
		t.Errorf("a new token ran the job again: %d executions, want 1", runs())
	}
	e.expectConverged(t, dir, rotated)

	main := filepath.Join(dir, "main.tf")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	const streams = `streams     = ["tickets", "ticket_interactions", "chats"]`
	if !strings.Contains(string(b), streams) {
		t.Fatalf("examples/demo/main.tf no longer has %s: update this test with the guide", streams)
	}
	more := strings.Replace(string(b), streams, `streams     = ["tickets", "ticket_interactions", "chats", "contacts"]`, 1)
	if err := os.WriteFile(main, []byte(more), 0o600); err != nil {
		t.Fatal(err)
	}
	actions = e.plannedActions(t, dir, rotated)
	expectActions(t, actions, demoConnector, "update")
	expectActions(t, actions, demoTrigger, "delete", "create")
	e.run(t, dir, rotated, "apply", "-auto-approve", "-input=false", "tfplan")
	if runs() != 2 {
		t.Errorf("a new stream did not run the job again: %d executions, want 2", runs())
	}
	e.expectConverged(t, dir, rotated)
	e.run(t, dir, rotated, "destroy", "-auto-approve", "-input=false")
}
