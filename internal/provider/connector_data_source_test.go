package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func TestAccConnectorDataSource_byIDAndByName(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	cfg := e.ProviderConfig() + acctest.NewConnectorArgs(acctest.Name("data")).With("streams", `["tickets", "chats"]`).HCL() + `
data "dataintegration_customer_service_connector" "by_id" {
  id = dataintegration_customer_service_connector.test.id
}

data "dataintegration_customer_service_connector" "by_name" {
  name       = dataintegration_customer_service_connector.test.name
  depends_on = [dataintegration_customer_service_connector.test]
}
`
	var checks []statecheck.StateCheck
	for _, ds := range []string{"data.dataintegration_customer_service_connector.by_id", "data.dataintegration_customer_service_connector.by_name"} {
		for _, attr := range []string{"id", "workspace_id", "name", "url", "agent_email", "streams", "connector_name", "created_at", "updated_at"} {
			checks = append(checks, statecheck.CompareValuePairs(acctest.ConnectorAddress, tfjsonpath.New(attr), ds, tfjsonpath.New(attr), compare.ValuesSame()))
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{{
			Config:            cfg,
			ConfigStateChecks: checks,
			Check:             resource.TestCheckNoResourceAttr("data.dataintegration_customer_service_connector.by_id", "token"),
		}},
	})
}

func TestAccConnectorDataSource_failures(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	twin := acctest.Name("twin")
	c := e.Client(t)
	for range 2 {
		made, err := c.CreateConnector(context.Background(), e.WorkspaceID, client.ConnectorSpec{
			Name: twin, URL: "https://acme.example-helpdesk.com", Token: "platform-token-1", AgentEmail: "agent@acme.com",
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.DeleteConnector(context.Background(), e.WorkspaceID, made.ID) })
	}
	const missingID = "0f0f0f0f-0000-4000-8000-00000000abcd"
	ds := func(body string) string {
		return e.ProviderConfig() + "data \"dataintegration_customer_service_connector\" \"test\" {\n" + body + "\n}\n"
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      ds(`name = "no connector has this name"`),
				ExpectError: acctest.Phrases("Connector Not Found", `No customer-service connector is named "no connector has this name" in workspace `+e.WorkspaceID),
			},
			{
				Config:      ds(fmt.Sprintf("id = %q", missingID)),
				ExpectError: acctest.Phrases("Connector Not Found", "No connector has the ID "+missingID+" in workspace "+e.WorkspaceID),
			},
			{
				Config:      ds(fmt.Sprintf("name = %q", twin)),
				ExpectError: acctest.Phrases("Several Connectors Match", fmt.Sprintf("2 customer-service connectors are named %q", twin), "look the connector up by id instead"),
			},
			{
				Config:      ds(""),
				ExpectError: acctest.Phrases("Missing Attribute Configuration", "Exactly one of these attributes must be configured: [id,name]"),
			},
			{
				Config:      ds(fmt.Sprintf("id = %q\nname = %q", missingID, twin)),
				ExpectError: acctest.Phrases("Invalid Attribute Combination", "Exactly one of these attributes must be configured: [id,name]"),
			},
			{
				Config:      ds(`id = "support-desk"`),
				ExpectError: acctest.Phrases("Invalid Attribute Value", `"support-desk" is not a UUID`),
			},
			{
				Config:      ds(`name = "  "`),
				ExpectError: acctest.Phrases("Invalid Attribute Value", "name: the value is blank"),
			},
		},
	})
}

// TestAccConnectorDataSource_upperCaseID finds a connector by its ID in upper
// case.
func TestAccConnectorDataSource_upperCaseID(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	name := acctest.Name("upper lookup")
	made := e.MakeConnector(t, name)
	upper := strings.ToUpper(made.ID)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + fmt.Sprintf("data \"dataintegration_customer_service_connector\" \"test\" {\n  id = %q\n}\n", upper),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.dataintegration_customer_service_connector.test", tfjsonpath.New("id"), knownvalue.StringExact(upper)),
				statecheck.ExpectKnownValue("data.dataintegration_customer_service_connector.test", tfjsonpath.New("name"), knownvalue.StringExact(name)),
			},
		}},
	})
}
