package acctest

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// Env is the service one acceptance test runs against.
type Env struct {
	BaseURL, APIKey, WorkspaceID string
	// CACertificate is what the test's own clients trust besides the system's roots.
	CACertificate string
	// Sandbox is nil against the real service.
	Sandbox *sandbox.Server
}

// NewEnv is the way in: a sandbox of cfg, started in-process, or the real
// service when its three variables are set.
func NewEnv(t testing.TB, cfg sandbox.Config) *Env {
	t.Helper()
	if realService() {
		key := os.Getenv(providerenv.APIKey)
		expectNoSecretPrinted(t, key)
		return &Env{BaseURL: os.Getenv(providerenv.BaseURL), APIKey: key, WorkspaceID: os.Getenv(providerenv.WorkspaceID)}
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

func sandboxKey(cfg sandbox.Config) string {
	if len(cfg.Keys) > 0 {
		return cfg.Keys[0].APIKey
	}
	return sandbox.DefaultAPIKey
}

func realService() bool {
	return os.Getenv(providerenv.BaseURL) != "" && os.Getenv(providerenv.APIKey) != "" && os.Getenv(providerenv.WorkspaceID) != ""
}

// RequireSandbox skips a test that needs the sandbox's side door.
func (e *Env) RequireSandbox(t testing.TB, why string) {
	t.Helper()
	if e.Sandbox == nil {
		t.Skipf("skipped against the real service: this test needs the sandbox's side door to %s", why)
	}
}

// LetteredWorkspace is a workspace whose ID has letters whose case can change.
var LetteredWorkspace = []sandbox.KeyBinding{{APIKey: sandbox.DefaultAPIKey, WorkspaceID: "0000000a-0000-4000-8000-00000000000b"}}

// SecondWorkspace is the workspace TwoWorkspaces adds.
const SecondWorkspace = "22222222-2222-4222-8222-222222222222"

// TwoWorkspaces is a sandbox whose key reaches its default workspace and SecondWorkspace.
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

// UpperWorkspace is the test's workspace in upper case; it skips a test whose ID has no letter.
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
		providerenv.BaseURL + "=" + e.BaseURL, providerenv.APIKey + "=" + e.APIKey, providerenv.WorkspaceID + "=" + e.WorkspaceID,
	}, extra...)
}

// Client is an API client of the test's service, its configuration changed by edit.
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

// JobsOneByOne lists the jobs f selects one page after another: an oracle.
func (e *Env) JobsOneByOne(t testing.TB, f client.JobFilter) []client.Job {
	t.Helper()
	c := e.Client(t, func(c *client.Config) { c.MaxConcurrentRequests = 1 })
	v, jobs := client.Collect[client.Job](nil, 0)
	if err := c.EachJobPage(context.Background(), e.WorkspaceID, f, v); err != nil {
		t.Fatal(err)
	}
	return *jobs
}

// ActiveJobs are the IDs of the sandbox's first n active jobs, and of an inactive one.
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

// MakeConnector creates a connector as someone outside Terraform would, until the test ends.
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

// RefusingEnv is a sandbox with a running job and an inactive one.
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

// Executions counts the executions of every job of the test's workspace.
func (e *Env) Executions(t *testing.T) int {
	t.Helper()
	n := 0
	for _, j := range e.Sandbox.Jobs(e.WorkspaceID) {
		n += len(e.Sandbox.Executions(e.WorkspaceID, j.ID))
	}
	return n
}
