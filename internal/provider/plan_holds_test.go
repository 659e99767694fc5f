package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

const routeDeleteConnector = "DELETE " + acctest.RouteConnectors + "{_id}/"

// connectorAt is a connector block of the given address name.
func connectorAt(label string, args acctest.ConnectorArgs) string {
	return strings.Replace(args.HCL(), `"test"`, strconv.Quote(label), 1)
}

// changesNothing checks, from the sandbox, that since before no connector was
// created or deleted and that each of want is still in its workspace.
func changesNothing(e *acctest.Env, before *sandbox.Stats, want map[string]*string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		after := e.Sandbox.Stats()
		for _, route := range []string{routeDeleteConnector, "POST " + acctest.RouteConnectors} {
			if n := after.ByRoute[route] - before.ByRoute[route]; n != 0 {
				return fmt.Errorf("%d requests %s, want none", n, route)
			}
		}
		for id, ws := range want {
			if _, ok := e.Sandbox.Connector(*ws, id); !ok {
				return fmt.Errorf("connector %s is no longer in workspace %s", id, *ws)
			}
		}
		return nil
	}
}

// TestAccConnector_moveIntoTakenName: moving a connector into a workspace
// that holds its name fails the plan, which deletes nothing; before, the
// apply deleted the connector, then failed to create it.
func TestAccConnector_moveIntoTakenName(t *testing.T) {
	second := acctest.SecondWorkspace
	e := acctest.TwoWorkspaces(t, sandbox.Config{Jobs: 0}, "bind the API key to a second workspace and count the deletes")
	name := acctest.Name("move taken")
	args := acctest.NewConnectorArgs(name)
	var first string
	var there *client.Connector
	var before sandbox.Stats
	home := e.WorkspaceID
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.ProviderConfig() + args.HCL(), Check: acctest.CaptureID(&first)},
			{
				PreConfig: func() {
					var err error
					c := e.Client(t)
					if there, err = c.CreateConnector(context.Background(), second, client.ConnectorSpec{
						Name: name, URL: "https://other.example-helpdesk.com", Token: "outside-token", AgentEmail: "agent@acme.com",
					}); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { _ = c.DeleteConnector(context.Background(), second, there.ID) })
					before = e.Sandbox.Stats()
				},
				Config:      e.ProviderConfig() + args.With("workspace_id", strconv.Quote(second)).HCL(),
				ExpectError: acctest.Phrases("Connector Name Taken", "Workspace "+second+" already holds a connector named", "Nothing was changed", "import {"),
			},
			{
				Config: e.ProviderConfig() + args.HCL(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(s *terraform.State) error {
					return changesNothing(e, &before, map[string]*string{first: &home, there.ID: &second})(s)
				},
			},
		},
	})
}

// TestAccConnector_twoResourcesOfOneName: two resources of one name and
// workspace fail the plan; before, the apply created one and failed the other.
func TestAccConnector_twoResourcesOfOneName(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the connectors")
	name := acctest.Name("one name")
	args := acctest.NewConnectorArgs(name)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      e.ProviderConfig() + connectorAt("a", args) + connectorAt("b", args.With("streams", `["tickets"]`)),
			ExpectError: acctest.Phrases("Connector Name Taken", fmt.Sprintf("Two resources of this configuration create a connector named %q", name)),
		}},
		CheckDestroy: func(*terraform.State) error {
			if ids := e.Sandbox.ConnectorIDs(e.WorkspaceID); len(ids) != 0 {
				return fmt.Errorf("the plan that failed made connectors %v", ids)
			}
			return nil
		},
	})
}

// TestAccConnector_twoImportsOfOneConnector: two import blocks of one
// connector, one by ID and one by workspace and ID, fail the plan.
func TestAccConnector_twoImportsOfOneConnector(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	made := e.MakeConnector(t, acctest.Name("imported twice"))
	args := acctest.NewConnectorArgs(made.Name).With("token", "")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + connectorAt("a", args) + connectorAt("b", args) +
				acctest.ImportBlock(acctest.ConnectorType+".a", made.ID) + acctest.ImportBlock(acctest.ConnectorType+".b", e.WorkspaceID+"/"+made.ID),
			ExpectError: acctest.Phrases("Connector in Two Addresses", "Connector "+made.ID, "terraform state rm", "removed block"),
		}},
	})
}

// TestAccConnector_removingOneOfTwoAddresses: a connector imported into a
// second address by the CLI (which reads only that address) is caught by the
// next plan, refreshing or not: removing either address would delete it.
func TestAccConnector_removingOneOfTwoAddresses(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the deletes")
	made := e.MakeConnector(t, acctest.Name("two addresses"))
	args := acctest.NewConnectorArgs(made.Name).With("token", "")
	vars := e.ServiceEnv()
	dir := acctest.ConfigDir(t, connectorAt("a", args)+acctest.ImportBlock(acctest.ConnectorType+".a", made.ID))
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	write := func(hcl string) {
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(connectorAt("a", args) + connectorAt("b", args))
	eng.Run(t, dir, vars, "import", "-input=false", "-no-color", acctest.ConnectorType+".b", e.WorkspaceID+"/"+made.ID)
	write(connectorAt("a", args))
	before := e.Sandbox.Stats()
	for _, args := range [][]string{
		{"apply", "-auto-approve", "-input=false", "-no-color"},
		{"apply", "-auto-approve", "-input=false", "-no-color", "-refresh=false"},
	} {
		out, err := eng.Try(dir, vars, args...)
		if err == nil || !acctest.Phrases("Connector in Two Addresses", "Connector "+made.ID).MatchString(err.Error()) {
			t.Errorf("%v: want the plan to fail with Connector in Two Addresses: %v\n%s", args, err, out)
		}
	}
	home := e.WorkspaceID
	if err := changesNothing(e, &before, map[string]*string{made.ID: &home})(nil); err != nil {
		t.Error(err)
	}
	// The way out the error gives works.
	eng.Run(t, dir, vars, "state", "rm", acctest.ConnectorType+".b")
	eng.ExpectConverged(t, dir, vars)
}

// TestAccConnector_legitimateSecondPlans: a connector replaced in its own
// workspace, moved to another address, or read by the data source beside
// its resource is neither a name taken nor held twice.
func TestAccConnector_legitimateSecondPlans(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	name := acctest.Name("legitimate")
	args := acctest.NewConnectorArgs(name)
	both := connectorAt("a", args) + connectorAt("b", acctest.NewConnectorArgs(name+" b")) + `
data "dataintegration_customer_service_connector" "a" {
  id = dataintegration_customer_service_connector.a.id
}
`
	moved := strings.ReplaceAll(strings.ReplaceAll(both, `"a"`, `"c"`), "connector.a.id", "connector.c.id") +
		"moved {\n  from = " + acctest.ConnectorType + ".a\n  to   = " + acctest.ConnectorType + ".c\n}\n"
	var first string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{Config: e.ProviderConfig() + both, Check: resource.TestCheckResourceAttrWith(acctest.ConnectorType+".a", "id", func(v string) error { first = v; return nil })},
			{
				Config: e.ProviderConfig() + both,
				Taint:  []string{acctest.ConnectorType + ".a"},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorType+".a", plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: resource.TestCheckResourceAttrWith(acctest.ConnectorType+".a", "id", func(v string) error {
					if v == first {
						return fmt.Errorf("the tainted connector kept its ID %s", v)
					}
					first = v
					return nil
				}),
			},
			{
				Config: e.ProviderConfig() + moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorType+".c", plancheck.ResourceActionNoop)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ConnectorType+".c", tfjsonpath.New("name"), knownvalue.StringExact(name)),
				},
			},
		},
	})
}

// TestAccConnector_unknownWorkspaceKept: a workspace_id known only at apply
// updates the connector in place, with a warning, rather than replace it:
// the same workspace keeps it and its ID; another fails the apply before the
// connector changes.
func TestAccConnector_unknownWorkspaceKept(t *testing.T) {
	second := acctest.SecondWorkspace
	e := acctest.TwoWorkspaces(t, sandbox.Config{Jobs: 0}, "bind the API key to a second workspace and count the deletes")
	cfg := e.ProviderConfig() + `
variable "workspace" {
  type = string
}
variable "unrelated" {
  type = string
}
resource "terraform_data" "ws" {
  input = { workspace = var.workspace, unrelated = var.unrelated }
}
` + acctest.NewConnectorArgs(acctest.Name("unknown workspace")).With("workspace_id", "terraform_data.ws.output.workspace").HCL()
	vars := func(ws, unrelated string) config.Variables {
		return config.Variables{"workspace": config.StringVariable(ws), "unrelated": config.StringVariable(unrelated)}
	}
	home := e.WorkspaceID
	var first string
	var before sandbox.Stats
	keptFirst := func(s *terraform.State) error {
		return changesNothing(e, &before, map[string]*string{first: &home})(s)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{Config: cfg, ConfigVariables: vars(home, "1"), Check: acctest.CaptureID(&first)},
			{
				PreConfig:       func() { before = e.Sandbox.Stats() },
				Config:          cfg,
				ConfigVariables: vars(home, "2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(home)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(keptFirst, resource.TestCheckResourceAttrPtr(acctest.ConnectorAddress, "id", &first)),
			},
			{
				PreConfig:       func() { before = e.Sandbox.Stats() },
				Config:          cfg,
				ConfigVariables: vars(second, "3"),
				ExpectError:     acctest.Phrases("Connector Move Not Planned", "workspace_id is "+second, "Nothing was changed"),
			},
			{
				Config:          cfg,
				ConfigVariables: vars(home, "3"),
				Check:           resource.ComposeAggregateTestCheckFunc(keptFirst, resource.TestCheckResourceAttrPtr(acctest.ConnectorAddress, "id", &first)),
			},
		},
	})
}

// TestPlannedNamed_byNameUntilTwiceThePages: a walk's plans list their names
// until its creates reach twice the pages of the whole list, which then
// answers the rest of the walk.
func TestPlannedNamed_byNameUntilTwiceThePages(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t)
	ws := g.data.workspaceID
	names := make([]string, 250)
	for i := range names {
		names[i] = fmt.Sprintf("held %d", i)
	}
	if err := g.srv.AddConnectors(ws, names...); err != nil {
		t.Fatal(err)
	}
	g.data.checks.counted(ws, len(names))
	for i := range 8 {
		name := fmt.Sprintf("held %d", i)
		g.data.holds.create(ws, name)
		found, err := g.data.plannedNamed(t.Context(), ws, name)
		if err != nil || len(found) != 1 {
			t.Fatalf("plan %d: found %v (%v), want the connector named %q", i, found, err, name)
		}
	}
	// Three pages: five lists by name, then the whole list's three pages.
	if n, byName := g.lists.Load(), g.byName.Load(); n != 8 || byName != 5 {
		t.Errorf("8 plans sent %d lists, %d of them by name; want 8, 5", n, byName)
	}
}
