package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

const connectorType = "dataintegration_customer_service_connector"

// listBlock is a list block of connectors for a .tfquery.hcl file; args
// are its own arguments and config its configuration's, each a line of HCL.
func listBlock(name string, args, config []string) string {
	inner := make([]string, len(config))
	for i, l := range config {
		inner[i] = "  " + l
	}
	return fmt.Sprintf("list %q %q {\n  provider = dataintegration\n%s  config {\n%s  }\n}\n",
		connectorType, name, indentLines(args), indentLines(inner))
}

// connectorIdentityCheck is the identity of connector id in workspace ws.
func connectorIdentityCheck(id, ws string) map[string]knownvalue.Check {
	return map[string]knownvalue.Check{"id": knownvalue.StringExact(id), "workspace_id": knownvalue.StringExact(ws)}
}

// TestAccConnectorList_query lists connectors made outside Terraform with
// `terraform query`: every connector of the workspace (and no other
// workspace's, though the key reaches a second one holding a connector of
// the same name), each with its identity, its name as display name and,
// with include_resource, its attributes; one by its exact name; those of
// the second workspace when asked for; as many as the limit.
func TestAccConnectorList_query(t *testing.T) {
	e := twoWorkspaces(t, sandbox.Config{Jobs: 0}, "make a connector in a second workspace that the key reaches")
	requireCapability(t, capListResources)
	names := []string{testName("list a"), testName("list b"), testName("list c")}
	made := make([]*client.Connector, len(names))
	for i, n := range names {
		made[i] = e.makeConnector(t, n, "tickets", "chats")
	}
	theirs, err := e.client(t).CreateConnector(context.Background(), secondWorkspace, client.ConnectorSpec{
		Name: names[0], URL: "https://other.example-helpdesk.com", Token: "other-token", AgentEmail: "agent@other.com",
	})
	if err != nil {
		t.Fatal(err)
	}

	all := []querycheck.QueryResultCheck{querycheck.ExpectLength(connectorType+".all", len(made))}
	for i, c := range made {
		byID := queryfilter.ByResourceIdentity(connectorIdentityCheck(c.ID, e.workspaceID))
		all = append(all,
			querycheck.ExpectIdentity(connectorType+".all", connectorIdentityCheck(c.ID, e.workspaceID)),
			querycheck.ExpectResourceDisplayName(connectorType+".all", byID, knownvalue.StringExact(names[i])),
			querycheck.ExpectResourceKnownValues(connectorType+".all", byID, []querycheck.KnownValueCheck{
				{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact(c.ID)},
				{Path: tfjsonpath.New("workspace_id"), KnownValue: knownvalue.StringExact(e.workspaceID)},
				{Path: tfjsonpath.New("name"), KnownValue: knownvalue.StringExact(names[i])},
				{Path: tfjsonpath.New("url"), KnownValue: knownvalue.StringExact("https://acme.example-helpdesk.com")},
				{Path: tfjsonpath.New("agent_email"), KnownValue: knownvalue.StringExact("agent@acme.com")},
				{Path: tfjsonpath.New("streams"), KnownValue: stringsExact("tickets", "chats")},
				{Path: tfjsonpath.New("connector_name"), KnownValue: knownvalue.StringExact(client.ConnectorKindCustomerService)},
				{Path: tfjsonpath.New("created_at"), KnownValue: knownvalue.StringExact(c.CreatedAt)},
				{Path: tfjsonpath.New("token"), KnownValue: knownvalue.Null()},
				{Path: tfjsonpath.New("token_wo_version"), KnownValue: knownvalue.Null()},
			}),
		)
	}
	checks := append(all,
		querycheck.ExpectLength(connectorType+".by_name", 1),
		querycheck.ExpectIdentity(connectorType+".by_name", connectorIdentityCheck(made[0].ID, e.workspaceID)),
		querycheck.ExpectLength(connectorType+".second", 1),
		querycheck.ExpectIdentity(connectorType+".second", connectorIdentityCheck(theirs.ID, secondWorkspace)),
		querycheck.ExpectLength(connectorType+".two", 2),
	)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.providerConfig()},
			{
				Query: true,
				Config: listBlock("all", []string{"include_resource = true"}, nil) +
					listBlock("by_name", nil, []string{fmt.Sprintf("name = %q", names[0])}) +
					listBlock("second", nil, []string{fmt.Sprintf("workspace_id = %q", secondWorkspace)}) +
					listBlock("two", []string{"limit = 2"}, nil),
				QueryResultChecks: checks,
			},
		},
	})
	if ids := e.sandbox.ConnectorIDs(e.workspaceID); len(ids) != len(made) {
		t.Errorf("the workspace holds %d connectors after the queries, want %d", len(ids), len(made))
	}
}

// TestAccConnectorList_refused: a blank name, an invalid workspace and no
// workspace at all are refused before any request; a workspace the key
// cannot reach is refused by the service, and the error says so with its
// status and message.
func TestAccConnectorList_refused(t *testing.T) {
	const other, otherKey = "33333333-3333-4333-8333-333333333333", "key-of-the-other-workspace"
	e := newTestEnv(t, sandbox.Config{Jobs: 0, Keys: []sandbox.KeyBinding{
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: sandbox.DefaultWorkspaceID},
		{APIKey: otherKey, WorkspaceID: other},
	}})
	e.requireSandbox(t, "bind a second key to a second workspace")
	requireCapability(t, capListResources)
	t.Setenv(EnvWorkspaceID, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.providerConfig()},
			{
				Query:       true,
				Config:      listBlock("blank", nil, []string{`name = "  "`}),
				ExpectError: phrases("Invalid Attribute Value", "name: the value is blank"),
			},
			{
				Query:       true,
				Config:      listBlock("bad", nil, []string{`workspace_id = "support"`}),
				ExpectError: phrases("Invalid Attribute Value", "Allowed: a UUID"),
			},
			{Config: e.providerWithoutWorkspace()},
			{
				Query:       true,
				Config:      listBlock("none", nil, nil),
				ExpectError: phrases("Missing Workspace", "set workspace_id here"),
			},
			{Config: e.providerConfig()},
			{
				Query:       true,
				Config:      listBlock("theirs", nil, []string{fmt.Sprintf("workspace_id = %q", other)}),
				ExpectError: phrases("Access Denied", "no access to workspace "+other, "HTTP 403"),
			},
		},
	})
	if got := e.sandbox.Stats().Requests; got != 1 {
		t.Errorf("the sandbox served %d requests (%v), want one: the refused list of the other workspace", got, e.sandbox.Stats().ByRoute)
	}
}

// TestConnectorList_pagesUpToLimit lists 250 connectors, 100 a page, over
// protocol 6 as Terraform asks for them: every page is read when the limit
// allows it, no page beyond the one that reaches the limit, and a list by
// name sends one request.
func TestConnectorList_pagesUpToLimit(t *testing.T) {
	const n = 250
	e := newTestEnv(t, sandbox.Config{Jobs: 0})
	e.requireSandbox(t, "count the list requests")
	c := e.client(t)
	for i := range n {
		if _, err := c.CreateConnector(context.Background(), e.workspaceID, client.ConnectorSpec{
			Name: fmt.Sprintf("desk %03d", i), URL: "https://acme.example-helpdesk.com", Token: "t", AgentEmail: "agent@acme.com",
		}); err != nil {
			t.Fatal(err)
		}
	}
	p := newProtoProvider(t, map[string]string{"base_url": e.baseURL, "api_key": e.apiKey, "workspace_id": e.workspaceID})
	for _, tc := range []struct {
		limit       int64
		want, pages int
		include     bool
	}{
		{limit: 100, want: 100, pages: 1},
		{limit: 101, want: 101, pages: 2},
		{limit: 1000, want: n, pages: 3, include: true},
	} {
		before := e.sandbox.Stats().ByRoute["GET "+routeConnectors]
		results := p.listConnectors(t, nil, tc.limit, tc.include)
		if len(results) != tc.want {
			t.Errorf("limit %d: %d results, want %d", tc.limit, len(results), tc.want)
		}
		if got := e.sandbox.Stats().ByRoute["GET "+routeConnectors] - before; got != int64(tc.pages) {
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
	before := e.sandbox.Stats().ByRoute["GET "+routeConnectors]
	if got := p.listConnectors(t, map[string]string{"name": "desk 201"}, 100, false); len(got) != 1 || got[0].DisplayName != "desk 201" {
		t.Errorf("the list by name gave %d results (%v), want desk 201", len(got), got)
	}
	// A name check and a lookup by name send one request too.
	if found, err := connectorsByName(context.Background(), c, e.workspaceID, "desk 117"); err != nil || len(found) != 1 {
		t.Errorf("connectorsByName: %v, %v", found, err)
	}
	if got := e.sandbox.Stats().ByRoute["GET "+routeConnectors] - before; got != 2 {
		t.Errorf("two lists by name: %d requests, want 2", got)
	}
}

// listConnectors lists connectors as `terraform query` asks for them, and
// fails on an error diagnostic.
func (p *protoProvider) listConnectors(tb testing.TB, config map[string]string, limit int64, include bool) []tfprotov6.ListResourceResult {
	tb.Helper()
	cfg := protoValue(tb, p.schemas.ListResourceSchemas[connectorType], config)
	// ListResource, whichever interface of terraform-plugin-go holds it.
	srv, ok := p.srv.(interface {
		ListResource(context.Context, *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error)
	})
	if !ok {
		tb.Fatalf("the provider server %T serves no list resource", p.srv)
	}
	stream, err := srv.ListResource(context.Background(), &tfprotov6.ListResourceRequest{
		TypeName: connectorType, Config: &cfg, Limit: limit, IncludeResource: include,
	})
	if err != nil {
		tb.Fatal(err)
	}
	var out []tfprotov6.ListResourceResult
	for r := range stream.Results {
		failOnProto(tb, r.Diagnostics)
		out = append(out, r)
	}
	return out
}
