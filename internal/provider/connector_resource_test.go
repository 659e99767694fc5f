package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
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

// TestAccConnector_importBlockThenToken: an import block with the token in the
// configuration updates the connector in place, never replaces it, also when
// imported by its IDs in upper case.
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

// TestAccConnector_preferWriteOnly: where the engine has write-only attributes,
// token warns once per resource, on the resource and not on token's line,
// which would print the token.
func TestAccConnector_preferWriteOnly(t *testing.T) {
	t.Parallel()
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
	if os.Getenv(providerenv.WorkspaceID) == "" {
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

// TestAccConnector_wrongBasePath: 404s from a wrong base_url path are not
// connectors deleted outside Terraform, which the next apply would create again.
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

// TestAccConnector_importBareIDFromAnotherWorkspace: a bare ID is looked for in
// the provider's workspace, and the error says where it looked.
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

// TestAccConnector_importIntoAnotherWorkspaceNamesReplacement: an import into a
// configuration of another workspace fails the plan naming the replacement.
func TestAccConnector_importIntoAnotherWorkspaceNamesReplacement(t *testing.T) {
	second := acctest.SecondWorkspace
	e := acctest.TwoWorkspaces(t, sandbox.Config{Jobs: 0}, "bind the API key to a second workspace")
	name := acctest.Name("imported elsewhere")
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
			Config: e.ProviderConfig() + acctest.ImportBlock(acctest.ConnectorAddress, second+"/"+made.ID) +
				acctest.NewConnectorArgs(name).With("token", "").HCL(),
			ExpectError: acctest.Phrases("Missing Token", "This plan replaces connector "+made.ID,
				"workspace_id changes from "+second+" to "+e.WorkspaceID, "delete it (and its job)",
				"To keep the connector, set workspace_id = \""+second+"\""),
		}},
	})
	if _, err := e.Client(t).GetConnector(context.Background(), second, made.ID); err != nil {
		t.Errorf("the imported connector is gone: %v", err)
	}
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

// TestAccConnector_nameTaken: a create of a name the workspace holds fails the
// plan with the import block that adopts it. (Creates of one name the plan
// cannot see: TestConnector_createsOfOneNameWait.)
func TestAccConnector_nameTaken(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the connectors of a name")
	name := acctest.Name("taken")
	there := e.MakeConnector(t, name, "tickets")
	args := acctest.NewConnectorArgs(name).With("streams", `["tickets"]`, "url", `"https://acme.example-helpdesk.com"`)
	twiceName := acctest.Name("twice")
	once := e.ProviderConfig() + args.HCL() + strings.Replace(acctest.NewConnectorArgs(twiceName).HCL(), `"test"`, `"once"`, 1)
	twice := once + strings.Replace(acctest.NewConnectorArgs(twiceName).HCL(), `"test"`, `"twice"`, 1)
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
					"import {", fmt.Sprintf(`id = "%s/%s"`, e.WorkspaceID, there.ID), "destroy with -refresh=false"),
			},
			{
				Config: e.ProviderConfig() + args.HCL() + fmt.Sprintf("import {\n  to = %s\n  id = %q\n}\n", acctest.ConnectorAddress, e.WorkspaceID+"/"+there.ID),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("id"), knownvalue.StringExact(there.ID)),
				},
			},
			{
				Config:      twice,
				ExpectError: acctest.Phrases("Connector Name Taken", fmt.Sprintf("Two resources of this configuration create a connector named %q", twiceName), "Give each resource a name of its own"),
			},
			{Config: once, Check: oneEach},
		},
	})
}

// A destroy planned from a stale state (terraform destroy -refresh=false)
// finds the connector gone already: that is success, without a warning.
func TestConnector_deleteOfAConnectorAlreadyGone(t *testing.T) {
	t.Parallel()
	_, data := unitSandbox(t, sandbox.Config{Jobs: 0}, sandbox.DefaultAPIKey)
	r := configured(t, NewConnectorResource(), data)
	diags := destroy(t, r, connectorState(data.workspaceID, "0f0f0f0f-0000-4000-8000-00000000abcd"))
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
}

// Through a base_url whose path is wrong, every answer is a 404. A delete
// must not take it for a connector gone: the workspace's connector list
// fails too, so the delete fails and the connector stays in the state.
func TestConnector_deleteThroughAWrongPath(t *testing.T) {
	t.Parallel()
	_, data := unitSandboxAt(t, sandbox.Config{Jobs: 0}, sandbox.DefaultAPIKey, "/api/v1")
	r := configured(t, NewConnectorResource(), data)
	diags := destroy(t, r, connectorState(data.workspaceID, "0f0f0f0f-0000-4000-8000-00000000abcd"))
	if !diags.HasError() || diags[0].Summary() != "Unable to Delete Connector" ||
		!strings.Contains(diags[0].Detail(), "listing the connectors of workspace") || !strings.Contains(diags[0].Detail(), "/api/v1/developers/") {
		t.Errorf("diagnostics: %v", diags)
	}
}

// Any other refusal of a delete is an error: the connector stays in state.
func TestConnector_deleteRefused(t *testing.T) {
	t.Parallel()
	_, data := unitSandbox(t, sandbox.Config{Jobs: 0}, "not-the-key")
	r := configured(t, NewConnectorResource(), data)
	diags := destroy(t, r, connectorState(data.workspaceID, "0f0f0f0f-0000-4000-8000-00000000abcd"))
	if !diags.HasError() || diags[0].Summary() != "Authentication Failed" || !strings.Contains(diags[0].Detail(), "HTTP 401") {
		t.Errorf("diagnostics: %v", diags)
	}
}

// TestConnector_emptyNameOneError: name = "" is one mistake, and gets one
// error (the name is blank), not a second about its length.
func TestConnector_emptyNameOneError(t *testing.T) {
	t.Parallel()
	p := serveProto(t)
	const connector = "dataintegration_customer_service_connector"
	cfg := acctest.ProtoValue(t, p.Schemas.ResourceSchemas[connector], map[string]string{
		"name": "", "url": "https://acme.example.com", "agent_email": "agent@acme.com", "token": "platform-token-1",
	})
	resp, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: connector, Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || !strings.Contains(resp.Diagnostics[0].Detail, "name: the value is blank") {
		t.Errorf("want one error, that the name is blank: %s", protoDiags(resp.Diagnostics))
	}
}

// connectorIdentity checks a connector's identity: its ID, as the state
// holds it, and workspace ws.
func connectorIdentity(address, ws string) statecheck.StateCheck {
	return statecheck.ExpectIdentity(address, map[string]knownvalue.Check{
		"id":           knownvalue.StringRegexp(acctest.UUIDRE),
		"workspace_id": knownvalue.StringExact(ws),
	})
}

// TestAccConnector_identity: an update keeps the identity, and an import block
// with it imports the same connector, planning nothing.
func TestAccConnector_identity(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapIdentity)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	name := acctest.Name("identity")
	args := acctest.NewConnectorArgs(name)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{
				Config: e.ProviderConfig() + args.HCL(),
				ConfigStateChecks: []statecheck.StateCheck{
					connectorIdentity(acctest.ConnectorAddress, e.WorkspaceID),
					statecheck.ExpectIdentityValueMatchesState(acctest.ConnectorAddress, tfjsonpath.New("id")),
					statecheck.ExpectIdentityValueMatchesState(acctest.ConnectorAddress, tfjsonpath.New("workspace_id")),
				},
			},
			{
				Config: e.ProviderConfig() + args.With("name", fmt.Sprintf("%q", name+" renamed"), "streams", `["tickets"]`).HCL(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					connectorIdentity(acctest.ConnectorAddress, e.WorkspaceID),
					statecheck.ExpectIdentityValueMatchesState(acctest.ConnectorAddress, tfjsonpath.New("id")),
				},
			},
			{
				// As -generate-config-out would write it: no token, which
				// keeps the service's, so the import plans nothing else.
				Config:          e.ProviderConfig() + args.With("name", fmt.Sprintf("%q", name+" renamed"), "streams", `["tickets"]`, "token", "").HCL(),
				ResourceName:    acctest.ConnectorAddress,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}

// TestAccConnector_importByIdentity: by id alone, in upper case, or with
// workspace_id; no difference of letter case shows.
func TestAccConnector_importByIdentity(t *testing.T) {
	for _, c := range []struct {
		name     string
		identity func(e *acctest.Env, id string) []string
	}{
		{"id alone", func(_ *acctest.Env, id string) []string { return []string{"id", fmt.Sprintf("%q", id)} }},
		{"id and workspace_id in upper case", func(e *acctest.Env, id string) []string {
			return []string{"id", fmt.Sprintf("%q", strings.ToUpper(id)), "workspace_id", fmt.Sprintf("%q", strings.ToUpper(e.WorkspaceID))}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			acctest.RequireCapability(t, acctest.CapIdentity)
			e := acctest.NewEnv(t, sandbox.Config{Jobs: 0, Keys: acctest.LetteredWorkspace})
			name := acctest.Name("identity import")
			made := e.MakeConnector(t, name)
			identity := c.identity(e, made.ID)
			wantWS := e.WorkspaceID
			if len(identity) > 2 {
				wantWS = strings.ToUpper(e.WorkspaceID)
			}
			config := e.ProviderConfig() + acctest.IdentityImportBlock(acctest.ConnectorAddress, identity...) + acctest.NewConnectorArgs(name).HCL()
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             e.ConnectorsGone(t),
				Steps: []resource.TestStep{
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							// The import, and the token sent once.
							PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate)},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("id"), knownvalue.StringExact(made.ID)),
							statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(wantWS)),
							statecheck.ExpectIdentity(acctest.ConnectorAddress, map[string]knownvalue.Check{
								"id":           knownvalue.StringFunc(func(v string) error { return expectSameID(v, made.ID) }),
								"workspace_id": knownvalue.StringExact(wantWS),
							}),
						},
						Check: e.ExpectStored(t, acctest.StoredToken("platform-token-1", 2)),
					},
					{
						// The workspace in the configuration, in the other
						// case than the identity's: no change.
						Config: e.ProviderConfig() + acctest.NewConnectorArgs(name).With("workspace_id", fmt.Sprintf("%q", strings.ToLower(e.WorkspaceID))).HCL(),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
					},
				},
			})
		})
	}
}

// expectSameID fails unless got is the UUID want in some letter case.
func expectSameID(got, want string) error {
	if !sameID(got, want) {
		return fmt.Errorf("%s is not %s", got, want)
	}
	return nil
}

// TestAccConnector_importByIdentityRefused: a bad identity is refused before any request.
func TestAccConnector_importByIdentityRefused(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapIdentity)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	const id = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: noWorkspaceEnv().factories(),
		Steps: []resource.TestStep{
			{
				Config:      e.ProviderConfig() + acctest.IdentityImportBlock(acctest.ConnectorAddress, "id", `"support-desk"`) + acctest.NewConnectorArgs("desk").HCL(),
				ExpectError: acctest.Phrases("Invalid Import Identity", `got id "support-desk" and no workspace_id`),
			},
			{
				// A blank workspace_id is refused, not taken as left out.
				Config:      e.ProviderConfig() + acctest.IdentityImportBlock(acctest.ConnectorAddress, "id", fmt.Sprintf("%q", id), "workspace_id", `""`) + acctest.NewConnectorArgs("desk").HCL(),
				ExpectError: acctest.Phrases("Invalid Import Identity", fmt.Sprintf(`got id %q and workspace_id ""`, id)),
			},
			{
				Config: e.ProviderWithoutWorkspace() + acctest.IdentityImportBlock(acctest.ConnectorAddress, "id", fmt.Sprintf("%q", id)) +
					acctest.NewConnectorArgs("desk").With("workspace_id", fmt.Sprintf("%q", e.WorkspaceID)).HCL(),
				ExpectError: acctest.Phrases("Missing Workspace", "The import identity of connector "+id+" names no workspace_id",
					"the provider has no workspace_id", "Give workspace_id in the import block's identity"),
			},
		},
	})
	e.ExpectNoRequests(t)
}

// TestAccConnector_identityAddedToOldState: a state written without identities
// (an older provider or engine) gains one at the next refresh, planning nothing.
func TestAccConnector_identityAddedToOldState(t *testing.T) {
	t.Parallel()
	acctest.RequireCapability(t, acctest.CapIdentity)
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	dir := acctest.ConfigDir(t, e.ProviderConfig()+acctest.NewConnectorArgs(acctest.Name("old state")).HCL())
	eng.Run(t, dir, nil, "apply", "-auto-approve", "-input=false", "-no-color")
	id := acctest.StateResourceID(t, eng.Run(t, dir, nil, "show", "-json"), acctest.ConnectorAddress)
	t.Cleanup(func() { eng.Run(t, dir, nil, "destroy", "-auto-approve", "-input=false", "-no-color") })

	stateFile := filepath.Join(dir, "terraform.tfstate")
	stripIdentities(t, stateFile)
	eng.ExpectConverged(t, dir, nil)
	eng.Run(t, dir, nil, "apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	if got := stateIdentity(t, stateFile, acctest.ConnectorAddress); got["id"] != id || got["workspace_id"] != e.WorkspaceID {
		t.Errorf("after a refresh the identity is %v, want id %s and workspace_id %s", got, id, e.WorkspaceID)
	}
	eng.ExpectConverged(t, dir, nil)

	// Deleted outside Terraform, the connector of such a state is planned
	// for creation, as any other.
	stripIdentities(t, stateFile)
	if err := e.Client(t).DeleteConnector(context.Background(), e.WorkspaceID, id); err != nil {
		t.Fatal(err)
	}
	actions, _ := eng.Plan(t, dir, nil)
	acctest.ExpectActions(t, actions, acctest.ConnectorAddress, "create")
}

func stripIdentities(t *testing.T, stateFile string) {
	t.Helper()
	raw, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	stripped := 0
	for _, r := range st["resources"].([]any) {
		for _, inst := range r.(map[string]any)["instances"].([]any) {
			i := inst.(map[string]any)
			if _, ok := i["identity"]; ok {
				stripped++
			}
			delete(i, "identity")
			delete(i, "identity_schema_version")
		}
	}
	if stripped != 1 {
		t.Fatalf("the state holds %d identities, want the connector's: %s", stripped, raw)
	}
	st["serial"] = st["serial"].(float64) + 1
	if raw, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stateFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

func stateIdentity(t *testing.T, stateFile, address string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				Identity map[string]any `json:"identity"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Resources {
		if r.Type+"."+r.Name == address && len(r.Instances) == 1 {
			return r.Instances[0].Identity
		}
	}
	t.Fatalf("%s is not in the state file", address)
	return nil
}

// TestAccConnector_generateConfig: `plan -generate-config-out`, then the token
// added as the connector's docs say, imports and updates in place.
func TestAccConnector_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.RequireCapability(t, acctest.CapImportBlocks)
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	name := acctest.Name("generated")
	made := e.MakeConnector(t, name, "tickets", "chats")
	const address = "dataintegration_customer_service_connector.desk"
	dir := acctest.ConfigDir(t, e.ProviderConfig()+acctest.ImportBlock(address, e.WorkspaceID+"/"+made.ID))
	plan := func(want ...string) {
		t.Helper()
		actions, imports := eng.Plan(t, dir, nil)
		acctest.ExpectActions(t, actions, address, want...)
		if len(actions) != 1 {
			t.Errorf("the plan's actions are %v, want %s's alone", actions, address)
		}
		if len(imports) != 1 || imports[0] != address {
			t.Errorf("the plan imports %v, want %s", imports, address)
		}
	}

	eng.Run(t, dir, nil, "plan", "-input=false", "-no-color", "-generate-config-out=generated.tf")
	generated, err := os.ReadFile(filepath.Join(dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if !acctest.GeneratedTokenLine.Match(generated) || !regexp.MustCompile(`(?m)^\s*token_wo\s*=\s*null`).Match(generated) {
		t.Fatalf("the generated file has no `token = null` and `token_wo = null` lines, which the docs tell how to edit:\n%s", generated)
	}
	// As generated, the connector is imported with the token the service
	// holds, and nothing changes.
	plan("no-op")

	// The docs: replace `token = null` with the token.
	edited := acctest.GeneratedTokenLine.ReplaceAll(generated, []byte(`${1}token = "platform-token-1"`))
	if err := os.WriteFile(filepath.Join(dir, "generated.tf"), edited, 0o600); err != nil {
		t.Fatal(err)
	}
	plan("update")
	eng.Run(t, dir, nil, "apply", "-input=false", "-no-color", "tfplan")
	if e.Sandbox != nil {
		if v, ok := e.Sandbox.Connector(e.WorkspaceID, made.ID); !ok || v.Token != "platform-token-1" || v.TokenWrites != 2 {
			t.Errorf("after apply the sandbox holds %+v, want the token sent once more", v)
		}
	}
	eng.ExpectConverged(t, dir, nil)
}

// Plans are stable: a value that means the same (a UUID in another case, streams
// in another order) plans nothing.

// TestAccResources_unknownWorkspaceReplaces: a trigger moved to a workspace
// known only at apply is planned replaced, and one apply moves it.
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
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:          cfg,
				ConfigVariables: config.Variables{"workspace": config.StringVariable(e.WorkspaceID)},
			},
			{
				Config:          cfg,
				ConfigVariables: config.Variables{"workspace": config.StringVariable(second)},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.TriggerAddress, plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectUnknownValue(acctest.TriggerAddress, tfjsonpath.New("workspace_id")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
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

// TestAccConnector_importBareIDWithoutWorkspace: without the provider's
// workspace_id, the error says to import by <workspace_id>/<connector_id>.
func TestAccConnector_importBareIDWithoutWorkspace(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	made := e.MakeConnector(t, acctest.Name("bare import"))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: noWorkspaceEnv().factories(),
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

// TestAccConnector_savedPlanOverDrift: a saved plan, or -refresh=false, applied
// over drift ends as the configuration says; a connector deleted since the plan
// fails the apply saying so.
func TestAccConnector_savedPlanOverDrift(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	c := e.Client(t)
	ctx := context.Background()
	args := acctest.NewConnectorArgs(acctest.Name("saved plan")).With("streams", `["chats", "tickets"]`)
	dir := acctest.ConfigDir(t, e.ProviderConfig()+args.HCL())
	write := func(a acctest.ConnectorArgs) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(e.ProviderConfig()+a.HCL()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	eng.Run(t, dir, nil, "apply", "-auto-approve", "-input=false", "-no-color")
	t.Cleanup(func() { _, _ = eng.Try(dir, nil, "destroy", "-auto-approve", "-input=false", "-no-color") })
	id := acctest.StateResourceID(t, eng.Run(t, dir, nil, "show", "-json"), acctest.ConnectorAddress)
	expectService := func(url string) {
		t.Helper()
		got, err := c.GetConnector(ctx, e.WorkspaceID, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Configuration.URL != url || got.Configuration.AgentEmail != "agent@acme.com" || !sameElements(got.Streams, []string{"chats", "tickets"}) {
			t.Errorf("the service holds url %q, agent_email %q, streams %q; want %q, agent@acme.com, [chats tickets]",
				got.Configuration.URL, got.Configuration.AgentEmail, got.Streams, url)
		}
	}
	drift := func() {
		t.Helper()
		email, streams := "someone.else@acme.com", []string{"events"}
		if _, err := c.UpdateConnector(ctx, e.WorkspaceID, id, client.ConnectorUpdate{AgentEmail: &email, Streams: streams}); err != nil {
			t.Fatal(err)
		}
	}

	write(args.With("url", `"https://second.example-helpdesk.com"`))
	actions, _ := eng.Plan(t, dir, nil)
	acctest.ExpectActions(t, actions, acctest.ConnectorAddress, "update")
	drift()
	eng.Run(t, dir, nil, "apply", "-input=false", "-no-color", "tfplan")
	expectService("https://second.example-helpdesk.com")
	eng.ExpectConverged(t, dir, nil)

	write(args.With("url", `"https://third.example-helpdesk.com"`))
	drift()
	eng.Run(t, dir, nil, "apply", "-refresh=false", "-auto-approve", "-input=false", "-no-color")
	expectService("https://third.example-helpdesk.com")
	eng.ExpectConverged(t, dir, nil)

	write(args.With("url", `"https://fourth.example-helpdesk.com"`))
	eng.Plan(t, dir, nil)
	if err := c.DeleteConnector(ctx, e.WorkspaceID, id); err != nil {
		t.Fatal(err)
	}
	out, err := eng.Try(dir, nil, "apply", "-input=false", "-no-color", "tfplan")
	if err == nil || !acctest.Phrases("Connector Deleted Outside Terraform", "deleted from workspace", "since the plan was made", "run terraform plan again, and read what it plans").MatchString(fmt.Sprint(err)) ||
		strings.Contains(fmt.Sprint(err), "creates it again") {
		t.Fatalf("applying a saved plan of a connector deleted since: %v\n%s", err, out)
	}
	actions, _ = eng.Plan(t, dir, nil)
	acctest.ExpectActions(t, actions, acctest.ConnectorAddress, "create")
}

// TestAccConnector_unreachableWorkspaceRefusedAtPlan: moves and creates into a
// workspace the key cannot reach fail at plan, with one request for it.
func TestAccConnector_unreachableWorkspaceRefusedAtPlan(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the requests of the plan, and use a workspace no key of the sandbox reaches")
	const typo = "00000000-0000-4000-8000-0000000000f1"
	name := acctest.Name("typo")
	fleet := func(ws string) string {
		return e.ProviderConfig() + fmt.Sprintf(`
resource "dataintegration_customer_service_connector" "test" {
  count        = 3
  workspace_id = %q
  name         = "%s ${count.index}"
  url          = "https://acme.example-helpdesk.com"
  agent_email  = "agent@acme.com"
  token        = "platform-token-1"
}
`, ws, name)
	}
	dir := acctest.ConfigDir(t, fleet(e.WorkspaceID))
	eng.Run(t, dir, nil, "apply", "-auto-approve", "-input=false", "-no-color")
	t.Cleanup(func() { _, _ = eng.Try(dir, nil, "destroy", "-auto-approve", "-input=false", "-no-color") })
	ids := slices.Collect(maps.Keys(eng.StateIDs(t, dir, "dataintegration_customer_service_connector")))
	if len(ids) != 3 {
		t.Fatalf("the state holds connectors %v, want 3", ids)
	}
	// The workspace check lists connectors; with -refresh=false, no read
	// of the connectors does, so every such list is a check.
	checks := func() int64 { return e.Sandbox.Stats().ByRoute["GET "+acctest.RouteConnectors] }
	before := checks()
	if out, err := eng.Try(dir, nil, "plan", "-refresh=false", "-input=false", "-detailed-exitcode", "-no-color"); err != nil {
		t.Errorf("the plan after apply is not empty: %v\n%s", err, out)
	}
	if n := checks() - before; n != 0 {
		t.Errorf("a plan that moves nothing asked about the workspace %d times, want none", n)
	}
	expectKept := func() {
		t.Helper()
		for _, id := range ids {
			if _, err := e.Client(t).GetConnector(context.Background(), e.WorkspaceID, id); err != nil {
				t.Errorf("connector %s after the refused apply: %v", id, err)
			}
		}
	}
	refused := acctest.Phrases("Workspace Not Reachable", "cannot reach workspace "+typo, "HTTP 403", "Nothing was changed", "workspace_id", providerenv.APIKey)

	// Only a refreshing plan moves a connector (TestAccConnector_unknownWorkspaceKept),
	// so the move's plan reads the connectors too: one list, and the check.
	for _, c := range []struct {
		cfg     string
		refresh string
		lists   int64
	}{
		{fleet(typo), "-refresh=true", 2},
		{fleet(e.WorkspaceID) + strings.Replace(acctest.NewConnectorArgs(name+" new").With("workspace_id", strconv.Quote(typo)).HCL(), `"test"`, `"new"`, 1), "-refresh=false", 1},
	} {
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(c.cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		before = checks()
		out, err := eng.Try(dir, nil, "apply", c.refresh, "-auto-approve", "-input=false", "-no-color")
		if err == nil || !refused.MatchString(fmt.Sprint(err)) {
			t.Fatalf("apply to an unreachable workspace: %v\n%s", err, out)
		}
		if n := checks() - before; n != c.lists {
			t.Errorf("the plan listed connectors %d times, want %d", n, c.lists)
		}
		expectKept()
	}
}

// TestAccConnector_racingApplies: two applies of one name in two folders (two
// CI pipelines) against a slow service: at most one connector of the name
// stands, the one the winner's state records.
func TestAccConnector_racingApplies(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "slow the service down so that both name checks are in flight at once, and count the creates")
	if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: 1000}); err != nil {
		t.Fatal(err)
	}
	var raced int
	for round := range 2 {
		cfg := e.ProviderConfig() + acctest.NewConnectorArgs(acctest.Name("race")).HCL()
		dirs := []string{acctest.ConfigDir(t, cfg), acctest.ConfigDir(t, cfg)}
		posts := e.Sandbox.Stats().ByRoute["POST "+acctest.RouteConnectors]
		errs := make([]error, len(dirs))
		var wg sync.WaitGroup
		for i, dir := range dirs {
			wg.Go(func() { _, errs[i] = eng.Try(dir, nil, "apply", "-auto-approve", "-input=false", "-no-color") })
		}
		wg.Wait()
		if e.Sandbox.Stats().ByRoute["POST "+acctest.RouteConnectors]-posts == 2 {
			raced++
		}
		var winners []string
		for i, dir := range dirs {
			ids := eng.StateIDs(t, dir, "dataintegration_customer_service_connector")
			switch {
			case errs[i] == nil:
				winners = append(winners, slices.Collect(maps.Keys(ids))...)
			case !acctest.Phrases("Connector Name Taken").MatchString(errs[i].Error()):
				t.Errorf("round %d: apply failed otherwise: %v", round, errs[i])
			case len(ids) != 0:
				t.Errorf("round %d: the losing apply's state records %v", round, ids)
			}
		}
		held := e.ConnectorsByName(t)
		var standing []string
		for _, ids := range held {
			standing = append(standing, ids...)
		}
		if len(winners) > 1 || len(standing) > 1 || len(winners) != len(standing) || len(winners) == 1 && !sameID(winners[0], standing[0]) {
			t.Errorf("round %d: the applies' states record %v, the workspace holds %v", round, winners, held)
		}
		for _, id := range standing {
			if err := e.Client(t).DeleteConnector(context.Background(), e.WorkspaceID, id); err != nil {
				t.Error(err)
			}
		}
	}
	if raced == 0 {
		t.Error("no round sent two creates: the applies raced nothing")
	}
}

func connectorsByAddress(t *testing.T, eng *acctest.Engine, dir string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, r := range acctest.StateResources(t, eng.Run(t, dir, nil, "show", "-json")) {
		if r.Type == "dataintegration_customer_service_connector" {
			ids[r.Address], _ = r.Values["id"].(string)
		}
	}
	return ids
}

// requestsOf is how many requests the sandbox served during run.
func requestsOf(e *acctest.Env, run func()) int64 {
	before := e.Sandbox.Stats().Requests
	run()
	return e.Sandbox.Stats().Requests - before
}

// TestAccConnector_refreshReadsTheList: refreshing N connectors in a list of P
// pages costs at most 2×min(N, P)+1 requests; -refresh=false costs none.
func TestAccConnector_refreshReadsTheList(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	for _, c := range []struct{ managed, others int }{{40, 260}, {3, 1497}} {
		e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
		e.RequireSandbox(t, "count the requests")
		madeOutside(t, e, c.others)
		dir := acctest.ConfigDir(t, acctest.FleetHCL(c.managed, "", false))
		vars := e.ServiceEnv()
		eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
		pages := (c.managed + c.others + client.PageSize - 1) / client.PageSize
		bound := int64(2*min(c.managed, pages) + 1)
		if n := requestsOf(e, func() { eng.ExpectConverged(t, dir, vars) }); n < 1 || n > bound {
			t.Errorf("%d connectors of %d: the refresh sent %d requests, want 1 to %d", c.managed, c.managed+c.others, n, bound)
		}
		if n := requestsOf(e, func() {
			eng.Run(t, dir, vars, "plan", "-refresh=false", "-input=false", "-detailed-exitcode")
		}); n != 0 {
			t.Errorf("plan -refresh=false sent %d requests, want none", n)
		}
	}
}

// TestAccConnector_driftUnderServiceVariants: whatever the service's paging and
// filters, drift is planned, and nothing else.
func TestAccConnector_driftUnderServiceVariants(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "play the service's variants")
	madeOutside(t, e, 245)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(5, "", false))
	vars := e.ServiceEnv()
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	ids := connectorsByAddress(t, eng, dir)
	ctx := context.Background()
	for _, v := range []sandbox.Variant{
		{Envelope: []string{}},
		{Envelope: []string{"next_page"}},
		{Envelope: []string{"count"}, MaxPageSize: 20},
		{Filters: sandbox.FiltersPartial, ExtraFields: true},
		{Filters: sandbox.FiltersIgnored, PastEnd: sandbox.PastEndEmpty},
	} {
		if err := e.Sandbox.SetVariant(v); err != nil {
			t.Fatal(err)
		}
		c := e.Client(t)
		if _, err := c.UpdateConnector(ctx, e.WorkspaceID, ids["dataintegration_customer_service_connector.c[1]"], client.ConnectorUpdate{URL: new("https://changed.example.com")}); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteConnector(ctx, e.WorkspaceID, ids["dataintegration_customer_service_connector.c[2]"]); err != nil {
			t.Fatal(err)
		}
		actions, _ := eng.Plan(t, dir, vars)
		for i, want := range []string{"no-op", "update", "create", "no-op", "no-op"} {
			acctest.ExpectActions(t, actions, fmt.Sprintf("dataintegration_customer_service_connector.c[%d]", i), want)
		}
		if t.Failed() {
			t.Fatalf("under variant %+v", v)
		}
		eng.Run(t, dir, vars, "apply", "-input=false", "tfplan")
		ids = connectorsByAddress(t, eng, dir)
		eng.ExpectConverged(t, dir, vars)
	}
}

// TestAccConnector_refreshOverFailingLists: a list failing part-way is not
// trusted (each read asks for itself); under 30% faults a refresh still succeeds.
func TestAccConnector_refreshOverFailingLists(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "inject faults")
	madeOutside(t, e, 280)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(20, "max_retries = 20", false))
	vars := e.ServiceEnv()
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	ids := connectorsByAddress(t, eng, dir)
	changed := "dataintegration_customer_service_connector.c[3]"
	if _, err := e.Client(t).UpdateConnector(context.Background(), e.WorkspaceID, ids[changed], client.ConnectorUpdate{Name: new("renamed outside")}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []sandbox.Faults{
		{Rate: 1, Statuses: []int{400}, Methods: []string{"GET"}, FromPage: 2},
		{Rate: 0.3, Statuses: []int{429, 503, 500, 502, 504}, Methods: []string{"GET"}, Seed: 3},
	} {
		if err := e.Sandbox.SetFaults(f); err != nil {
			t.Fatal(err)
		}
		before := e.Sandbox.Stats().Faults
		actions, _ := eng.Plan(t, dir, vars)
		for addr := range ids {
			want := "no-op"
			if addr == changed {
				want = "update"
			}
			acctest.ExpectActions(t, actions, addr, want)
		}
		if e.Sandbox.Stats().Faults == before {
			t.Errorf("faults %+v: the plan met none", f)
		}
	}
}

// TestAccConnector_refreshOverCutAnswers: 30% of answers cut mid-body, and the
// refresh plan succeeds in one run.
func TestAccConnector_refreshOverCutAnswers(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "cut answers short")
	madeOutside(t, e, 280)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(20, "", false))
	vars := e.ServiceEnv()
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	ids := connectorsByAddress(t, eng, dir)
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, When: sandbox.FaultsCut, Methods: []string{"GET"}, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	before := e.Sandbox.Stats().Faults
	actions, _ := eng.Plan(t, dir, vars)
	for addr := range ids {
		acctest.ExpectActions(t, actions, addr, "no-op")
	}
	if e.Sandbox.Stats().Faults == before {
		t.Error("the plan met no answer cut short")
	}
}

// TestAccConnector_serviceNeverAnswers: a plan of 40 connectors against a service
// that never answers fails within one retry budget, not one per read.
func TestAccConnector_serviceNeverAnswers(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "hold requests unanswered")
	t.Cleanup(e.Sandbox.Close) // before the server stops: it would wait for the held requests
	const n = 40
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "request_timeout = \"2s\"\n  max_retries     = 2", false))
	vars := e.ServiceEnv()
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 1, When: sandbox.FaultsHang}); err != nil {
		t.Fatal(err)
	}
	// The refresh of the connectors applied, then a plan that creates as
	// many, whose workspace checks wait on one another.
	creates := acctest.ConfigDir(t, acctest.FleetHCL(n, "request_timeout = \"2s\"\n  max_retries     = 2", false))
	host := strings.TrimPrefix(e.BaseURL, "http://")
	for _, plan := range []struct{ what, dir string }{{"refresh", dir}, {"creates", creates}} {
		before := e.Sandbox.Stats().Faults
		start := time.Now()
		_, err := eng.Try(plan.dir, vars, "plan", "-input=false", "-no-color")
		took := time.Since(start)
		held := e.Sandbox.Stats().Faults - before
		t.Logf("the plan of %d %s ended after %v, %d requests held unanswered", n, plan.what, took.Round(100*time.Millisecond), held)
		if err == nil {
			t.Fatalf("the plan of %s against a service that never answers succeeded", plan.what)
		}
		said := strings.Join(strings.Fields(err.Error()), " ") // the engine wraps lines
		for _, want := range []string{"Service Not Answering", "nothing answered at " + host, "within request_timeout (2s)"} {
			if !strings.Contains(said, want) {
				t.Errorf("the plan's error does not say %q:\n%v", want, err)
			}
		}
		// A budget of 3 attempts of 2 s each, and one more timeout: far
		// less than a budget, or a timeout, per connector.
		if took > 45*time.Second {
			t.Errorf("the plan of %s took %v to fail", plan.what, took)
		}
		if held >= n {
			t.Errorf("the plan of %s sent %d requests to a service that never answers, want fewer than one per connector (%d)", plan.what, held, n)
		}
	}
}

// TestAccConnector_wrongKeyRefresh: after the first 401 the provider sends nothing more.
func TestAccConnector_wrongKeyRefresh(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the requests")
	const n = 200
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
	vars := e.ServiceEnv()
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false", "-parallelism=20")
	before := e.Sandbox.Stats().Requests
	_, err := eng.Try(dir, append(vars, providerenv.APIKey+"=wrong-key-"+strings.Repeat("9", 24)), "plan", "-input=false", "-no-color")
	sent := e.Sandbox.Stats().Requests - before
	if err == nil || !strings.Contains(err.Error(), "Authentication Failed") {
		t.Fatalf("the plan with a wrong key: %v", err)
	}
	t.Logf("%d requests; %d errors", sent, strings.Count(err.Error(), "Error: "))
	// At most the requests sent at once before the first 401 came back.
	if sent > 2*client.DefaultMaxConcurrentRequests {
		t.Errorf("the plan with a wrong key sent %d requests, want a handful", sent)
	}
}

// TestAccReliability_faults: an apply under 30% faults and slow answers completes,
// or fails leaving a state that matches the service; once the faults stop, the
// next apply converges with nothing doubled.
func TestAccReliability_faults(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 300})
	e.RequireSandbox(t, "inject faults")
	jobs, _ := acctest.ActiveJobs(t, e, 12)
	jobsVar := acctest.JobsVar(t, jobs)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(12, "", true))
	vars := e.ServiceEnv(jobsVar)
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 500, 502, 503, 504}, LatencyMS: 5, Seed: 11}); err != nil {
		t.Fatal(err)
	}

	out, err := eng.Try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	under := e.Sandbox.Stats()
	if err != nil {
		if !regexp.MustCompile(`HTTP (429|500|502|503|504)`).MatchString(err.Error()) {
			t.Fatalf("the apply under faults failed without naming the status:\n%v", err)
		}
		c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs)
		t.Logf("the apply under faults failed cleanly: %d connectors and %d triggers done, the rest refused with their status", c, tr)
	} else if !strings.Contains(out, "Apply complete!") {
		t.Fatalf("apply: %s", out)
	}
	t.Logf("under faults: %d requests served, %d faults injected", under.Requests, under.Faults)

	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs); c != 12 || tr != 12 {
		t.Errorf("after the second apply: %d connectors and %d jobs triggered, want 12 and 12", c, tr)
	}
	if got := unquoteNumber(t, eng.Outputs(t, dir)["seeded_jobs_listed"]); got != 300 {
		t.Errorf("the data source listed %d seeded jobs, want 300", got)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccReliability_interrupt: SIGINT while the provider waits out 503s with a
// Retry-After: Terraform exits promptly and the next apply converges.
func TestAccReliability_interrupt(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 40})
	e.RequireSandbox(t, "slow the service down")
	jobs, _ := acctest.ActiveJobs(t, e, 16)
	jobsVar := acctest.JobsVar(t, jobs)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(16, "max_retries = 10", true))
	vars := e.ServiceEnv(jobsVar)
	// Four answers in five are a 503 asking to come back in a second, so
	// that the apply is still running when it is interrupted.
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.8, Statuses: []int{503}, LatencyMS: 50, Seed: 5}); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(eng.Path, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=4")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.Env...), vars...)
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.Sandbox.Stats().Requests < 8 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	interrupted := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		took := time.Since(interrupted)
		t.Logf("Terraform exited %v after SIGINT (%v); %d requests served, %d faults", took.Round(time.Millisecond), err, e.Sandbox.Stats().Requests, e.Sandbox.Stats().Faults)
		if err == nil {
			t.Fatalf("the interrupted apply succeeded:\n%s", output.String())
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("Terraform still ran 15 s after SIGINT: the provider did not stop waiting\n%s", output.String())
	}
	c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs)
	t.Logf("interrupted with %d connectors and %d triggers done", c, tr)

	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs); c != 16 || tr != 16 {
		t.Errorf("after the next apply: %d connectors and %d jobs triggered, want 16 and 16", c, tr)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccReliability_degradedService: with 30% of requests answered 429 or 503,
// or reads 5xx, applies and refreshes succeed in one run with nothing doubled.
// make bench runs the same at scale.
func TestAccReliability_degradedService(t *testing.T) {
	t.Parallel()
	d := acctest.DegradedRun(t, acctest.NewEngine(t), 30, 12, 0.3)
	t.Logf("apply %v (%d requests, %d faults); refresh plan %v (%d requests, %d faults)",
		d.Apply.Round(time.Millisecond), d.Requests, d.Faults, d.Refresh.Round(time.Millisecond), d.RefreshReads, d.RefreshFaults)
}

// TestAccScale_requestCounts holds an apply and a refresh to the API's floor, as
// `make bench` does at scale: per connector a name check, a create and the list
// that settles a race; one trigger per job; one read per connector to refresh.
func TestAccScale_requestCounts(t *testing.T) {
	t.Parallel()
	const n = 20
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 40})
	e.RequireSandbox(t, "count the requests")
	jobs, _ := acctest.ActiveJobs(t, e, n)
	jobsVar := acctest.JobsVar(t, jobs)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
	vars := e.ServiceEnv(jobsVar)

	counts := func(run func()) (int64, map[string]int64) {
		before := e.Sandbox.Stats()
		run()
		after := e.Sandbox.Stats()
		diff := maps.Clone(after.ByRoute)
		for r, c := range before.ByRoute {
			if diff[r] -= c; diff[r] == 0 {
				delete(diff, r)
			}
		}
		return after.Requests - before.Requests, diff
	}
	// The key check of the creates is made once per provider process, the
	// plan's and the apply's, and so is the name list of their plans.
	total, byRoute := counts(func() { eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false") })
	lists := byRoute["GET "+acctest.RouteConnectors] - 2
	t.Logf("the apply sent %d requests %v", total, byRoute)
	if total != 2*n+2+lists || lists < 2 || lists > 2*n || byRoute["POST "+acctest.RouteConnectors] != n || byRoute[acctest.RouteRunJob] != n {
		t.Errorf("the apply sent %d requests %v, want %d creates, %d triggers, 2 key checks, a name list a process and at most two a create, nothing else", total, byRoute, n, n)
	}
	// The workspace's list is one page: the first read asks by ID, the
	// second reads the list, which answers the rest.
	total, byRoute = counts(func() { eng.ExpectConverged(t, dir, vars) })
	if total != 2 || byRoute["GET "+acctest.RouteConnectors+"{_id}/"] != 1 || byRoute["GET "+acctest.RouteConnectors] != 1 {
		t.Errorf("the plan sent %d requests %v, want one connector read and one list", total, byRoute)
	}
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

func unquoteNumber(t *testing.T, raw json.RawMessage) int {
	t.Helper()
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatalf("output %s is not a number: %v", raw, err)
	}
	return n
}
