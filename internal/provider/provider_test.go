package provider

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// testAccProtoV6ProviderFactories serves the provider in-process to the
// Terraform CLI that the acceptance tests drive.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"dataintegration": providerserver.NewProtocol6WithError(New("test")()),
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
	return &testEnv{baseURL: ts.URL, apiKey: key, workspaceID: srv.Workspaces()[0], sandbox: srv}
}

// requireSandbox skips a test that needs the sandbox's side door.
func (e *testEnv) requireSandbox(t testing.TB, why string) {
	t.Helper()
	if e.sandbox == nil {
		t.Skipf("skipped against the real service: this test needs the sandbox's side door to %s", why)
	}
}

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

func indentLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// client is an API client of the same service, for a test's own look at it.
func (e *testEnv) client(t testing.TB) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: e.baseURL, APIKey: e.apiKey, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// allJobs lists every job of the test's workspace through the client.
func (e *testEnv) allJobs(t testing.TB) []client.Job {
	t.Helper()
	var jobs []client.Job
	err := e.client(t).EachJobPage(context.Background(), e.workspaceID, client.JobFilter{}, func(page []client.Job) bool {
		jobs = append(jobs, page...)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

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

// idsExact is a check of a list of IDs, in order.
func idsExact(ids []string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(ids))
	for i, id := range ids {
		checks[i] = knownvalue.StringExact(id)
	}
	return knownvalue.ListExact(checks)
}

func jobIDs(jobs []client.Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// expectIDs checks the ids attribute of the test's jobs data source.
func expectIDs(ids []string) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(jobsAddress, tfjsonpath.New("ids"), idsExact(ids))
}

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

// providerSchemas is what the provider answers Terraform's request for its
// schemas.
func providerSchemas(t *testing.T) *tfprotov6.GetProviderSchemaResponse {
	t.Helper()
	srv, err := testAccProtoV6ProviderFactories["dataintegration"]()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestProviderSchemaIsValid checks the provider's own schema and those of its
// resources and data sources, as Terraform would.
func TestProviderSchemaIsValid(t *testing.T) {
	resp := providerSchemas(t)
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	for _, name := range []string{"dataintegration_jobs", "dataintegration_job", "dataintegration_customer_service_connector"} {
		if _, ok := resp.DataSourceSchemas[name]; !ok {
			t.Errorf("data source %s is missing", name)
		}
	}
	for _, name := range []string{"dataintegration_customer_service_connector", "dataintegration_job_trigger"} {
		if _, ok := resp.ResourceSchemas[name]; !ok {
			t.Errorf("resource %s is missing", name)
		}
	}
}

// TestEverySchemaIsDescribed checks that every attribute and block of the
// provider, its resources and data sources has a description: docs/ is
// generated from them.
func TestEverySchemaIsDescribed(t *testing.T) {
	resp := providerSchemas(t)
	schemas := map[string]*tfprotov6.Schema{"provider": resp.Provider}
	for name, s := range resp.ResourceSchemas {
		schemas["resource "+name] = s
	}
	for name, s := range resp.DataSourceSchemas {
		schemas["data source "+name] = s
	}
	var walk func(where string, b *tfprotov6.SchemaBlock)
	walk = func(where string, b *tfprotov6.SchemaBlock) {
		if strings.TrimSpace(b.Description) == "" {
			t.Errorf("%s has no description", where)
		}
		for _, a := range b.Attributes {
			if strings.TrimSpace(a.Description) == "" {
				t.Errorf("%s: attribute %s has no description", where, a.Name)
			}
		}
		for _, nb := range b.BlockTypes {
			walk(where+" block "+nb.TypeName, nb.Block)
		}
	}
	for where, s := range schemas {
		walk(where, s.Block)
	}
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

// timestampRE is the service's timestamp format: ISO 8601 with milliseconds
// and Z.
var timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
