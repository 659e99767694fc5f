package provider

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The tests of this package use four harnesses, one file each. Take the
// first that can show what a test asserts:
//
//   - testEnv (this file), with resource.Test: configurations applied step by
//     step by the engine under test, with plan and state checks, against a
//     sandbox of the test's own or the real service. Most acceptance tests.
//   - engine (engine_test.go): the engine's CLI run by hand with the provider
//     built from this tree, as a user runs it, for what resource.Test cannot
//     do: the examples and guides in their folders, TF_LOG, a SIGINT,
//     -generate-config-out, warnings on a successful plan.
//   - protoProvider (protocol_test.go): the provider over protocol 6,
//     in-process, with no engine: a validation or a read exactly as
//     Terraform asks for it, request counts at scale, benchmarks.
//   - the unit helpers (unit_test.go): a resource's methods called directly,
//     with a client to a sandbox, for outcomes an engine cannot set up: a
//     destroy from a stale state, an answer refused or lost.
//
// Variables are named after their harness: e for a *testEnv, eng for an
// *engine, p for a *protoProvider. Whichever the harness, an acceptance test
// fails when its engine printed one of its secrets (cli_output_test.go).

// testAccProtoV6ProviderFactories serves the provider in-process to the
// Terraform CLI that the acceptance tests drive.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"dataintegration": NewServer("test"),
}

// testEnv is the service one acceptance test runs against: a sandbox of its
// own, started in-process, or the real service when DATAINTEGRATION_BASE_URL,
// DATAINTEGRATION_API_KEY and DATAINTEGRATION_WORKSPACE_ID are all set.
type testEnv struct {
	baseURL, apiKey, workspaceID string
	// sandbox is nil against the real service.
	sandbox *sandbox.Server
}

func newTestEnv(t testing.TB, cfg sandbox.Config) *testEnv {
	t.Helper()
	base, key, ws := os.Getenv(EnvBaseURL), os.Getenv(EnvAPIKey), os.Getenv(EnvWorkspaceID)
	if base != "" && key != "" && ws != "" {
		expectNoSecretPrinted(t, key)
		return &testEnv{baseURL: base, apiKey: key, workspaceID: ws}
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	key = sandbox.DefaultAPIKey
	if len(cfg.Keys) > 0 {
		key = cfg.Keys[0].APIKey
	}
	expectNoSecretPrinted(t, key)
	return &testEnv{baseURL: ts.URL, apiKey: key, workspaceID: srv.Workspaces()[0], sandbox: srv}
}

// requireSandbox skips a test that needs the sandbox's side door.
func (e *testEnv) requireSandbox(t testing.TB, why string) {
	t.Helper()
	if e.sandbox == nil {
		t.Skipf("skipped against the real service: this test needs the sandbox's side door to %s", why)
	}
}

// letteredWorkspace is a sandbox workspace whose ID has letters, so that its
// case can change.
var letteredWorkspace = []sandbox.KeyBinding{{APIKey: sandbox.DefaultAPIKey, WorkspaceID: "0000000a-0000-4000-8000-00000000000b"}}

// secondWorkspace is a second workspace that twoWorkspaces binds the
// default key to.
const secondWorkspace = "22222222-2222-4222-8222-222222222222"

// twoWorkspaces is a sandbox whose key reaches its default workspace and
// secondWorkspace; the test is skipped against the real service.
func twoWorkspaces(t *testing.T, cfg sandbox.Config, why string) *testEnv {
	t.Helper()
	cfg.Keys = []sandbox.KeyBinding{
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: sandbox.DefaultWorkspaceID},
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: secondWorkspace},
	}
	e := newTestEnv(t, cfg)
	e.requireSandbox(t, why)
	return e
}

// The configuration a step applies.

// providerConfig is a provider block with every setting given, so that the
// environment of whoever runs the tests plays no part; extra lines are
// added inside it.
func (e *testEnv) providerConfig(extra ...string) string {
	return fmt.Sprintf(`
provider "dataintegration" {
  base_url     = %q
  api_key      = %q
  workspace_id = %q
%s}
`, e.baseURL, e.apiKey, e.workspaceID, indentLines(extra))
}

// providerWithWorkspace is a provider block like providerConfig's, with the
// given default workspace.
func (e *testEnv) providerWithWorkspace(ws string) string {
	return providerBlock(e.baseURL, e.apiKey, ws)
}

// providerWithoutWorkspace is a provider block like providerConfig's, with
// no default workspace.
func (e *testEnv) providerWithoutWorkspace() string {
	return providerBlock(e.baseURL, e.apiKey, "")
}

// providerWithKey is a provider block like providerConfig's, with the given
// API key.
func (e *testEnv) providerWithKey(apiKey string) string {
	return providerBlock(e.baseURL, apiKey, e.workspaceID)
}

// providerBlock is a provider block of the given settings; workspace_id is
// left out when ws is "".
func providerBlock(baseURL, apiKey, ws string) string {
	b := fmt.Sprintf("provider \"dataintegration\" {\n  base_url     = %q\n  api_key      = %q\n", baseURL, apiKey)
	if ws != "" {
		b += fmt.Sprintf("  workspace_id = %q\n", ws)
	}
	return b + "}\n"
}

func indentLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// upperWorkspace is the test's workspace in upper case; it skips the test
// when the ID has no letter to change.
func (e *testEnv) upperWorkspace(t *testing.T) string {
	t.Helper()
	upper := strings.ToUpper(e.workspaceID)
	if upper == e.workspaceID {
		t.Skipf("the workspace ID %s has no letter whose case could change", e.workspaceID)
	}
	return upper
}

// serviceEnv is the environment a guide tells its reader to export.
func (e *testEnv) serviceEnv(extra ...string) []string {
	return append([]string{
		EnvBaseURL + "=" + e.baseURL, EnvAPIKey + "=" + e.apiKey, EnvWorkspaceID + "=" + e.workspaceID,
	}, extra...)
}

// The service seen directly, as someone outside Terraform sees it.

// client is an API client of the same service, for a test's own look at it,
// its configuration changed by edit.
func (e *testEnv) client(t testing.TB, edit ...func(*client.Config)) *client.Client {
	t.Helper()
	conf := client.Config{BaseURL: e.baseURL, APIKey: e.apiKey, Version: "test"}
	for _, ed := range edit {
		ed(&conf)
	}
	c, err := client.New(conf)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// allJobs lists every job of the test's workspace through the client.
func (e *testEnv) allJobs(t testing.TB) []client.Job {
	t.Helper()
	return e.jobsOneByOne(t, client.JobFilter{})
}

// jobsOneByOne lists the test's jobs that f selects, one page after another
// (max_concurrent_requests = 1): the oracle of a list read side by side.
func (e *testEnv) jobsOneByOne(t testing.TB, f client.JobFilter) []client.Job {
	t.Helper()
	c := e.client(t, func(c *client.Config) { c.MaxConcurrentRequests = 1 })
	v, jobs := client.Collect[client.Job](nil, 0)
	if err := c.EachJobPage(context.Background(), e.workspaceID, f, v); err != nil {
		t.Fatal(err)
	}
	return *jobs
}

// activeJobs are the IDs of the sandbox's first n active jobs, and inactive
// the ID of an inactive one.
func activeJobs(t testing.TB, e *testEnv, n int) (active []string, inactive string) {
	t.Helper()
	for _, j := range e.sandbox.Jobs(e.workspaceID) {
		switch {
		case j.IsActive && len(active) < n:
			active = append(active, j.ID)
		case !j.IsActive && inactive == "":
			inactive = j.ID
		}
	}
	if len(active) < n || inactive == "" {
		t.Fatalf("the sandbox has %d active jobs, want %d, and an inactive one (%q)", len(active), n, inactive)
	}
	return active, inactive
}

// makeConnector creates a connector through the API, as someone outside
// Terraform would, and deletes it when the test ends.
func (e *testEnv) makeConnector(t *testing.T, name string, streams ...string) *client.Connector {
	t.Helper()
	c := e.client(t)
	made, err := c.CreateConnector(context.Background(), e.workspaceID, client.ConnectorSpec{
		Name: name, URL: "https://acme.example-helpdesk.com", Token: "outside-token", AgentEmail: "agent@acme.com", Streams: streams,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.DeleteConnector(context.Background(), e.workspaceID, made.ID) })
	return made
}

// Checks of what the service holds or served after a step.

const routeListJobs = "GET /developers/workspaces/{workspace_id}/jobs/"

// expectRouteCount checks, once the step is applied, how many requests the
// sandbox served on a route.
func (e *testEnv) expectRouteCount(route string, want int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := e.sandbox.Stats().ByRoute[route]; got != want {
			return fmt.Errorf("sandbox served %d requests on %q, want %d", got, route, want)
		}
		return nil
	}
}

// expectNoRequests checks that the sandbox served no request at all: for
// configurations that must fail before any is sent.
func (e *testEnv) expectNoRequests(t *testing.T) {
	t.Helper()
	if e.sandbox == nil {
		return
	}
	if st := e.sandbox.Stats(); st.Requests != 0 {
		t.Errorf("the sandbox served %d requests (%v), want none", st.Requests, st.ByRoute)
	}
}

// expectStored checks the test's connector as the sandbox holds it,
// token included. Against the real service, which never shows a token, the
// check is logged and left out.
func (e *testEnv) expectStored(t *testing.T, check func(sandbox.ConnectorView) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if e.sandbox == nil {
			t.Logf("not checked against the real service: what the sandbox holds for %s", connectorAddress)
			return nil
		}
		rs, ok := s.RootModule().Resources[connectorAddress]
		if !ok {
			return fmt.Errorf("%s is not in the state", connectorAddress)
		}
		v, ok := e.sandbox.Connector(rs.Primary.Attributes["workspace_id"], rs.Primary.ID)
		if !ok {
			return fmt.Errorf("the sandbox holds no connector %s", rs.Primary.ID)
		}
		return check(v)
	}
}

// connectorsGone is a CheckDestroy: no connector of the state is left in
// the service.
func (e *testEnv) connectorsGone(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		c := e.client(t)
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "dataintegration_customer_service_connector" {
				continue
			}
			_, err := c.GetConnector(context.Background(), rs.Primary.Attributes["workspace_id"], rs.Primary.ID)
			if !client.IsNotFound(err) {
				return fmt.Errorf("connector %s: want 404 after destroy, got %w", rs.Primary.ID, err)
			}
		}
		return nil
	}
}

// expectMoved checks that a connector moved from the test's workspace to
// workspace to: the sandbox holds *moved there and no longer holds *first
// in the test's workspace. The IDs are read when the check runs, after
// captureID has stored them.
func (e *testEnv) expectMoved(first, moved *string, to string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if _, ok := e.sandbox.Connector(to, *moved); !ok {
			return fmt.Errorf("no connector %s in workspace %s", *moved, to)
		}
		if _, ok := e.sandbox.Connector(e.workspaceID, *first); ok {
			return fmt.Errorf("connector %s is still in workspace %s", *first, e.workspaceID)
		}
		return nil
	}
}

// expectExecutions checks a job's executions: one per want, oldest first,
// with want's status and force_full_refresh (status "" is not checked).
func (e *testEnv) expectExecutions(jobID string, want ...sandbox.Execution) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := e.sandbox.Executions(e.workspaceID, jobID)
		if len(got) != len(want) {
			return fmt.Errorf("job %s has %d executions, want %d: %+v", jobID, len(got), len(want), got)
		}
		for i := range want {
			if got[i].ForceFullRefresh != want[i].ForceFullRefresh || (want[i].Status != "" && got[i].Status != want[i].Status) {
				return fmt.Errorf("execution %d of job %s is %+v, want status %q and force_full_refresh %v",
					i, jobID, got[i], want[i].Status, want[i].ForceFullRefresh)
			}
		}
		return nil
	}
}

// Checks of errors and values.

// errorMatching is a TestCase.ErrorCheck that accepts only an error
// matching re and free of every secret, and records that it saw one.
type errorMatching struct {
	re      *regexp.Regexp
	secrets []string
	seen    bool
}

func (c *errorMatching) check(err error) error {
	msg := err.Error()
	for _, s := range c.secrets {
		if strings.Contains(msg, s) {
			return fmt.Errorf("the error shows a secret: %s", msg)
		}
	}
	if !c.re.MatchString(msg) {
		return fmt.Errorf("error does not match %s: %s", c.re, msg)
	}
	c.seen = true
	return nil
}

// phrases is a pattern of the given phrases in order, each matching across
// the line breaks Terraform puts into long diagnostics.
func phrases(ps ...string) *regexp.Regexp {
	parts := make([]string, len(ps))
	for i, p := range ps {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		parts[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(strings.Join(parts, `[\s\S]*`))
}

// stringsExact is a check of a list of strings, in order.
func stringsExact(ss ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(ss))
	for i, s := range ss {
		checks[i] = knownvalue.StringExact(s)
	}
	return knownvalue.ListExact(checks)
}
