package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

func TestAccConnector_lifecycle(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	name := acctest.Name("lifecycle")
	args := acctest.NewConnectorArgs(name)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	update := func(a acctest.ConnectorArgs, checks ...resource.TestCheckFunc) resource.TestStep {
		return resource.TestStep{
			Config: e.ProviderConfig() + a.HCL(),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(acctest.ConnectorAddress, tfjsonpath.New("id"))},
			Check:             resource.ComposeAggregateTestCheckFunc(checks...),
		}
	}
	var id string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{
				Config: e.ProviderConfig() + args.HCL(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionCreate),
						// Without streams, the plan shows every stream.
						plancheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("streams"), acctest.StringsExact(validate.CustomerServiceStreams...)),
						plancheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.WorkspaceID)),
						plancheck.ExpectSensitiveValue(acctest.ConnectorAddress, tfjsonpath.New("token")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(acctest.ConnectorAddress, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.WorkspaceID)),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("name"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("url"), knownvalue.StringExact("https://acme.example-helpdesk.com")),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("agent_email"), knownvalue.StringExact("agent@acme.com")),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("streams"), acctest.StringsExact(validate.CustomerServiceStreams...)),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("connector_name"), knownvalue.StringExact("customer_service")),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("created_at"), knownvalue.StringRegexp(acctest.TimestampRE)),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("updated_at"), knownvalue.StringRegexp(acctest.TimestampRE)),
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("token_wo_version"), knownvalue.Null()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CaptureID(&id),
					e.ExpectStored(t, acctest.StoredToken("platform-token-1", 1)),
				),
			},
			// Each attribute changes in place; the token is sent only when it changes.
			update(args.With("name", strconv.Quote(name+" renamed")),
				resource.TestCheckResourceAttr(acctest.ConnectorAddress, "name", name+" renamed"),
				e.ExpectStored(t, acctest.StoredToken("platform-token-1", 1))),
			update(args.With("name", strconv.Quote(name+" renamed"), "url", `"https://desk.example-helpdesk.com/"`),
				resource.TestCheckResourceAttr(acctest.ConnectorAddress, "url", "https://desk.example-helpdesk.com/")),
			update(args.With("name", strconv.Quote(name+" renamed"), "url", `"https://desk.example-helpdesk.com/"`, "agent_email", `"desk@acme.com"`),
				resource.TestCheckResourceAttr(acctest.ConnectorAddress, "agent_email", "desk@acme.com")),
			update(args.With("name", strconv.Quote(name+" renamed"), "url", `"https://desk.example-helpdesk.com/"`, "agent_email", `"desk@acme.com"`,
				"streams", `["tickets", "chats"]`),
				resource.TestCheckResourceAttr(acctest.ConnectorAddress, "streams.#", "2"),
				e.ExpectStored(t, func(v sandbox.ConnectorView) error {
					if !slices.Equal(v.Streams, []string{"tickets", "chats"}) {
						return fmt.Errorf("stored streams %q", v.Streams)
					}
					return acctest.StoredToken("platform-token-1", 1)(v)
				})),
			update(args.With("name", strconv.Quote(name+" renamed"), "url", `"https://desk.example-helpdesk.com/"`, "agent_email", `"desk@acme.com"`,
				"streams", `["tickets", "chats"]`, "token", `"platform-token-2"`),
				e.ExpectStored(t, acctest.StoredToken("platform-token-2", 2))),
			{
				ResourceName:            acctest.ConnectorAddress,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"token"},
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return e.WorkspaceID + "/" + id, nil },
			},
			{
				// The provider has a workspace_id: the connector's ID alone is enough.
				ResourceName:            acctest.ConnectorAddress,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"token"},
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return id, nil },
			},
			{
				ResourceName:  acctest.ConnectorAddress,
				ImportState:   true,
				ImportStateId: e.WorkspaceID + "/support-desk",
				ExpectError:   acctest.Phrases("Unexpected Format of ID", "Expected <workspace_id>/<connector_id>", `got "`+e.WorkspaceID+`/support-desk"`),
			},
		},
	})
}

func TestAccConnector_outOfBandChanges(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	cfg := e.ProviderConfig() + acctest.NewConnectorArgs(acctest.Name("drift")).With("streams", `["chats", "messages"]`).HCL()
	c := e.Client(t)
	ctx := context.Background()
	var id, recreated string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check:  acctest.CaptureID(&id),
			},
			{
				// Someone changes the streams through the API.
				PreConfig: func() {
					if _, err := c.UpdateConnector(ctx, e.WorkspaceID, id, client.ConnectorUpdate{Streams: []string{"tickets"}}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("streams"), acctest.StringsExact("chats", "messages")),
					},
				},
				Check: func(*terraform.State) error {
					got, err := c.GetConnector(ctx, e.WorkspaceID, id)
					if err != nil {
						return err
					}
					if !slices.Equal(got.Streams, []string{"chats", "messages"}) {
						return fmt.Errorf("after apply the service holds streams %q", got.Streams)
					}
					return nil
				},
			},
			{
				// Someone deletes the connector: it is planned for creation.
				PreConfig: func() {
					if err := c.DeleteConnector(ctx, e.WorkspaceID, id); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionCreate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CaptureID(&recreated),
					func(*terraform.State) error {
						if recreated == id {
							return fmt.Errorf("the connector kept the deleted ID %s", id)
						}
						_, err := c.GetConnector(ctx, e.WorkspaceID, recreated)
						return err
					},
				),
			},
		},
	})
}

// TestAccConnector_importBlockThenToken imports a connector made outside
// Terraform with an import block, with the token in the configuration: the
// plan updates it in place (sending the token once), never replaces it, and
// the next plan is empty. The service's IDs are the same in any letter
// case: imported by its IDs in upper case, the connector is not replaced
// either.
func TestAccConnector_importBlockThenToken(t *testing.T) {
	for _, ids := range []struct {
		name string
		form func(string) string
	}{
		{"IDs as the service gives them", func(s string) string { return s }},
		{"IDs in upper case", strings.ToUpper},
	} {
		t.Run(ids.name, func(t *testing.T) {
			e := acctest.NewEnv(t, sandbox.Config{Jobs: 0, Keys: acctest.LetteredWorkspace})
			name := acctest.Name("import")
			made := e.MakeConnector(t, name)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             e.ConnectorsGone(t),
				Steps: []resource.TestStep{{
					Config: e.ProviderConfig() + acctest.ImportBlock(acctest.ConnectorAddress, ids.form(e.WorkspaceID+"/"+made.ID)) + acctest.NewConnectorArgs(name).HCL(),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate)},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("id"), knownvalue.StringExact(made.ID)),
						statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("streams"), acctest.StringsExact(validate.CustomerServiceStreams...)),
					},
					Check: e.ExpectStored(t, acctest.StoredToken("platform-token-1", 2)),
				}},
			})
		})
	}
}

// noTrace fails when the JSON of a plan or state holds any of the secrets.
type noTrace struct{ secrets []string }

func (n noTrace) find(what string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	for _, s := range n.secrets {
		if strings.Contains(string(b), s) {
			return fmt.Errorf("the %s holds the secret %q", what, s)
		}
	}
	return nil
}

func (n noTrace) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = n.find("state", req.State)
}

func (n noTrace) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = n.find("plan", req.Plan)
}

func TestAccConnector_writeOnlyToken(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapWriteOnly)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	// The token comes from an ephemeral variable, as a user would pass it:
	// a literal would be kept in the configuration that a plan file holds.
	name := acctest.Name("write-only")
	cfg := func(version int) string {
		return e.ProviderConfig() + `
variable "platform_token" {
  type      = string
  sensitive = true
  ephemeral = true
}
` + acctest.NewConnectorArgs(name).With("token", "", "token_wo", "var.platform_token", "token_wo_version", strconv.Itoa(version)).HCL()
	}
	secrets := noTrace{secrets: []string{"wo-token-1", "wo-token-2"}}
	step := func(token string, version int, action plancheck.ResourceActionType, stored func(sandbox.ConnectorView) error) resource.TestStep {
		return resource.TestStep{
			Config:          cfg(version),
			ConfigVariables: config.Variables{"platform_token": config.StringVariable(token)},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, action), secrets},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), secrets},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				secrets,
				statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("token_wo"), knownvalue.Null()),
				statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("token"), knownvalue.Null()),
				statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("token_wo_version"), knownvalue.Int64Exact(int64(version))),
			},
			Check: e.ExpectStored(t, stored),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			// Without a version, a new token_wo could never be sent.
			{
				Config:      e.ProviderConfig() + acctest.NewConnectorArgs(name).With("token", "", "token_wo", `"wo-token-1"`).HCL(),
				ExpectError: acctest.Phrases(`Attribute "token_wo_version" must be specified when "token_wo" is specified`),
			},
			step("wo-token-1", 1, plancheck.ResourceActionCreate, acctest.StoredToken("wo-token-1", 1)),
			// A new token_wo alone changes nothing: Terraform cannot see it.
			step("wo-token-2", 1, plancheck.ResourceActionNoop, acctest.StoredToken("wo-token-1", 1)),
			// A new token_wo_version sends it.
			step("wo-token-2", 2, plancheck.ResourceActionUpdate, acctest.StoredToken("wo-token-2", 2)),
		},
	})
}

// TestAccConnector_writeOnlyNeedsNewEngine: engines without write-only
// attributes (Terraform before 1.11) refuse token_wo at plan with a clear
// error, before any request.
func TestAccConnector_writeOnlyNeedsNewEngine(t *testing.T) {
	acctest.RequireMissingCapability(t, acctest.CapWriteOnly)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      e.ProviderConfig() + acctest.NewConnectorArgs("old engine").With("token", "", "token_wo", `"wo-token-1"`, "token_wo_version", "1").HCL(),
			ExpectError: acctest.Phrases("WriteOnly Attribute Not Allowed", "only supported in Terraform 1.11 and later"),
		}},
	})
	e.ExpectNoRequests(t)
}

// TestAccConnector_preferWriteOnly: where the engine has write-only
// attributes, a plan or an apply with token warns, once per resource, that
// token_wo keeps the token out of the state and plan, pointing at the
// resource and not at token's line, which would print the token; elsewhere,
// and with token_wo, nothing is said.
func TestAccConnector_preferWriteOnly(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	const warning = "Prefer token_wo"
	first := acctest.NewConnectorArgs(acctest.Name("prefer write-only")).HCL()
	second := strings.Replace(acctest.NewConnectorArgs(acctest.Name("prefer write-only 2")).With("token", `"platform-token-2"`).HCL(), `"test"`, `"second"`, 1)
	withToken := acctest.ConfigDir(t, first+second)
	want := 0
	if eng.Info.Has(acctest.CapWriteOnly) {
		want = 2
	}
	for _, args := range [][]string{{"plan", "-input=false", "-no-color"}, {"apply", "-input=false", "-no-color", "-auto-approve"}} {
		out, err := eng.Try(withToken, e.ServiceEnv(), args...)
		if err != nil {
			t.Fatal(err)
		}
		if got := acctest.CountWarnings(out, warning); got != want {
			t.Errorf("%s (write-only: %v): %s warns %q %d times, want %d\n%s", eng.Info, eng.Info.Has(acctest.CapWriteOnly), args[0], warning, got, want, out)
		}
		pointed := acctest.Phrases(`on main.tf line 1, in resource "dataintegration_customer_service_connector" "test":`,
			`1: resource "dataintegration_customer_service_connector" "test" {`, "token_wo with token_wo_version keeps the token out of both")
		if want > 0 && !pointed.MatchString(out) {
			t.Errorf("%s: the warning does not point at the resource or does not say what to do:\n%s", args[0], out)
		}
	}
	eng.Run(t, withToken, e.ServiceEnv(), "destroy", "-input=false", "-no-color", "-auto-approve")
	if !eng.Info.Has(acctest.CapWriteOnly) {
		return
	}
	withWriteOnly := acctest.ConfigDir(t, acctest.NewConnectorArgs(acctest.Name("prefer write-only")).With("token", "", "token_wo", `"wo-token"`, "token_wo_version", "1").HCL())
	out, err := eng.Try(withWriteOnly, e.ServiceEnv(), "plan", "-input=false", "-no-color")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, warning) {
		t.Errorf("a plan with token_wo warns:\n%s", out)
	}
}

func TestAccConnector_invalidConfigurations(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	base := acctest.NewConnectorArgs("bad")
	cases := []struct {
		name string
		args acctest.ConnectorArgs
		want []string
	}{
		{"http URL", base.With("url", `"http://acme.example-helpdesk.com"`), []string{"url", "must use https"}},
		{"URL with a path", base.With("url", `"https://acme.example-helpdesk.com/api/v2"`), []string{"url", "must not have a path", "Allowed: an https URL of a host only"}},
		{"URL with a query", base.With("url", `"https://acme.example-helpdesk.com?tenant=1"`), []string{"url", "must not have a query or fragment"}},
		{"URL with user information", base.With("url", `"https://agent:pw@acme.example-helpdesk.com"`), []string{"url", "must not carry user information"}},
		{"relative URL", base.With("url", `"acme.example-helpdesk.com"`), []string{"url", "is not an absolute URL"}},
		{"port out of range", base.With("url", `"https://acme.example.com:99999"`), []string{"url", "the port 99999 is not from 1 to 65535"}},
		{"empty port", base.With("url", `"https://acme.example.com:"`), []string{"url", "the port after the colon is empty"}},
		{"dots for a host", base.With("url", `"https://.."`), []string{"url", "has a label (a part between dots) that is empty"}},
		{"hyphen for a host", base.With("url", `"https://-"`), []string{"url", "begins or ends with a hyphen"}},
		{"e-mail domain without a dot", base.With("agent_email", `"a@b"`), []string{"agent_email", "the domain after the @ needs a dot"}},
		{"e-mail local part too long", base.With("agent_email", strconv.Quote(strings.Repeat("l", 300)+"@acme.com")), []string{"agent_email", "the part before the @ is longer than 64 characters"}},
		{"blank name", base.With("name", `"   "`), []string{"name: the value is blank"}},
		{"invisible name", base.With("name", `"\u200b\u3164"`), []string{"name: the value is blank"}},
		{"name with a bell", base.With("name", `"desk\u0007"`), []string{"name", "holds a control character"}},
		{"name with a newline", base.With("name", `"desk\nEU"`), []string{"name", "holds a control character"}},
		{"bad e-mail", base.With("agent_email", `"agent.acme.com"`), []string{"agent_email", `"agent.acme.com" is not an e-mail address`}},
		{"e-mail with a display name", base.With("agent_email", `"Agent <agent@acme.com>"`), []string{"agent_email", "is not an e-mail address"}},
		{"unknown stream", base.With("streams", `["chats", "gossip"]`), []string{"streams", `"gossip" is not a stream`, "Allowed: the names chats, messages, events, contacts, tickets, ticket_interactions, ticket_tags, ticket_groups, ticket_forms, ticket_priorities, ticket_types, ticket_channels, ticket_status, organizations, survey_submissions"}},
		{"repeated stream", base.With("streams", `["chats", "tickets", "chats"]`), []string{"streams", `"chats" is listed twice`}},
		{"no stream", base.With("streams", `[]`), []string{"streams", "at least one stream is needed"}},
		{"empty name", base.With("name", `""`), []string{"name: the value is blank"}},
		{"long name", base.With("name", strconv.Quote(strings.Repeat("n", 256))), []string{"name", "UTF-8 character count must be at most 255, got: 256"}},
		{"empty token", base.With("token", `"  "`), []string{"token", "the token is empty"}},
		{"both tokens", base.With("token_wo", `"wo-token-1"`), []string{"Invalid Attribute Combination", "These attributes cannot be configured together: [token,token_wo]"}},
		{"neither token", base.With("token", ""), []string{"Missing Token", "A new connector needs the platform's token: set token, or token_wo with token_wo_version"}},
		{"token_wo_version not whole", base.With("token_wo_version", "1.5"), []string{"token_wo_version: 1.5 is not a whole number", "Allowed: a whole number."}},
		{"token_wo_version without token_wo", base.With("token_wo_version", "1"), []string{"Invalid Attribute Combination", `Attribute "token_wo" must be specified when "token_wo_version" is specified`}},
		{"workspace not a UUID", base.With("workspace_id", `"workspace-1"`), []string{"workspace_id", `"workspace-1" is not a UUID`}},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: e.ProviderConfig() + c.args.HCL(), ExpectError: acctest.Phrases(c.want...)})
	}
	if os.Getenv(EnvWorkspaceID) == "" {
		steps = append(steps, resource.TestStep{
			Config:      e.ProviderWithoutWorkspace() + base.HCL(),
			ExpectError: acctest.Phrases("Missing Workspace", "set workspace_id here, or workspace_id in the provider configuration"),
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
	if e.Sandbox != nil {
		for route, n := range e.Sandbox.Stats().ByRoute {
			if strings.Contains(route, acctest.RouteConnectors) {
				t.Errorf("the sandbox served %d requests on %s, want none", n, route)
			}
		}
	}
	e.ExpectNoRequests(t)
}

// TestAccConnector_wrongBasePath: a base_url whose path is wrong gets a 404
// for every request. A refresh must not take that for connectors deleted
// outside Terraform, which the next apply would create again: the plan
// fails, naming the path asked, the state keeps the connector, and with the
// right base_url the plan is empty.
func TestAccConnector_wrongBasePath(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "know that a wrong path prefix answers 404")
	name := acctest.Name("wrong path")
	wrong := acctest.ProviderBlock(e.BaseURL+"/api/v1", e.APIKey, e.WorkspaceID)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{Config: e.ProviderConfig() + acctest.NewConnectorArgs(name).HCL()},
			{
				Config:   wrong + acctest.NewConnectorArgs(name).HCL(),
				PlanOnly: true,
				ExpectError: acctest.Phrases("Unable to Read Connector", "answered 404 (not found) for connector", "listing the connectors of workspace",
					"GET /api/v1/developers/workspaces/", "kept in the state"),
			},
			{Config: e.ProviderConfig() + acctest.NewConnectorArgs(name).HCL(), PlanOnly: true},
		},
	})
}

// TestAccConnector_importBareIDFromAnotherWorkspace: a bare connector ID is
// looked for in the provider's workspace, not in the resource's. A
// connector of another workspace is not found there, and the error says
// where it looked and how to import it.
func TestAccConnector_importBareIDFromAnotherWorkspace(t *testing.T) {
	second := acctest.SecondWorkspace
	e := acctest.TwoWorkspaces(t, sandbox.Config{Jobs: 0}, "bind the API key to a second workspace")
	name := acctest.Name("other workspace")
	made, err := e.Client(t).CreateConnector(context.Background(), second, client.ConnectorSpec{
		Name: name, URL: "https://acme.example-helpdesk.com", Token: "outside-token", AgentEmail: "agent@acme.com",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Client(t).DeleteConnector(context.Background(), second, made.ID) })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + acctest.ImportBlock(acctest.ConnectorAddress, made.ID) +
				acctest.NewConnectorArgs(name).With("workspace_id", strconv.Quote(second)).HCL(),
			ExpectError: acctest.Phrases("Connector Not Found", "Workspace "+e.WorkspaceID+" holds no connector "+made.ID,
				"workspace_id in the import block's identity, or an import ID of <workspace_id>/<connector_id>, "+
					"and the same workspace_id in the resource's configuration"),
		}},
	})
}

func TestAccConnector_workspaceChangeReplaces(t *testing.T) {
	second := acctest.SecondWorkspace
	e := acctest.TwoWorkspaces(t, sandbox.Config{Jobs: 0}, "bind the API key to a second workspace")
	args := acctest.NewConnectorArgs(acctest.Name("move"))
	var first, moved string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{
				Config: e.ProviderConfig() + args.HCL(),
				Check:  acctest.CaptureID(&first),
			},
			{
				// Naming the provider's workspace explicitly changes nothing.
				Config: e.ProviderConfig() + args.With("workspace_id", strconv.Quote(e.WorkspaceID)).HCL(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionNoop)},
				},
			},
			{
				Config: e.ProviderConfig() + args.With("workspace_id", strconv.Quote(second)).HCL(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionReplace),
						plancheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(second)),
					},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CaptureID(&moved),
					e.ExpectMoved(&first, &moved, second),
				),
			},
		},
	})
}

// TestAccConnector_nameTaken: a create of a name the workspace holds (a
// connector made outside, or one a killed apply lost) fails before it sends
// anything, with the import block that adopts it, which then works; two
// resources of one name in one apply make one connector, and the second is
// told that the first made it.
func TestAccConnector_nameTaken(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the connectors of a name")
	name := acctest.Name("taken")
	there := e.MakeConnector(t, name, "tickets")
	args := acctest.NewConnectorArgs(name).With("streams", `["tickets"]`, "url", `"https://acme.example-helpdesk.com"`)
	twiceName := acctest.Name("twice")
	once := e.ProviderConfig() + args.HCL() + strings.Replace(acctest.NewConnectorArgs(twiceName).HCL(), `"test"`, `"once"`, 1)
	// "twice" after "once", so that the state keeps "once", which the last
	// step keeps: were "twice" the one created, that step would destroy it
	// while creating "once", whose name check could still find it. That
	// two creates of one name wait for each other, whichever comes first,
	// is TestConnectorCreatesOfOneNameWait's.
	twice := once + strings.Replace(strings.Replace(acctest.NewConnectorArgs(twiceName).HCL(), `"test"`, `"twice"`, 1),
		"\n}\n", "\n  depends_on = [dataintegration_customer_service_connector.once]\n}\n", 1)
	oneEach := func(*terraform.State) error {
		if held := e.ConnectorsByName(t); len(held[name]) != 1 || len(held[twiceName]) != 1 || len(held) != 2 {
			return fmt.Errorf("the service holds %v, want one connector of each name", held)
		}
		return nil
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.ProviderConfig() + args.HCL(),
				ExpectError: acctest.Phrases("Connector Name Taken", fmt.Sprintf("already holds a connector named %q: %s", name, there.ID),
					"import {", fmt.Sprintf(`id = "%s/%s"`, e.WorkspaceID, there.ID)),
			},
			{
				Config: e.ProviderConfig() + args.HCL() + fmt.Sprintf("import {\n  to = %s\n  id = %q\n}\n", acctest.ConnectorAddress, e.WorkspaceID+"/"+there.ID),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("id"), knownvalue.StringExact(there.ID)),
				},
			},
			{
				Config:      twice,
				ExpectError: acctest.Phrases("Connector Name Taken", "Another resource of this apply has just created connector", "Give each resource a name of its own"),
			},
			{Config: once, Check: oneEach},
		},
	})
}
