package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

const connectorsType = "dataintegration_customer_service_connectors"

// connectorsHCL is a dataintegration_customer_service_connectors block
// named name, with body inside.
func connectorsHCL(name, body string) string {
	return fmt.Sprintf("data %q %q {\n%s\n}\n", connectorsType, name, body)
}

// expectConnectors checks the connectors of the data source named name: cs,
// in that order, each with every attribute, in workspace ws.
func expectConnectors(name, ws string, cs ...client.Connector) statecheck.StateCheck {
	objects := make([]knownvalue.Check, len(cs))
	for i, c := range cs {
		objects[i] = knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id":             knownvalue.StringExact(c.ID),
			"workspace_id":   knownvalue.StringExact(ws),
			"name":           knownvalue.StringExact(c.Name),
			"url":            knownvalue.StringExact(c.Configuration.URL),
			"agent_email":    knownvalue.StringExact(c.Configuration.AgentEmail),
			"streams":        acctest.StringsExact(c.Streams...),
			"connector_name": knownvalue.StringExact(client.ConnectorKindCustomerService),
			"created_at":     knownvalue.StringExact(c.CreatedAt),
			"updated_at":     knownvalue.StringExact(c.UpdatedAt),
		})
	}
	return statecheck.ExpectKnownValue("data."+connectorsType+"."+name, tfjsonpath.New("connectors"), knownvalue.ListExact(objects))
}

// TestAccConnectorsDataSource_list lists connectors made outside Terraform:
// every one in the service's order with every attribute, and one by its
// exact name, from one request each at most.
func TestAccConnectorsDataSource_list(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "have a workspace of the test's own: the data source lists every connector in it")
	names := []string{acctest.Name("list a"), acctest.Name("list b"), acctest.Name("list c")}
	e.MakeConnector(t, names[0], "tickets", "chats")
	b := e.MakeConnector(t, names[1])
	e.MakeConnector(t, names[2], "chats")
	all, err := e.Client(t).ListConnectors(context.Background(), e.WorkspaceID, client.ConnectorFilter{})
	if err != nil || len(all) != 3 {
		t.Fatalf("the workspace holds %+v (%v), want the three connectors made", all, err)
	}
	// b's place in the service's order, which need not be the creation order.
	i := slices.IndexFunc(all, func(c client.Connector) bool { return c.ID == b.ID })
	if i < 0 {
		t.Fatalf("connector %s is not listed", b.ID)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + connectorsHCL("all", "") + connectorsHCL("b", fmt.Sprintf("name = %q", names[1])),
			ConfigStateChecks: []statecheck.StateCheck{
				expectConnectors("all", e.WorkspaceID, all...),
				expectConnectors("b", e.WorkspaceID, all[i]),
				statecheck.ExpectKnownValue("data."+connectorsType+".all", tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.WorkspaceID)),
				statecheck.ExpectKnownValue("data."+connectorsType+".b", tfjsonpath.New("name"), knownvalue.StringExact(names[1])),
			},
			// The test's own list, then, at the apply's plan, the
			// workspace's list, which the lookup by name shares when it is
			// under way, and else a list of the name.
			Check: e.ExpectRouteCountIn("GET "+acctest.RouteConnectors, 2, 3),
		}},
	})
}

// TestAccConnectorsDataSource_exactName keeps only the connectors named
// exactly as asked, letter case included, however loosely the service's
// filters match.
func TestAccConnectorsDataSource_exactName(t *testing.T) {
	for _, filters := range []string{sandbox.FiltersExact, sandbox.FiltersPartial, sandbox.FiltersIgnored} {
		t.Run(filters, func(t *testing.T) {
			e := acctest.NewEnv(t, sandbox.Config{Jobs: 0, Variant: sandbox.Variant{Filters: filters}})
			e.RequireSandbox(t, "set how the service's filters match")
			name := acctest.Name("Support EU")
			e.MakeConnector(t, name+" bis")
			want := e.MakeConnector(t, name, "tickets")
			e.MakeConnector(t, strings.ToUpper(name))
			e.MakeConnector(t, acctest.Name("other desk"))
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: e.ProviderConfig() + connectorsHCL("test", fmt.Sprintf("name = %q", name)) +
						connectorsHCL("none", fmt.Sprintf("name = %q", name[:len(name)-1])),
					ConfigStateChecks: []statecheck.StateCheck{
						expectConnectors("test", e.WorkspaceID, *want),
						expectConnectors("none", e.WorkspaceID),
					},
				}},
			})
		})
	}
}

// TestAccConnectorsDataSource_workspaces: a workspace with no connector
// gives an empty list, not a null one; workspace_id lists another
// workspace than the provider's, and that one alone.
func TestAccConnectorsDataSource_workspaces(t *testing.T) {
	e := acctest.TwoWorkspaces(t, sandbox.Config{Jobs: 0}, "make a connector in a second workspace that the key reaches")
	theirs, err := e.Client(t).CreateConnector(context.Background(), acctest.SecondWorkspace, client.ConnectorSpec{
		Name: acctest.Name("theirs"), URL: "https://other.example-helpdesk.com", Token: "other-token", AgentEmail: "agent@other.com", Streams: []string{"chats"},
	})
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + connectorsHCL("empty", "") +
				connectorsHCL("second", fmt.Sprintf("workspace_id = %q", acctest.SecondWorkspace)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data."+connectorsType+".empty", tfjsonpath.New("connectors"), knownvalue.ListSizeExact(0)),
				expectConnectors("second", acctest.SecondWorkspace, *theirs),
				statecheck.ExpectKnownValue("data."+connectorsType+".second", tfjsonpath.New("workspace_id"), knownvalue.StringExact(acctest.SecondWorkspace)),
			},
		}},
	})
}

// TestAccConnectorsDataSource_refused: a blank name is refused before any
// request; a workspace the key cannot reach, and a request that fails, are
// errors with the service's status and message.
func TestAccConnectorsDataSource_refused(t *testing.T) {
	const other, otherKey = "33333333-3333-4333-8333-333333333333", "key-of-the-other-workspace"
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0, Keys: []sandbox.KeyBinding{
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: sandbox.DefaultWorkspaceID},
		{APIKey: otherKey, WorkspaceID: other},
	}})
	e.RequireSandbox(t, "bind a second key to a second workspace and fail requests")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      e.ProviderConfig() + connectorsHCL("test", `name = "  "`),
				ExpectError: acctest.Phrases("Invalid Attribute Value", "name: the value is blank"),
			},
			{
				Config:      e.ProviderConfig() + connectorsHCL("test", `workspace_id = "support"`),
				ExpectError: acctest.Phrases("Invalid Attribute Value", "Allowed: a UUID"),
			},
			{
				PreConfig:   func() { e.ExpectNoRequests(t) },
				Config:      e.ProviderConfig() + connectorsHCL("test", fmt.Sprintf("workspace_id = %q", other)),
				ExpectError: acctest.Phrases("Access Denied", "no access to workspace "+other, "HTTP 403"),
			},
			{
				PreConfig: func() {
					if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{500}, Methods: []string{"GET"}}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      e.ProviderConfig("max_retries = 0") + connectorsHCL("test", ""),
				ExpectError: acctest.Phrases("Unable to List Connectors", "The service answered HTTP 500 to GET", "/connectors/"),
			},
		},
	})
}

// TestAccConnectorsDataSource_adopt adopts connectors made outside
// Terraform with `import` blocks whose for_each is the data source, as on
// engines without `terraform query`: the resource blocks hold the
// configuration, the apply imports the connectors (and sends the token,
// which the service never returns), the plan after it is empty, and a
// connector changed outside Terraform afterwards is planned back to the
// configuration. A connector the configuration does not hold is left
// alone. The engine is run by hand: terraform-plugin-testing cannot read a
// state whose instances have for_each keys.
func TestAccConnectorsDataSource_adopt(t *testing.T) {
	t.Parallel()
	acctest.RequireCapability(t, acctest.CapImportForEach)
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "have a workspace of the test's own: the configuration imports from every connector in it")
	names := []string{acctest.Name("Support EU"), acctest.Name("Support US")}
	made := []*client.Connector{e.MakeConnector(t, names[0], "tickets", "chats"), e.MakeConnector(t, names[1], "chats")}
	other := e.MakeConnector(t, acctest.Name("not adopted"))
	address := func(i int) string { return fmt.Sprintf("%s.desk[%q]", acctest.ConnectorType, names[i]) }

	config := e.ProviderConfig() + fmt.Sprintf(`
locals {
  desks = {
    %[1]q = ["tickets", "chats"]
    %[2]q = ["chats"]
  }
}

data "dataintegration_customer_service_connectors" "all" {}

import {
  for_each = {
    for c in data.dataintegration_customer_service_connectors.all.connectors : c.name => c
    if contains(keys(local.desks), c.name)
  }
  to = dataintegration_customer_service_connector.desk[each.key]
  id = "${each.value.workspace_id}/${each.value.id}"
}

resource "dataintegration_customer_service_connector" "desk" {
  for_each = local.desks

  name        = each.key
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  streams     = each.value
  token       = "platform-token-1"
}
`, names[0], names[1])

	dir := acctest.ConfigDir(t, config)
	plan := func(wantImports int, want ...string) {
		t.Helper()
		actions, imports := eng.Plan(t, dir, nil)
		for i := range names {
			acctest.ExpectActions(t, actions, address(i), want[i])
		}
		if len(actions) != len(names) || len(imports) != wantImports {
			t.Errorf("the plan has actions %v and imports %v, want %d imports among the connectors of the configuration", actions, imports, wantImports)
		}
	}

	// Imported, then updated once each: the state holds no token.
	plan(2, "update", "update")
	eng.Run(t, dir, nil, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, nil)
	show := eng.Run(t, dir, nil, "show", "-json")
	for i, c := range made {
		if got := acctest.StateResourceID(t, show, address(i)); got != c.ID {
			t.Errorf("%s holds connector %s, want %s", address(i), got, c.ID)
		}
	}
	if ids := e.Sandbox.ConnectorIDs(e.WorkspaceID); !acctest.SameIDs(ids, []string{made[0].ID, made[1].ID, other.ID}) {
		t.Errorf("the workspace holds %v after the adoption, want the same three connectors", ids)
	}

	// Changed outside Terraform: the configuration, not the service, wins.
	changed := "https://changed.example-helpdesk.com"
	if _, err := e.Client(t).UpdateConnector(context.Background(), e.WorkspaceID, made[1].ID, client.ConnectorUpdate{URL: &changed}); err != nil {
		t.Fatal(err)
	}
	plan(0, "no-op", "update")
	eng.Run(t, dir, nil, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, nil)
	if v, _ := e.Sandbox.Connector(e.WorkspaceID, made[1].ID); v.URL != "https://acme.example-helpdesk.com" {
		t.Errorf("after the apply the sandbox holds %+v, want the configuration's url", v)
	}
}

// deferredReadsHCL reads the workspace's connectors during the apply,
// before and after a create of the same apply: the read before lists the
// workspace, the reads after must still find the new connector.
const deferredReadsHCL = `
resource "terraform_data" "first" {
  input = "go"
}

data "dataintegration_customer_service_connectors" "before" {
  depends_on = [terraform_data.first]
}

resource "dataintegration_customer_service_connector" "new" {
  name        = "made in this apply"
  url         = "https://acme.example.com"
  agent_email = "agent@acme.com"
  token       = "new-token"
  depends_on  = [data.dataintegration_customer_service_connectors.before]
}

data "dataintegration_customer_service_connectors" "after" {
  depends_on = [dataintegration_customer_service_connector.new]
}

data "dataintegration_customer_service_connector" "after" {
  id = dataintegration_customer_service_connector.new.id
}

output "before" {
  value = [for c in data.dataintegration_customer_service_connectors.before.connectors : c.name if c.name == "made in this apply"]
}

output "after" {
  value = [for c in data.dataintegration_customer_service_connectors.after.connectors : c.id if c.name == "made in this apply"]
}

output "after_by_id" {
  value = data.dataintegration_customer_service_connector.after.name
}

output "listed_after" {
  value = length(data.dataintegration_customer_service_connectors.after.connectors)
}
`

// TestAccConnectorsDataSource_readAfterCreateInOneApply: reads deferred to
// the apply see a create of that apply, though a read before the create
// listed the workspace in the same provider process.
func TestAccConnectorsDataSource_readAfterCreateInOneApply(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "have a workspace of the test's own, whose connectors it counts")
	madeOutside(t, e, 150)
	dir := acctest.ConfigDir(t, deferredReadsHCL)
	vars := e.ServiceEnv()
	lists := e.Sandbox.Stats().ByRoute["GET "+acctest.RouteConnectors]
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	out := eng.Outputs(t, dir)
	id := acctest.StateResourceID(t, eng.Run(t, dir, nil, "show", "-json"), "dataintegration_customer_service_connector.new")
	var before, after []string
	if json.Unmarshal(out["before"], &before) != nil || len(before) != 0 {
		t.Errorf("the read before the create found %s", out["before"])
	}
	if json.Unmarshal(out["after"], &after) != nil || !slices.Equal(after, []string{id}) {
		t.Errorf("the list read after the create found %s, want [%q]", out["after"], id)
	}
	if got := acctest.Unquote(t, out["after_by_id"]); got != "made in this apply" {
		t.Errorf("the read by ID after the create found %q", got)
	}
	if got := string(out["listed_after"]); got != "151" {
		t.Errorf("the list after the create holds %s connectors, want 151", got)
	}
	// The read before the create listed the workspace: without it, the test
	// would prove nothing, since an apply reads no resource.
	if n := e.Sandbox.Stats().ByRoute["GET "+acctest.RouteConnectors] - lists; n < 2*2 {
		t.Errorf("the apply listed %d pages, want the two lists of 2 pages at least", n)
	}
}
