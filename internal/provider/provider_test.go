package provider

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestProvider_schemaIsValid checks the provider's own schema and those of its
// resources and data sources, as Terraform would.
func TestProvider_schemaIsValid(t *testing.T) {
	t.Parallel()
	resp := serveProto(t).Schemas
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	for _, name := range []string{"dataintegration_jobs", "dataintegration_job", "dataintegration_customer_service_connector", "dataintegration_customer_service_connectors"} {
		if _, ok := resp.DataSourceSchemas[name]; !ok {
			t.Errorf("data source %s is missing", name)
		}
	}
	for _, name := range []string{"dataintegration_customer_service_connector", "dataintegration_job_trigger"} {
		if _, ok := resp.ResourceSchemas[name]; !ok {
			t.Errorf("resource %s is missing", name)
		}
	}
	if _, ok := resp.ListResourceSchemas["dataintegration_customer_service_connector"]; !ok {
		t.Error("list resource dataintegration_customer_service_connector is missing")
	}
	for _, name := range []string{"dataintegration_run_job", "dataintegration_cancel_job"} {
		if _, ok := resp.ActionSchemas[name]; !ok {
			t.Errorf("action %s is missing", name)
		}
	}
}

// TestProvider_everySchemaIsDescribed: docs/ is generated from the descriptions.
func TestProvider_everySchemaIsDescribed(t *testing.T) {
	t.Parallel()
	resp := serveProto(t).Schemas
	schemas := map[string]*tfprotov6.Schema{"provider": resp.Provider}
	for name, s := range resp.ResourceSchemas {
		schemas["resource "+name] = s
	}
	for name, s := range resp.DataSourceSchemas {
		schemas["data source "+name] = s
	}
	for name, s := range resp.ListResourceSchemas {
		schemas["list resource "+name] = s
	}
	for name, s := range resp.ActionSchemas {
		schemas["action "+name] = s.Schema
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
	srv, err := testAccProtoV6ProviderFactories["dataintegration"]()
	if err != nil {
		t.Fatal(err)
	}
	ids, err := srv.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids.IdentitySchemas) == 0 {
		t.Error("no resource has an identity schema")
	}
	for name, s := range ids.IdentitySchemas {
		for _, a := range s.IdentityAttributes {
			if strings.TrimSpace(a.Description) == "" {
				t.Errorf("identity of resource %s: attribute %s has no description", name, a.Name)
			}
		}
	}
}

// TestAccProvider_workspaceInAnotherCase: the workspace in upper case replaces
// nothing, so the job does not run again.
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

// TestProvider_wholeNumbersStayNumbers: Number attributes, so that 1.5 reaches
// their validator, are to Terraform the number they always were.
func TestProvider_wholeNumbersStayNumbers(t *testing.T) {
	t.Parallel()
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

// TestAccProvider_badSettings: each bad setting fails at plan with a
// diagnostic on the attribute, saying what is allowed, before any request.
func TestAccProvider_badSettings(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 1})
	e.RequireSandbox(t, "count the requests made")
	cases := []struct {
		name, settings string
		want           []string
	}{
		{"http on a public host", `base_url = "http://api.example.com"`, []string{"Invalid Attribute Value", "base_url", "use https, or http only on 127.x.x.x, ::1 or localhost"}},
		{"port out of range", `base_url = "https://api.example.com:99999/api/v1"`, []string{"base_url", "the port 99999 is not from 1 to 65535"}},
		{"empty port", `base_url = "https://api.example.com:/api/v1"`, []string{"base_url", "the port after the colon is empty"}},
		{"no host name", `base_url = "https://../api/v1"`, []string{"base_url", "has a label (a part between dots) that is empty"}},
		{"API key with a newline", `api_key = "secret-key-1\n"`, []string{"api_key", "holds a control character", "Allowed: a key that a header can carry as it is"}},
		{"API key with a space", `api_key = " secret-key-1"`, []string{"api_key", "begins or ends with a space"}},
		{"other scheme", `base_url = "ftp://api.example.com"`, []string{"base_url", `has scheme "ftp"`}},
		{"relative URL", `base_url = "api.example.com"`, []string{"base_url", "is not an absolute URL"}},
		{"query in URL", `base_url = "https://api.example.com/?x=1"`, []string{"base_url", "must not have a query or fragment"}},
		{"credentials in URL", `base_url = "https://me:hunter2@api.example.com"`, []string{"base_url", "must not carry user information"}},
		{"workspace not a UUID", `workspace_id = "my-workspace"`, []string{"workspace_id", `"my-workspace" is not a UUID`}},
		{"timeout not a duration", `request_timeout = "soon"`, []string{"request_timeout", `"soon" is not a duration`}},
		{"timeout not positive", `request_timeout = "0s"`, []string{"request_timeout", "must be positive"}},
		{"too many retries", `max_retries = 101`, []string{"max_retries", "between 0 and 100"}},
		{"retries not whole", `max_retries = 1.5`, []string{"Invalid Attribute Value", "max_retries: 1.5 is not a whole number", "Allowed: a whole number from 0 to 100"}},
		{"negative retries", `max_retries = -1`, []string{"max_retries", "between 0 and 100"}},
		{"no request at a time", `max_concurrent_requests = 0`, []string{"max_concurrent_requests", "between 1 and 64", "Allowed: a whole number from 1 to 64"}},
		{"too many at a time", `max_concurrent_requests = 65`, []string{"max_concurrent_requests", "between 1 and 64"}},
		{"requests at a time not whole", `max_concurrent_requests = 2.5`, []string{"max_concurrent_requests: 2.5 is not a whole number"}},
		{"CA certificate's path", `ca_certificate = "/etc/ssl/acme-ca.pem"`, []string{"ca_certificate", "not a file's path", "Allowed: one or more PEM certificates"}},
		{"CA certificate not PEM", "ca_certificate = \"-----BEGIN CERTIFICATE-----\\nMIIB\"", []string{"ca_certificate", "the PEM block is cut or damaged"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			config := fmt.Sprintf(`
provider "dataintegration" {
  %s
}
data "dataintegration_jobs" "test" {}
`, c.settings)
			// Every other setting comes from the environment, and is good.
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: serviceEnv(e).factories(),
				Steps:                    []resource.TestStep{{Config: config, ExpectError: acctest.Phrases(c.want...)}},
			})
		})
	}
	e.ExpectNoRequests(t)
}

func TestAccProvider_missingSettings(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 1})
	e.RequireSandbox(t, "count the requests made")
	for _, c := range []struct{ attr, env, settings string }{
		{"base_url", providerenv.BaseURL, fmt.Sprintf("api_key = %q", e.APIKey)},
		{"api_key", providerenv.APIKey, fmt.Sprintf("base_url = %q", e.BaseURL)},
	} {
		t.Run(c.attr, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: newTestEnv(map[string]string{providerenv.BaseURL: "", providerenv.APIKey: ""}).factories(),
				Steps: []resource.TestStep{{
					Config:      fmt.Sprintf("provider \"dataintegration\" {\n  %s\n}\ndata \"dataintegration_jobs\" \"test\" {}\n", c.settings),
					ExpectError: acctest.Phrases("Missing Provider Setting", "The provider needs "+c.attr, c.env+" environment variable"),
				}},
			})
		})
	}
	t.Run("api_key from the environment is checked, and never shown", func(t *testing.T) {
		env := serviceEnv(e)
		env.set(providerenv.APIKey, e.APIKey+"\n")
		check := &acctest.ErrorMatching{Want: acctest.Phrases("Invalid Provider Setting", providerenv.APIKey+": the API key holds a control character"), Secrets: []string{e.APIKey}}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: env.factories(),
			ErrorCheck:               check.Check,
			Steps:                    []resource.TestStep{{Config: `data "dataintegration_jobs" "test" {}`}},
		})
		if !check.Seen {
			t.Error("no error")
		}
	})
	t.Run("base_url from the environment is checked", func(t *testing.T) {
		env := serviceEnv(e)
		env.set(providerenv.BaseURL, "http://api.example.com")
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: env.factories(),
			Steps: []resource.TestStep{{
				Config:      `data "dataintegration_jobs" "test" {}`,
				ExpectError: acctest.Phrases("Invalid Provider Setting", providerenv.BaseURL+": \"http://api.example.com\" uses http"),
			}},
		})
	})
	e.ExpectNoRequests(t)
}

// TestAccProvider_environment: the variables alone configure the provider, and a
// setting in the configuration wins over its variable.
func TestAccProvider_environment(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	ids := acctest.JobIDs(e.JobsOneByOne(t, client.JobFilter{}))
	env := serviceEnv(e)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		Steps: []resource.TestStep{
			{
				Config:            `data "dataintegration_jobs" "test" {}`,
				ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(ids)},
			},
			{
				PreConfig: func() {
					// Unreachable: only the configuration's value can work.
					env.set(providerenv.BaseURL, "http://127.0.0.1:1")
				},
				Config: fmt.Sprintf(`
provider "dataintegration" {
  base_url = "%s/"
}
data "dataintegration_jobs" "test" {}
`, e.BaseURL),
				ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(ids)},
			},
		},
	})
}

// Configure puts a bad setting's error on its attribute, so that Terraform points
// at the line; it checks them again after the validators, as it does the environment's.
func TestProvider_configurePutsASettingsErrorOnItsAttribute(t *testing.T) {
	t.Parallel()
	env := noWorkspaceEnv()
	for _, c := range []struct {
		name, attr, summary string
		value               any
	}{
		{"unknown max_retries", "max_retries", "Unknown Provider Setting", tftypes.UnknownValue},
		{"unknown request_timeout", "request_timeout", "Unknown Provider Setting", tftypes.UnknownValue},
		{"too many retries", "max_retries", "Invalid Provider Setting", big.NewFloat(101)},
		{"retries not whole", "max_retries", "Invalid Provider Setting", big.NewFloat(1.5)},
		{"unknown max_concurrent_requests", "max_concurrent_requests", "Unknown Provider Setting", tftypes.UnknownValue},
		{"no request at a time", "max_concurrent_requests", "Invalid Provider Setting", big.NewFloat(0)},
		{"requests at a time not whole", "max_concurrent_requests", "Invalid Provider Setting", big.NewFloat(2.5)},
		{"timeout not a duration", "request_timeout", "Invalid Provider Setting", "soon"},
		{"timeout not positive", "request_timeout", "Invalid Provider Setting", "0s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			diags := configureProvider(t, env.getenv, "", map[string]any{
				"base_url": "http://127.0.0.1:1", "api_key": "secret-key-1", c.attr: c.value,
			}).Diagnostics
			if len(diags) != 1 {
				t.Fatalf("want one error, got %v", diags)
			}
			d, ok := diags[0].(diag.DiagnosticWithPath)
			if !ok || !d.Path().Equal(path.Root(c.attr)) || d.Summary() != c.summary {
				t.Errorf("want %q on %s, got %q (%T): %s", c.summary, c.attr, diags[0].Summary(), diags[0], diags[0].Detail())
			}
		})
	}
}

// TestProvider_retryBudgetInWords: the docs give the client's retry budget in words.
func TestProvider_retryBudgetInWords(t *testing.T) {
	t.Parallel()
	if d, err := time.ParseDuration(strings.ReplaceAll(strings.TrimSuffix(retryBudgetText, "utes"), " min", "m")); err != nil || d != client.DefaultRetryBudget {
		t.Errorf("the docs say %q, the client retries for %v", retryBudgetText, client.DefaultRetryBudget)
	}
}

const loggingHCL = `
data "dataintegration_jobs" "all" {}

output "jobs" {
  value = length(data.dataintegration_jobs.all.ids)
}
`

// captureProviderStderr runs the provider with its standard error, where
// terraform-plugin-log writes every line, appended to the returned file.
func captureProviderStderr(t *testing.T, eng *acctest.Engine) (env []string, stderr string) {
	t.Helper()
	dir := t.TempDir()
	stderr = filepath.Join(dir, "stderr.log")
	script := fmt.Sprintf("#!/bin/sh\nexec %q \"$@\" 2>>%q\n", eng.Provider, stderr)
	if err := os.WriteFile(filepath.Join(dir, "terraform-provider-dataintegration"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return []string{"TF_CLI_CONFIG_FILE=" + acctest.DevOverrideFile(t, dir)}, stderr
}

// TestAccLogging_quietUnlessCollected: without TF_LOG or TF_LOG_PROVIDER the
// provider writes nothing at all; with them, a DEBUG line per request.
func TestAccLogging_quietUnlessCollected(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	dir := acctest.ConfigDir(t, loggingHCL)
	wrapped, stderr := captureProviderStderr(t, eng)
	vars := e.ServiceEnv(acctest.NoLogVars...)

	eng.Run(t, dir, append(vars, wrapped...), "plan", "-input=false")
	written, err := os.ReadFile(stderr)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(written) > 0 {
		t.Errorf("without TF_LOG, the provider wrote %d bytes of logs that the engine throws away; the first line: %s", len(written), strings.SplitN(string(written), "\n", 2)[0])
	}

	for _, level := range []string{"TF_LOG=DEBUG", "TF_LOG_PROVIDER=DEBUG"} {
		log := filepath.Join(t.TempDir(), "debug.log")
		eng.Run(t, dir, append(vars, level, "TF_LOG_PATH="+log), "plan", "-input=false")
		text, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("%s: %v", level, err)
		}
		fields := []string{`method=GET`, `path=/developers/workspaces/[0-9a-f-]+/jobs/ `, `status=200`, `attempt=1`, `duration_ms=\d+`}
		if !acctest.LogHasRequest(string(text), fields) {
			t.Errorf("with %s, the log has no DEBUG line of the request with %v", level, fields)
		}
		if strings.Contains(string(text), "[TRACE] provider") {
			t.Errorf("with %s, the log holds the provider's TRACE lines", level)
		}
		if err := os.Remove(stderr); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		eng.Run(t, dir, append(append(vars, wrapped...), level), "plan", "-input=false")
		if written, _ := os.ReadFile(stderr); !strings.Contains(string(written), `"API request"`) {
			t.Errorf("with %s, the provider wrote no line of its request: %.200s", level, written)
		}
	}
}

// TestAccLogging_atTheLevelKept: the provider writes no line below the level
// the engine keeps.
func TestAccLogging_atTheLevelKept(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	dir := acctest.ConfigDir(t, loggingHCL)
	wrapped, stderr := captureProviderStderr(t, eng)
	vars := append(e.ServiceEnv(acctest.NoLogVars...), wrapped...)
	for _, levels := range [][]string{{"TF_LOG=warn"}, {"TF_LOG=TRACE", "TF_LOG_PROVIDER=ERROR"}} {
		if err := os.Remove(stderr); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		eng.Run(t, dir, append(slices.Clone(vars), levels...), "plan", "-input=false")
		written, err := os.ReadFile(stderr)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, below := range []string{`"@level":"trace"`, `"@level":"debug"`, `"@level":"info"`} {
			if n := strings.Count(string(written), below); n > 0 {
				t.Errorf("with %v, the provider wrote %d lines with %s, which the engine drops", levels, n, below)
			}
		}
	}
}

// TestAccIsolation_otherWorkspace: a key bound to one workspace can neither read
// nor change another's, and each attempt names the workspace.
func TestAccIsolation_otherWorkspace(t *testing.T) {
	const other, otherKey = "33333333-3333-4333-8333-333333333333", "key-of-the-other-workspace"
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 8, Keys: []sandbox.KeyBinding{
		{APIKey: sandbox.DefaultAPIKey, WorkspaceID: sandbox.DefaultWorkspaceID},
		{APIKey: otherKey, WorkspaceID: other},
	}})
	e.RequireSandbox(t, "bind a second key to a second workspace")

	// The other workspace's own key makes a connector there.
	theirs, err := client.New(client.Config{BaseURL: e.BaseURL, APIKey: otherKey, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	name := acctest.Name("theirs")
	c, err := theirs.CreateConnector(context.Background(), other, client.ConnectorSpec{
		Name: name, URL: "https://theirs.example.com", Token: "their-token", AgentEmail: "agent@theirs.com",
		Streams: []string{"tickets"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var job string
	for _, j := range e.Sandbox.Jobs(other) {
		if j.IsActive {
			job = j.ID
			break
		}
	}
	before := e.Sandbox.Stats().ByRoute

	denied := func(hcl string) resource.TestStep {
		return resource.TestStep{
			Config:      e.ProviderConfig() + hcl,
			ExpectError: acctest.Phrases("Access Denied", "The API key has no access to workspace "+other, "HTTP 403"),
		}
	}
	ws := strconv.Quote(other)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			denied(fmt.Sprintf(`data "dataintegration_jobs" "test" { workspace_id = %s }`, ws)),
			denied(fmt.Sprintf(`data "dataintegration_job" "test" {
  workspace_id = %s
  id           = %q
}`, ws, job)),
			denied(fmt.Sprintf(`data "dataintegration_customer_service_connector" "test" {
  workspace_id = %s
  id           = %q
}`, ws, c.ID)),
			{
				// Refused at plan, before any create is sent.
				Config:      e.ProviderConfig() + acctest.NewConnectorArgs(acctest.Name("intruder")).With("workspace_id", ws).HCL(),
				ExpectError: acctest.Phrases("Workspace Not Reachable", "The API key cannot reach workspace "+other, "HTTP 403", "Nothing was changed"),
			},
			denied(fmt.Sprintf(`resource "dataintegration_job_trigger" "test" {
  workspace_id = %s
  job_id       = %q
}`, ws, job)),
			{
				Config:        e.ProviderConfig() + acctest.NewConnectorArgs(name).HCL(),
				ResourceName:  acctest.ConnectorAddress,
				ImportState:   true,
				ImportStateId: other + "/" + c.ID,
				ExpectError:   regexp.MustCompile(`Access Denied`),
			},
		},
	})

	after := e.Sandbox.Stats()
	refused := after.ByRoute
	if ids := e.Sandbox.ConnectorIDs(other); len(ids) != 1 || ids[0] != c.ID {
		t.Errorf("the other workspace holds connectors %v, want only its own %s", ids, c.ID)
	}
	if v, _ := e.Sandbox.Connector(other, c.ID); v.Name != name || v.Token != "their-token" {
		t.Errorf("the other workspace's connector changed: %+v", v)
	}
	for _, j := range e.Sandbox.Jobs(other) {
		if n := len(e.Sandbox.Executions(other, j.ID)); n != 0 {
			t.Errorf("job %s of the other workspace has %d executions", j.ID, n)
		}
	}
	var n int64
	for route, count := range refused {
		n += count - before[route]
	}
	t.Logf("%d requests to the other workspace, each refused with 403; nothing changed there", n)
}

func TestAccNetwork_caCertificateFromTheEnvironment(t *testing.T) {
	e := acctest.NewTLSEnv(t, sandbox.Config{Jobs: 2}, "127.0.0.1")
	env := proxyEnv("", "")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { env.set(providerenv.CACertificate, "/etc/ssl/acme-ca.pem") },
				Config:      e.ProviderConfig() + `data "dataintegration_jobs" "all" {}`,
				ExpectError: acctest.Phrases("Invalid Provider Setting", providerenv.CACertificate+": the value is one line, without a PEM certificate", "not a file's path"),
			},
			{
				PreConfig: func() { env.set(providerenv.CACertificate, e.CA.PEM) },
				Config:    e.ProviderConfig() + `data "dataintegration_jobs" "all" {}`,
				Check:     resource.TestCheckResourceAttr("data.dataintegration_jobs.all", "ids.#", "2"),
			},
		},
	})
}

// TestAccProvider_passwordInAURLNeverPrinted: no diagnostic points at a url
// holding a password, whose configuration line the engine would print.
func TestAccProvider_passwordInAURLNeverPrinted(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	const password = "s3cr3t-pw"
	connector := acctest.NewConnectorArgs("desk")
	for name, c := range map[string]struct {
		config string
		want   []string
	}{
		"base_url": {
			acctest.ProviderBlock("https://user:"+password+"@api.example.com", e.APIKey, e.WorkspaceID) + connector.HCL(),
			[]string{"Error: Invalid Attribute Value", "base_url: ", "must not carry user information"},
		},
		"url": {
			e.ProviderConfig() + connector.With("url", strconv.Quote("https://user:"+password+"@acme.example.com")).HCL(),
			[]string{"Error: Invalid Attribute Value", "url: ", "must not carry user information"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := acctest.ConfigDir(t, c.config)
			out, err := eng.Try(dir, nil, "plan", "-input=false", "-no-color")
			if err == nil {
				t.Fatalf("the plan passed:\n%s", out)
			}
			text := err.Error() // the command's stdout and stderr
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("the error lacks %q:\n%s", w, text)
				}
			}
			if strings.Contains(text, password) {
				t.Errorf("the engine printed the password:\n%s", text)
			}
		})
	}
}

// TestEnv_settingsFallBackToTheirVariables: with no setting in the
// configuration, Configure takes base_url, api_key and workspace_id from
// the variables providerenv names: the client calls that base URL with that key,
// in that workspace by default, and the logs mask the key.
func TestEnv_settingsFallBackToTheirVariables(t *testing.T) {
	t.Parallel()
	var auth []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		http.NotFound(w, r)
	}))
	t.Cleanup(ts.Close)
	env := newTestEnv(map[string]string{
		providerenv.BaseURL: ts.URL, providerenv.APIKey: "key-from-env-1", providerenv.WorkspaceID: sandbox.DefaultWorkspaceID, providerenv.CACertificate: "",
	})
	resp := configureProvider(t, env.getenv, "1.16.4", nil)
	failOn(t, resp.Diagnostics)
	data, ok := resp.ResourceData.(*providerData)
	if !ok {
		t.Fatalf("resource data %T", resp.ResourceData)
	}
	if data.workspaceID != sandbox.DefaultWorkspaceID {
		t.Errorf("workspace %q, want %q from %s", data.workspaceID, sandbox.DefaultWorkspaceID, providerenv.WorkspaceID)
	}
	if !slices.Contains(data.secrets, "key-from-env-1") {
		t.Errorf("the logs mask %d secrets, not the key from %s", len(data.secrets), providerenv.APIKey)
	}
	_, _ = data.client.GetConnector(context.Background(), data.workspaceID, "c-1")
	if len(auth) == 0 || !slices.ContainsFunc(auth, func(a string) bool { return strings.HasSuffix(a, "key-from-env-1") }) {
		t.Errorf("requests to %s carried Authorization %q, want the key from %s", providerenv.BaseURL, auth, providerenv.APIKey)
	}
}
