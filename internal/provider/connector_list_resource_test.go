package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccConnectorList_query: `terraform query` lists the workspace's
// connectors, and no other workspace's unless asked.
func TestAccConnectorList_query(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapListResources)
	e := acctest.TwoWorkspaces(t, sandbox.Config{Jobs: 0}, "make a connector in a second workspace that the key reaches")
	names := []string{acctest.Name("list a"), acctest.Name("list b"), acctest.Name("list c")}
	made := make([]*client.Connector, len(names))
	for i, n := range names {
		made[i] = e.MakeConnector(t, n, "tickets", "chats")
	}
	theirs, err := e.Client(t).CreateConnector(context.Background(), acctest.SecondWorkspace, client.ConnectorSpec{
		Name: names[0], URL: "https://other.example-helpdesk.com", Token: "other-token", AgentEmail: "agent@other.com",
	})
	if err != nil {
		t.Fatal(err)
	}

	all := []querycheck.QueryResultCheck{querycheck.ExpectLength(acctest.ConnectorType+".all", len(made))}
	for i, c := range made {
		byID := queryfilter.ByResourceIdentity(acctest.ConnectorIdentityCheck(c.ID, e.WorkspaceID))
		all = append(all,
			querycheck.ExpectIdentity(acctest.ConnectorType+".all", acctest.ConnectorIdentityCheck(c.ID, e.WorkspaceID)),
			querycheck.ExpectResourceDisplayName(acctest.ConnectorType+".all", byID, knownvalue.StringExact(names[i])),
			querycheck.ExpectResourceKnownValues(acctest.ConnectorType+".all", byID, []querycheck.KnownValueCheck{
				{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact(c.ID)},
				{Path: tfjsonpath.New("workspace_id"), KnownValue: knownvalue.StringExact(e.WorkspaceID)},
				{Path: tfjsonpath.New("name"), KnownValue: knownvalue.StringExact(names[i])},
				{Path: tfjsonpath.New("url"), KnownValue: knownvalue.StringExact("https://acme.example-helpdesk.com")},
				{Path: tfjsonpath.New("agent_email"), KnownValue: knownvalue.StringExact("agent@acme.com")},
				{Path: tfjsonpath.New("streams"), KnownValue: acctest.StringsExact("tickets", "chats")},
				{Path: tfjsonpath.New("connector_name"), KnownValue: knownvalue.StringExact(client.ConnectorKindCustomerService)},
				{Path: tfjsonpath.New("created_at"), KnownValue: knownvalue.StringExact(c.CreatedAt)},
				{Path: tfjsonpath.New("token"), KnownValue: knownvalue.Null()},
				{Path: tfjsonpath.New("token_wo_version"), KnownValue: knownvalue.Null()},
			}),
		)
	}
	checks := append(all,
		querycheck.ExpectLength(acctest.ConnectorType+".by_name", 1),
		querycheck.ExpectIdentity(acctest.ConnectorType+".by_name", acctest.ConnectorIdentityCheck(made[0].ID, e.WorkspaceID)),
		querycheck.ExpectLength(acctest.ConnectorType+".second", 1),
		querycheck.ExpectIdentity(acctest.ConnectorType+".second", acctest.ConnectorIdentityCheck(theirs.ID, acctest.SecondWorkspace)),
		querycheck.ExpectLength(acctest.ConnectorType+".two", 2),
	)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.ProviderConfig()},
			{
				Query: true,
				Config: acctest.ListBlock("all", []string{"include_resource = true"}, nil) +
					acctest.ListBlock("by_name", nil, []string{fmt.Sprintf("name = %q", names[0])}) +
					acctest.ListBlock("second", nil, []string{fmt.Sprintf("workspace_id = %q", acctest.SecondWorkspace)}) +
					acctest.ListBlock("two", []string{"limit = 2"}, nil),
				QueryResultChecks: checks,
			},
		},
	})
	if ids := e.Sandbox.ConnectorIDs(e.WorkspaceID); len(ids) != len(made) {
		t.Errorf("the workspace holds %d connectors after the queries, want %d", len(ids), len(made))
	}
}

// TestAccConnectorList_refused: bad arguments are refused before any request; a
// workspace out of the key's reach, by the service.
func TestAccConnectorList_refused(t *testing.T) {
	const other, otherKey = "33333333-3333-4333-8333-333333333333", "key-of-the-other-workspace"
	acctest.RequireCapability(t, acctest.CapListResources)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0, Keys: []sandbox.KeyBinding{
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: sandbox.DefaultWorkspaceID},
		{APIKey: otherKey, WorkspaceID: other},
	}})
	e.RequireSandbox(t, "bind a second key to a second workspace")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: noWorkspaceEnv().factories(),
		Steps: []resource.TestStep{
			{Config: e.ProviderConfig()},
			{
				Query:       true,
				Config:      acctest.ListBlock("blank", nil, []string{`name = "  "`}),
				ExpectError: acctest.Phrases("Invalid Attribute Value", "name: the value is blank"),
			},
			{
				Query:       true,
				Config:      acctest.ListBlock("bad", nil, []string{`workspace_id = "support"`}),
				ExpectError: acctest.Phrases("Invalid Attribute Value", "Allowed: a UUID"),
			},
			{Config: e.ProviderWithoutWorkspace()},
			{
				Query:       true,
				Config:      acctest.ListBlock("none", nil, nil),
				ExpectError: acctest.Phrases("Missing Workspace", "set workspace_id here"),
			},
			{Config: e.ProviderConfig()},
			{
				Query:       true,
				Config:      acctest.ListBlock("theirs", nil, []string{fmt.Sprintf("workspace_id = %q", other)}),
				ExpectError: acctest.Phrases("Access Denied", "no access to workspace "+other, "HTTP 403"),
			},
		},
	})
	if got := e.Sandbox.Stats().Requests; got != 1 {
		t.Errorf("the sandbox served %d requests (%v), want one: the refused list of the other workspace", got, e.Sandbox.Stats().ByRoute)
	}
}

// TestConnectorList_pagesUpToLimit: no page is read past the limit.
func TestConnectorList_pagesUpToLimit(t *testing.T) {
	t.Parallel()
	const n = 250
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the list requests")
	c := e.Client(t)
	for i := range n {
		if _, err := c.CreateConnector(context.Background(), e.WorkspaceID, client.ConnectorSpec{
			Name: fmt.Sprintf("desk %03d", i), URL: "https://acme.example-helpdesk.com", Token: "t", AgentEmail: "agent@acme.com",
		}); err != nil {
			t.Fatal(err)
		}
	}
	p := newProtoProvider(t, map[string]string{"base_url": e.BaseURL, "api_key": e.APIKey, "workspace_id": e.WorkspaceID})
	for _, tc := range []struct {
		limit       int64
		want, pages int
		include     bool
	}{
		{limit: 100, want: 100, pages: 1},
		{limit: 101, want: 101, pages: 2},
		{limit: 1000, want: n, pages: 3, include: true},
	} {
		before := e.Sandbox.Stats().ByRoute["GET "+acctest.RouteConnectors]
		results := listConnectors(p, t, nil, tc.limit, tc.include)
		if len(results) != tc.want {
			t.Errorf("limit %d: %d results, want %d", tc.limit, len(results), tc.want)
		}
		if got := e.Sandbox.Stats().ByRoute["GET "+acctest.RouteConnectors] - before; got != int64(tc.pages) {
			t.Errorf("limit %d: %d pages read, want %d", tc.limit, got, tc.pages)
		}
		seen := map[string]bool{}
		for _, r := range results {
			if r.Identity == nil || r.Identity.IdentityData == nil {
				t.Fatalf("limit %d: result %q has no identity", tc.limit, r.DisplayName)
			}
			if seen[r.DisplayName] || !regexp.MustCompile(`^desk \d{3}$`).MatchString(r.DisplayName) {
				t.Errorf("limit %d: display name %q twice, or not a connector's name", tc.limit, r.DisplayName)
			}
			seen[r.DisplayName] = true
			if (r.Resource != nil) != tc.include {
				t.Errorf("limit %d: resource given: %v, want %v", tc.limit, r.Resource != nil, tc.include)
			}
		}
	}
	before := e.Sandbox.Stats().ByRoute["GET "+acctest.RouteConnectors]
	if got := listConnectors(p, t, map[string]string{"name": "desk 201"}, 100, false); len(got) != 1 || got[0].DisplayName != "desk 201" {
		t.Errorf("the list by name gave %d results (%v), want desk 201", len(got), got)
	}
	// A name check and a lookup by name send one request too.
	if found, err := connectorsByName(context.Background(), c, e.WorkspaceID, "desk 117"); err != nil || len(found) != 1 {
		t.Errorf("connectorsByName: %v, %v", found, err)
	}
	if got := e.Sandbox.Stats().ByRoute["GET "+acctest.RouteConnectors] - before; got != 2 {
		t.Errorf("two lists by name: %d requests, want 2", got)
	}
}

// listConnectors lists connectors as `terraform query` asks for them, and
// fails on an error diagnostic.
func listConnectors(p *acctest.ProtoProvider, tb testing.TB, config map[string]string, limit int64, include bool) []tfprotov6.ListResourceResult {
	tb.Helper()
	cfg := acctest.ProtoValue(tb, p.Schemas.ListResourceSchemas[acctest.ConnectorType], config)
	// ListResource, whichever interface of terraform-plugin-go holds it.
	srv, ok := p.Server.(interface {
		ListResource(context.Context, *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error)
	})
	if !ok {
		tb.Fatalf("the provider server %T serves no list resource", p.Server)
	}
	stream, err := srv.ListResource(context.Background(), &tfprotov6.ListResourceRequest{
		TypeName: acctest.ConnectorType, Config: &cfg, Limit: limit, IncludeResource: include,
	})
	if err != nil {
		tb.Fatal(err)
	}
	var out []tfprotov6.ListResourceResult
	for r := range stream.Results {
		acctest.FailOnProto(tb, r.Diagnostics)
		out = append(out, r)
	}
	return out
}

// tokenVariable declares the token that the generated configuration is
// given by hand.
const tokenVariable = `
variable "platform_token" {
  type      = string
  sensitive = true
}
`

// queryFound is a connector that `terraform query -json` found.
type queryFound struct {
	Address     string            `json:"address"`
	DisplayName string            `json:"display_name"`
	Identity    map[string]string `json:"identity"`
}

// query runs `terraform query -json` in dir with extra arguments, and
// returns what it found.
func query(eng *acctest.Engine, t testing.TB, dir string, env []string, args ...string) []queryFound {
	t.Helper()
	out := eng.Run(t, dir, env, append([]string{"query", "-json", "-no-color"}, args...)...)
	var found []queryFound
	lines := bufio.NewScanner(strings.NewReader(out))
	for lines.Scan() {
		var msg struct {
			Type  string     `json:"type"`
			Found queryFound `json:"list_resource_found"`
		}
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Fatalf("query -json printed %q: %v", lines.Text(), err)
		}
		if msg.Type == "list_resource_found" {
			found = append(found, msg.Found)
		}
	}
	return found
}

// TestAccConnectorList_generateConfig adopts connectors as the list resource's
// docs say, with `terraform query -generate-config-out`.
func TestAccConnectorList_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.RequireCapability(t, acctest.CapListResources)
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "have a workspace of the test's own: the query adopts every connector in it")
	names := []string{acctest.Name("adopt a"), acctest.Name("adopt b"), acctest.Name("adopt c")}
	var ids []string
	for _, n := range names {
		ids = append(ids, e.MakeConnector(t, n, "tickets").ID)
	}
	dir := acctest.ConfigDir(t, e.ProviderConfig()+tokenVariable)
	if err := os.WriteFile(filepath.Join(dir, "connectors.tfquery.hcl"), []byte(acctest.ListBlock("all", []string{"include_resource = true"}, nil)), 0o600); err != nil {
		t.Fatal(err)
	}

	token := "TF_VAR_platform_token=" + acctest.Name("token")
	found := query(eng, t, dir, []string{token})
	if len(found) != len(names) {
		t.Fatalf("query found %+v, want the %d connectors", found, len(names))
	}
	for _, f := range found {
		i := slices.Index(names, f.DisplayName)
		if i < 0 || f.Identity["id"] != ids[i] || f.Identity["workspace_id"] != e.WorkspaceID {
			t.Errorf("query found %+v, which is none of the connectors %v", f, ids)
		}
	}

	eng.Run(t, dir, []string{token}, "query", "-no-color", "-generate-config-out=generated.tf")
	generated, err := os.ReadFile(filepath.Join(dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(acctest.GeneratedTokenLine.FindAll(generated, -1)); n != len(names) {
		t.Fatalf("the generated file has %d `token = null` lines, want one per connector:\n%s", n, generated)
	}
	for _, id := range ids {
		if !regexp.MustCompile(`(?m)^\s*id\s*=\s*"` + id + `"$`).Match(generated) {
			t.Errorf("the generated file imports no connector %s:\n%s", id, generated)
		}
	}
	edited := acctest.GeneratedTokenLine.ReplaceAll(generated, []byte(`${1}token = var.platform_token`))
	if err := os.WriteFile(filepath.Join(dir, "generated.tf"), edited, 0o600); err != nil {
		t.Fatal(err)
	}

	actions, imports := eng.Plan(t, dir, []string{token})
	if len(actions) != len(names) || len(imports) != len(names) {
		t.Errorf("the plan has actions %v and imports %v, want %d imports", actions, imports, len(names))
	}
	for address := range actions {
		acctest.ExpectActions(t, actions, address, "update")
	}
	eng.Run(t, dir, []string{token}, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, []string{token})

	if held := e.Sandbox.ConnectorIDs(e.WorkspaceID); !acctest.SameIDs(held, ids) {
		t.Errorf("the workspace holds connectors %v, want the same three %v", held, ids)
	}
	for _, id := range ids {
		if v, _ := e.Sandbox.Connector(e.WorkspaceID, id); v.Token != strings.TrimPrefix(token, "TF_VAR_platform_token=") || v.TokenWrites != 2 {
			t.Errorf("connector %s was sent the token %d times in all, want twice: when made, and once on adoption", id, v.TokenWrites)
		}
	}
	if got := eng.StateIDs(t, dir, acctest.ConnectorType); len(got) != len(ids) {
		t.Errorf("the state holds connectors %v, want the three", got)
	}
}

// TestAccConnectorList_adoptLostState: a connector whose state was lost would be
// created a second time; `terraform query` finds it, and its identity adopts it.
func TestAccConnectorList_adoptLostState(t *testing.T) {
	t.Parallel()
	acctest.RequireCapability(t, acctest.CapListResources)
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the workspace's connectors")
	names := []string{acctest.Name("kept a"), acctest.Name("lost b"), acctest.Name("kept c")}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	config := e.ProviderConfig() + fmt.Sprintf(`
resource "dataintegration_customer_service_connector" "desk" {
  for_each    = toset([%s])
  name        = each.key
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = "platform-token-1"
}
`, strings.Join(quoted, ", "))
	dir := acctest.ConfigDir(t, config)
	eng.Run(t, dir, nil, "apply", "-auto-approve", "-input=false", "-no-color")
	t.Cleanup(func() { eng.Run(t, dir, nil, "destroy", "-auto-approve", "-input=false", "-no-color") })
	before := e.Sandbox.ConnectorIDs(e.WorkspaceID)
	lost := fmt.Sprintf("%s.desk[%q]", acctest.ConnectorType, names[1])
	eng.Run(t, dir, nil, "state", "rm", lost)

	// The duplicate that adoption avoids fails the plan.
	if out, err := eng.Try(dir, nil, "plan", "-input=false", "-no-color"); err == nil ||
		!acctest.Phrases("Connector Name Taken", fmt.Sprintf("already holds a connector named %q", names[1])).MatchString(err.Error()) {
		t.Errorf("the plan of the lost connector: want Connector Name Taken: %v\n%s", err, out)
	}

	if err := os.WriteFile(filepath.Join(dir, "lost.tfquery.hcl"), []byte(acctest.ListBlock("lost", nil, []string{fmt.Sprintf("name = %q", names[1])})), 0o600); err != nil {
		t.Fatal(err)
	}
	found := query(eng, t, dir, nil)
	if len(found) != 1 || found[0].DisplayName != names[1] {
		t.Fatalf("query by name found %+v, want the lost connector alone", found)
	}
	adopt := acctest.IdentityImportBlock(lost, "id", fmt.Sprintf("%q", found[0].Identity["id"]), "workspace_id", fmt.Sprintf("%q", found[0].Identity["workspace_id"]))
	if err := os.WriteFile(filepath.Join(dir, "adopt.tf"), []byte(adopt), 0o600); err != nil {
		t.Fatal(err)
	}
	actions, imports := eng.Plan(t, dir, nil)
	acctest.ExpectActions(t, actions, lost, "update") // the token, sent once
	if len(imports) != 1 || imports[0] != lost {
		t.Errorf("the plan imports %v, want %s", imports, lost)
	}
	for address, a := range actions {
		if address != lost && !slices.Equal(a, []string{"no-op"}) {
			t.Errorf("%s: planned %v, want no change", address, a)
		}
	}
	eng.Run(t, dir, nil, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, nil)
	if after := e.Sandbox.ConnectorIDs(e.WorkspaceID); !acctest.SameIDs(after, before) {
		t.Errorf("the workspace holds connectors %v, want the same as before %v", after, before)
	}
	if got := eng.StateIDs(t, dir, acctest.ConnectorType); len(got) != len(names) {
		t.Errorf("the state holds connectors %v, want the three", got)
	}
}

// TestAccLists_serviceVariantsActionsAndQuery: the actions' lookups and the list
// resource, against each service of serviceVariants.
func TestAccLists_serviceVariantsActionsAndQuery(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActions)
	acctest.RequireCapability(t, acctest.CapListResources)
	for label, v := range serviceVariants {
		t.Run(label, func(t *testing.T) {
			name := acctest.Name("variant")
			e := newVariantEnv(t, v, name, time.Hour)
			made := []string{e.other.ID}
			for i := range 30 {
				made = append(made, e.MakeConnector(t, fmt.Sprintf("%s %02d", name, i)).ID)
			}
			exact := e.MakeConnector(t, name)
			made = append(made, exact.ID)
			run := e.ProviderConfig() + acctest.RunJobHCL("run", "a", `    job_name = "nightly"`)
			cancel := run + `
action "dataintegration_cancel_job" "cancel" {
  config {
    job_name = "nightly"
  }
}

resource "terraform_data" "cancel" {
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.dataintegration_cancel_job.cancel]
    }
  }
}
`
			all := []querycheck.QueryResultCheck{querycheck.ExpectLength(acctest.ConnectorType+".all", len(made))}
			for _, id := range made {
				all = append(all, querycheck.ExpectIdentity(acctest.ConnectorType+".all", acctest.ConnectorIdentityCheck(id, e.WorkspaceID)))
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{Config: run, Check: e.expectOnlyNightlyRan(sandbox.StatusRunning)},
					{Config: cancel, Check: e.expectOnlyNightlyRan(sandbox.StatusCancelled)},
					{
						Query: true,
						Config: acctest.ListBlock("all", nil, nil) +
							acctest.ListBlock("by_name", nil, []string{fmt.Sprintf("name = %q", name)}),
						QueryResultChecks: append(all,
							querycheck.ExpectLength(acctest.ConnectorType+".by_name", 1),
							querycheck.ExpectIdentity(acctest.ConnectorType+".by_name", acctest.ConnectorIdentityCheck(exact.ID, e.WorkspaceID)),
						),
					},
				},
			})
		})
	}
}
