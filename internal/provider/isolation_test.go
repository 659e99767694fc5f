package provider

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccIsolation_otherWorkspace: a key bound to one workspace can neither
// read nor change another's jobs or connectors. Each attempt fails with
// "Access Denied", naming the workspace, and the other workspace is left as
// it was.
func TestAccIsolation_otherWorkspace(t *testing.T) {
	const other, otherKey = "33333333-3333-4333-8333-333333333333", "key-of-the-other-workspace"
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 8, Keys: []sandbox.KeyBinding{
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: sandbox.DefaultWorkspaceID},
		{APIKey: otherKey, WorkspaceID: other},
	}})
	e.RequireSandbox(t, "bind a second key to a second workspace")

	// The other workspace's own key makes a connector there.
	theirs, err := client.New(client.Config{BaseURL: e.BaseURL, APIKey: otherKey, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	name := acctest.Name("theirs")
	c, err := theirs.CreateConnector(context.Background(), other, client.ConnectorSpec{
		Name: name, URL: "https://theirs.example.com", Token: "their-token", AgentEmail: "agent@theirs.com",
		Streams: []string{"tickets"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var job string
	for _, j := range e.Sandbox.Jobs(other) {
		if j.IsActive {
			job = j.ID
			break
		}
	}
	before := e.Sandbox.Stats().ByRoute

	denied := func(hcl string) resource.TestStep {
		return resource.TestStep{
			Config:      e.ProviderConfig() + hcl,
			ExpectError: acctest.Phrases("Access Denied", "The API key has no access to workspace "+other, "HTTP 403"),
		}
	}
	ws := strconv.Quote(other)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			denied(fmt.Sprintf(`data "dataintegration_jobs" "test" { workspace_id = %s }`, ws)),
			denied(fmt.Sprintf(`data "dataintegration_job" "test" {
  workspace_id = %s
  id           = %q
}`, ws, job)),
			denied(fmt.Sprintf(`data "dataintegration_customer_service_connector" "test" {
  workspace_id = %s
  id           = %q
}`, ws, c.ID)),
			denied(acctest.NewConnectorArgs(acctest.Name("intruder")).With("workspace_id", ws).HCL()),
			denied(fmt.Sprintf(`resource "dataintegration_job_trigger" "test" {
  workspace_id = %s
  job_id       = %q
}`, ws, job)),
			{
				Config:        e.ProviderConfig() + acctest.NewConnectorArgs(name).HCL(),
				ResourceName:  acctest.ConnectorAddress,
				ImportState:   true,
				ImportStateId: other + "/" + c.ID,
				ExpectError:   regexp.MustCompile(`Access Denied`),
			},
		},
	})

	after := e.Sandbox.Stats()
	refused := after.ByRoute
	if ids := e.Sandbox.ConnectorIDs(other); len(ids) != 1 || ids[0] != c.ID {
		t.Errorf("the other workspace holds connectors %v, want only its own %s", ids, c.ID)
	}
	if v, _ := e.Sandbox.Connector(other, c.ID); v.Name != name || v.Token != "their-token" {
		t.Errorf("the other workspace's connector changed: %+v", v)
	}
	for _, j := range e.Sandbox.Jobs(other) {
		if n := len(e.Sandbox.Executions(other, j.ID)); n != 0 {
			t.Errorf("job %s of the other workspace has %d executions", j.ID, n)
		}
	}
	var n int64
	for route, count := range refused {
		n += count - before[route]
	}
	t.Logf("%d requests to the other workspace, each refused with 403; nothing changed there", n)
}
