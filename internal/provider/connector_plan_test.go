package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The tests of this file check that plans are stable: a value that means
// the same thing (a UUID in another letter case, streams in another order)
// plans nothing, and a workspace known only at apply plans the replacement
// that one apply carries out.

// TestAccProvider_workspaceInAnotherCase: resources made with the provider's
// workspace in lower case plan nothing when it is given in upper case, in
// the provider or in the resources; neither the connector nor the trigger
// is replaced, so the job does not run again.
func TestAccProvider_workspaceInAnotherCase(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond, Keys: acctest.LetteredWorkspace})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	upper := e.UpperWorkspace(t)
	name := acctest.Name("case")
	resources := func(ws string) string {
		args := acctest.NewConnectorArgs(name)
		trigger := fmt.Sprintf("resource \"dataintegration_job_trigger\" \"test\" {\n  job_id = %q\n}\n", jobs[0])
		if ws != "" {
			args = args.With("workspace_id", fmt.Sprintf("%q", ws))
			trigger = fmt.Sprintf("resource \"dataintegration_job_trigger\" \"test\" {\n  job_id       = %q\n  workspace_id = %q\n}\n", jobs[0], ws)
		}
		return args.HCL() + trigger
	}
	unchanged := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	once := e.ExpectExecutions(jobs[0], sandbox.Execution{})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{Config: e.ProviderConfig() + resources(""), Check: once},
			{Config: e.ProviderWithWorkspace(upper) + resources(""), ConfigPlanChecks: unchanged, Check: once},
			{Config: e.ProviderConfig() + resources(upper), ConfigPlanChecks: unchanged, Check: once},
			{
				Config:           e.ProviderWithWorkspace(upper) + resources(upper),
				ConfigPlanChecks: unchanged,
				ConfigStateChecks: []statecheck.StateCheck{
					// The state keeps the form it was made with.
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.WorkspaceID)),
					statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.WorkspaceID)),
				},
				Check: once,
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

// TestAccResources_unknownWorkspaceReplaces moves a connector and a trigger
// to a workspace known only at apply: the plan shows both replaced, and one
// apply moves them.
func TestAccResources_unknownWorkspaceReplaces(t *testing.T) {
	second := acctest.SecondWorkspace
	e := acctest.TwoWorkspaces(t, sandbox.Config{Jobs: 0, RunDuration: time.Millisecond}, "bind the API key to a second workspace and add a job to both")
	// The same job in both workspaces, so that only the workspace changes.
	job := sandbox.Job{ID: "33333333-3333-4333-8333-333333333333", Name: "shared", IsActive: true}
	for _, ws := range []string{e.WorkspaceID, second} {
		if err := e.Sandbox.AddJobs(ws, job); err != nil {
			t.Fatal(err)
		}
	}
	cfg := e.ProviderConfig() + `
variable "workspace" {
  type = string
}
resource "terraform_data" "ws" {
  input = var.workspace
}
resource "dataintegration_job_trigger" "test" {
  workspace_id = terraform_data.ws.output
  job_id       = "` + job.ID + `"
}
` + acctest.NewConnectorArgs(acctest.Name("unknown workspace")).With("workspace_id", "terraform_data.ws.output").HCL()
	var first, moved string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{
				Config:          cfg,
				ConfigVariables: config.Variables{"workspace": config.StringVariable(e.WorkspaceID)},
				Check:           acctest.CaptureID(&first),
			},
			{
				Config:          cfg,
				ConfigVariables: config.Variables{"workspace": config.StringVariable(second)},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectUnknownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CaptureID(&moved),
					e.ExpectMoved(&first, &moved, second),
					func(*terraform.State) error {
						if n := len(e.Sandbox.Executions(second, job.ID)); n != 1 {
							return fmt.Errorf("the job ran %d times in workspace %s, want once", n, second)
						}
						return nil
					},
				),
			},
		},
	})
}

// TestAccConnector_streamsInAnotherOrder: the same streams in another order,
// in the configuration or in the service's answer, plan nothing.
func TestAccConnector_streamsInAnotherOrder(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	args := acctest.NewConnectorArgs(acctest.Name("order"))
	ordered := func(streams string) string { return e.ProviderConfig() + args.With("streams", streams).HCL() }
	stored := e.ExpectStored(t, func(v sandbox.ConnectorView) error {
		if !slices.Equal(v.Streams, []string{"tickets", "chats", "events"}) {
			return fmt.Errorf("the service holds streams %q, want them as first sent", v.Streams)
		}
		return nil
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{Config: ordered(`["tickets", "chats", "events"]`), Check: stored},
			{
				Config:           ordered(`["chats", "events", "tickets"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            stored,
			},
			{
				// Another change still leaves the streams alone.
				Config: e.ProviderConfig() + args.With("streams", `["events", "tickets", "chats"]`, "agent_email", `"desk@acme.com"`).HCL(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("streams"), acctest.StringsExact("tickets", "chats", "events")),
				}},
				Check: stored,
			},
		},
	})
}

// TestAccConnector_importStreamsInAnotherOrder imports a connector whose
// service lists its streams in another order than the configuration: the
// streams are no change.
func TestAccConnector_importStreamsInAnotherOrder(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	name := acctest.Name("import order")
	made := e.MakeConnector(t, name, "tickets", "chats")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + acctest.ImportBlock(acctest.ConnectorAddress, e.WorkspaceID+"/"+made.ID) + acctest.NewConnectorArgs(name).With("streams", `["chats", "tickets"]`).HCL(),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					// The token's update only: the streams stay as the service holds them.
					plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("streams"), acctest.StringsExact("tickets", "chats")),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: e.ExpectStored(t, acctest.StoredToken("platform-token-1", 2)),
		}},
	})
}

// TestAccConnector_importBareIDWithoutWorkspace: a bare connector ID needs
// the provider's workspace_id; without one, the error says to import by
// <workspace_id>/<connector_id>, since the resource's own workspace_id is
// not known at import.
func TestAccConnector_importBareIDWithoutWorkspace(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	t.Setenv(EnvWorkspaceID, "")
	made := e.MakeConnector(t, acctest.Name("bare import"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderWithoutWorkspace() +
				acctest.NewConnectorArgs("bare").With("workspace_id", fmt.Sprintf("%q", e.WorkspaceID)).HCL(),
			ResourceName:  acctest.ConnectorAddress,
			ImportState:   true,
			ImportStateId: made.ID,
			ExpectError: acctest.Phrases("Missing Workspace", fmt.Sprintf("The import ID %q names no workspace", made.ID),
				"Import by <workspace_id>/"+made.ID+" instead", "with the ID of the workspace that holds the connector"),
		}},
	})
}

// TestWholeNumbersStayNumbers: max_retries and token_wo_version are Number
// attributes, so that a value such as 1.5 reaches their validator; to
// Terraform they are the number they always were, so no state or
// configuration changes.
func TestWholeNumbersStayNumbers(t *testing.T) {
	resp := serveProto(t).Schemas
	for where, b := range map[string]*tfprotov6.SchemaBlock{
		"provider":  resp.Provider.Block,
		"connector": resp.ResourceSchemas["dataintegration_customer_service_connector"].Block,
	} {
		for _, a := range b.Attributes {
			if (a.Name == "max_retries" || a.Name == "token_wo_version") && !a.Type.Is(tftypes.Number) {
				t.Errorf("%s: %s is a %s, want a number", where, a.Name, a.Type)
			}
		}
	}
}

// TestAccConnector_tokenLeftOut: a connector that exists may leave both
// token attributes out; the service keeps its token, and no token is sent.
func TestAccConnector_tokenLeftOut(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	args := acctest.NewConnectorArgs(acctest.Name("no token"))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{Config: e.ProviderConfig() + args.HCL(), Check: e.ExpectStored(t, acctest.StoredToken("platform-token-1", 1))},
			{
				Config: e.ProviderConfig() + args.With("token", "").HCL(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("token"), knownvalue.Null())},
				Check:             e.ExpectStored(t, acctest.StoredToken("platform-token-1", 1)),
			},
		},
	})
}
