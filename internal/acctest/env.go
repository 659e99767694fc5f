package acctest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The provider's environment variables, as its docs name them. They also
// point the tests at the real service.
const (
	EnvBaseURL     = "DATAINTEGRATION_BASE_URL"
	EnvAPIKey      = "DATAINTEGRATION_API_KEY"
	EnvWorkspaceID = "DATAINTEGRATION_WORKSPACE_ID"
)

// Env is the service one acceptance test runs against: a sandbox of its
// own, started in-process, or the real service when DATAINTEGRATION_BASE_URL,
// DATAINTEGRATION_API_KEY and DATAINTEGRATION_WORKSPACE_ID are all set.
type Env struct {
	BaseURL, APIKey, WorkspaceID string
	// CACertificate is what the test's own clients trust besides the
	// system's roots: a TLSEnv's CA.
	CACertificate string
	// Sandbox is nil against the real service.
	Sandbox *sandbox.Server
}

func NewEnv(t testing.TB, cfg sandbox.Config) *Env {
	t.Helper()
	if realService() {
		key := os.Getenv(EnvAPIKey)
		expectNoSecretPrinted(t, key)
		return &Env{BaseURL: os.Getenv(EnvBaseURL), APIKey: key, WorkspaceID: os.Getenv(EnvWorkspaceID)}
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	key := sandboxKey(cfg)
	expectNoSecretPrinted(t, key)
	return &Env{BaseURL: ts.URL, APIKey: key, WorkspaceID: srv.Workspaces()[0], Sandbox: srv}
}

// sandboxKey is the first API key a sandbox of cfg accepts.
func sandboxKey(cfg sandbox.Config) string {
	if len(cfg.Keys) > 0 {
		return cfg.Keys[0].APIKey
	}
	return sandbox.DefaultAPIKey
}

// realService tells whether the tests run against the real service: its
// three variables are set.
func realService() bool {
	return os.Getenv(EnvBaseURL) != "" && os.Getenv(EnvAPIKey) != "" && os.Getenv(EnvWorkspaceID) != ""
}

// RequireSandbox skips a test that needs the sandbox's side door.
func (e *Env) RequireSandbox(t testing.TB, why string) {
	t.Helper()
	if e.Sandbox == nil {
		t.Skipf("skipped against the real service: this test needs the sandbox's side door to %s", why)
	}
}

// LetteredWorkspace is a sandbox workspace whose ID has letters, so that its
// case can change.
var LetteredWorkspace = []sandbox.KeyBinding{{APIKey: sandbox.DefaultAPIKey, WorkspaceID: "0000000a-0000-4000-8000-00000000000b"}}

// SecondWorkspace is a second workspace that TwoWorkspaces binds the
// default key to.
const SecondWorkspace = "22222222-2222-4222-8222-222222222222"

// TwoWorkspaces is a sandbox whose key reaches its default workspace and
// SecondWorkspace; the test is skipped against the real service.
func TwoWorkspaces(t *testing.T, cfg sandbox.Config, why string) *Env {
	t.Helper()
	cfg.Keys = []sandbox.KeyBinding{
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: sandbox.DefaultWorkspaceID},
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: SecondWorkspace},
	}
	e := NewEnv(t, cfg)
	e.RequireSandbox(t, why)
	return e
}

// ProviderConfig is a provider block with every setting given, so that the
// environment of whoever runs the tests plays no part; extra lines are
// added inside it.
func (e *Env) ProviderConfig(extra ...string) string {
	return fmt.Sprintf(`
provider "dataintegration" {
  base_url     = %q
  api_key      = %q
  workspace_id = %q
%s}
`, e.BaseURL, e.APIKey, e.WorkspaceID, indentLines(extra))
}

// ProviderWithWorkspace is a provider block like ProviderConfig's, with the
// given default workspace.
func (e *Env) ProviderWithWorkspace(ws string) string {
	return ProviderBlock(e.BaseURL, e.APIKey, ws)
}

// ProviderWithoutWorkspace is a provider block like ProviderConfig's, with
// no default workspace.
func (e *Env) ProviderWithoutWorkspace() string {
	return ProviderBlock(e.BaseURL, e.APIKey, "")
}

// ProviderWithKey is a provider block like ProviderConfig's, with the given
// API key.
func (e *Env) ProviderWithKey(apiKey string) string {
	return ProviderBlock(e.BaseURL, apiKey, e.WorkspaceID)
}

// ProviderBlock is a provider block of the given settings; workspace_id is
// left out when ws is "".
func ProviderBlock(baseURL, apiKey, ws string) string {
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

// UpperWorkspace is the test's workspace in upper case; it skips the test
// when the ID has no letter to change.
func (e *Env) UpperWorkspace(t *testing.T) string {
	t.Helper()
	upper := strings.ToUpper(e.WorkspaceID)
	if upper == e.WorkspaceID {
		t.Skipf("the workspace ID %s has no letter whose case could change", e.WorkspaceID)
	}
	return upper
}

// ServiceEnv is the environment a guide tells its reader to export.
func (e *Env) ServiceEnv(extra ...string) []string {
	return append([]string{
		EnvBaseURL + "=" + e.BaseURL, EnvAPIKey + "=" + e.APIKey, EnvWorkspaceID + "=" + e.WorkspaceID,
	}, extra...)
}

// Client is an API Client of the same service, for a test's own look at it,
// its configuration changed by edit.
func (e *Env) Client(t testing.TB, edit ...func(*client.Config)) *client.Client {
	t.Helper()
	conf := client.Config{BaseURL: e.BaseURL, APIKey: e.APIKey, Version: "test", CACertificate: e.CACertificate}
	for _, ed := range edit {
		ed(&conf)
	}
	c, err := client.New(conf)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// AllJobs lists every job of the test's workspace through the client.
func (e *Env) AllJobs(t testing.TB) []client.Job {
	t.Helper()
	return e.jobsOneByOne(t, client.JobFilter{})
}

// jobsOneByOne lists the test's jobs that f selects, one page after another
// (max_concurrent_requests = 1): the oracle of a list read side by side.
func (e *Env) jobsOneByOne(t testing.TB, f client.JobFilter) []client.Job {
	t.Helper()
	c := e.Client(t, func(c *client.Config) { c.MaxConcurrentRequests = 1 })
	v, jobs := client.Collect[client.Job](nil, 0)
	if err := c.EachJobPage(context.Background(), e.WorkspaceID, f, v); err != nil {
		t.Fatal(err)
	}
	return *jobs
}

// ActiveJobs are the IDs of the sandbox's first n active jobs, and inactive
// the ID of an inactive one.
func ActiveJobs(t testing.TB, e *Env, n int) (active []string, inactive string) {
	t.Helper()
	for _, j := range e.Sandbox.Jobs(e.WorkspaceID) {
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

// MakeConnector creates a connector through the API, as someone outside
// Terraform would, and deletes it when the test ends.
func (e *Env) MakeConnector(t *testing.T, name string, streams ...string) *client.Connector {
	t.Helper()
	c := e.Client(t)
	made, err := c.CreateConnector(context.Background(), e.WorkspaceID, client.ConnectorSpec{
		Name: name, URL: "https://acme.example-helpdesk.com", Token: "outside-token", AgentEmail: "agent@acme.com", Streams: streams,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.DeleteConnector(context.Background(), e.WorkspaceID, made.ID) })
	return made
}

const RouteListJobs = "GET /developers/workspaces/{workspace_id}/jobs/"

// ExpectRouteCount checks, once the step is applied, how many requests the
// sandbox served on a route.
func (e *Env) ExpectRouteCount(route string, want int64) resource.TestCheckFunc {
	return e.ExpectRouteCountIn(route, want, want)
}

// ExpectRouteCountIn checks, once the step is applied, that the sandbox
// served from least to most requests on a route: for reads whose sharing
// depends on which arrives first.
func (e *Env) ExpectRouteCountIn(route string, least, most int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := e.Sandbox.Stats().ByRoute[route]
		switch {
		case least == most && got != least:
			return fmt.Errorf("sandbox served %d requests on %q, want %d", got, route, least)
		case got < least || got > most:
			return fmt.Errorf("sandbox served %d requests on %q, want %d to %d", got, route, least, most)
		}
		return nil
	}
}

// ExpectNoRequests checks that the sandbox served no request at all: for
// configurations that must fail before any is sent.
func (e *Env) ExpectNoRequests(t *testing.T) {
	t.Helper()
	if e.Sandbox == nil {
		return
	}
	if st := e.Sandbox.Stats(); st.Requests != 0 {
		t.Errorf("the sandbox served %d requests (%v), want none", st.Requests, st.ByRoute)
	}
}

// ExpectStored checks the test's connector as the sandbox holds it,
// token included. Against the real service, which never shows a token, the
// check is logged and left out.
func (e *Env) ExpectStored(t *testing.T, check func(sandbox.ConnectorView) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if e.Sandbox == nil {
			t.Logf("not checked against the real service: what the sandbox holds for %s", ConnectorAddress)
			return nil
		}
		rs, ok := s.RootModule().Resources[ConnectorAddress]
		if !ok {
			return fmt.Errorf("%s is not in the state", ConnectorAddress)
		}
		v, ok := e.Sandbox.Connector(rs.Primary.Attributes["workspace_id"], rs.Primary.ID)
		if !ok {
			return fmt.Errorf("the sandbox holds no connector %s", rs.Primary.ID)
		}
		return check(v)
	}
}

// ConnectorsGone is a CheckDestroy: no connector of the state is left in
// the service.
func (e *Env) ConnectorsGone(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		c := e.Client(t)
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

// ExpectMoved checks that a connector moved from the test's workspace to
// workspace to: the sandbox holds *moved there and no longer holds *first
// in the test's workspace. The IDs are read when the check runs, after
// CaptureID has stored them.
func (e *Env) ExpectMoved(first, moved *string, to string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if _, ok := e.Sandbox.Connector(to, *moved); !ok {
			return fmt.Errorf("no connector %s in workspace %s", *moved, to)
		}
		if _, ok := e.Sandbox.Connector(e.WorkspaceID, *first); ok {
			return fmt.Errorf("connector %s is still in workspace %s", *first, e.WorkspaceID)
		}
		return nil
	}
}

// ExpectExecutions checks a job's executions: one per want, oldest first,
// with want's status and force_full_refresh (status "" is not checked).
func (e *Env) ExpectExecutions(jobID string, want ...sandbox.Execution) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := e.Sandbox.Executions(e.WorkspaceID, jobID)
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

// ErrorMatching is a TestCase.ErrorCheck that accepts only an error
// matching re and free of every secret, and records that it saw one.
type ErrorMatching struct {
	Want    *regexp.Regexp
	Secrets []string
	Seen    bool
}

func (c *ErrorMatching) Check(err error) error {
	msg := err.Error()
	for _, s := range c.Secrets {
		if strings.Contains(msg, s) {
			return fmt.Errorf("the error shows a secret: %s", msg)
		}
	}
	if !c.Want.MatchString(msg) {
		return fmt.Errorf("error does not match %s: %s", c.Want, msg)
	}
	c.Seen = true
	return nil
}

// Phrases is a pattern of the given Phrases in order, each matching across
// the line breaks Terraform puts into long diagnostics.
func Phrases(ps ...string) *regexp.Regexp {
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

// StringsExact is a check of a list of strings, in order.
func StringsExact(ss ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(ss))
	for i, s := range ss {
		checks[i] = knownvalue.StringExact(s)
	}
	return knownvalue.ListExact(checks)
}

// RefusingEnv is a sandbox with a job that is running (for an hour) and
// an inactive one, whose triggers the service refuses.
func RefusingEnv(t *testing.T) (e *Env, running, inactive string) {
	t.Helper()
	e = NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour})
	e.RequireSandbox(t, "find an inactive job and start one")
	jobs, inactive := ActiveJobs(t, e, 1)
	if err := e.Client(t).TriggerJob(context.Background(), e.WorkspaceID, jobs[0], false); err != nil {
		t.Fatal(err)
	}
	return e, jobs[0], inactive
}

// OneByOne are the IDs of jobsOneByOne.
func (e *Env) OneByOne(t testing.TB, f client.JobFilter) []string {
	t.Helper()
	return JobIDs(e.jobsOneByOne(t, f))
}

// Executions counts the executions of every job of the test's workspace.
func (e *Env) Executions(t *testing.T) int {
	t.Helper()
	n := 0
	for _, j := range e.Sandbox.Jobs(e.WorkspaceID) {
		n += len(e.Sandbox.Executions(e.WorkspaceID, j.ID))
	}
	return n
}
