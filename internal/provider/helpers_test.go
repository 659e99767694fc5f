// The helpers this package's tests share: the provider served in-process, and
// unit helpers that call a resource's or an action's methods against a sandbox,
// for outcomes an engine cannot set up. The rest of the harness is internal/acctest.

package provider

import (
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"dataintegration": NewServer("test"),
}

// testEnv is the environment a test hands its provider in place of the
// process's, so that the test can run in parallel: a variable it holds wins,
// any other is the process's.
type testEnv struct {
	mu   sync.Mutex
	vars map[string]string
}

func newTestEnv(vars map[string]string) *testEnv {
	return &testEnv{vars: maps.Clone(vars)}
}

// proxyEnv is an environment of HTTPS_PROXY and NO_PROXY alone, the
// machine's other proxy variables cleared.
func proxyEnv(httpsProxy, noProxy string) *testEnv {
	vars := map[string]string{}
	for _, k := range []string{"https_proxy", "HTTP_PROXY", "http_proxy", "no_proxy"} {
		vars[k] = ""
	}
	vars["HTTPS_PROXY"], vars["NO_PROXY"] = httpsProxy, noProxy
	return newTestEnv(vars)
}

// noWorkspaceEnv is the process's environment without a workspace.
func noWorkspaceEnv() *testEnv {
	return newTestEnv(map[string]string{providerenv.WorkspaceID: ""})
}

// serviceEnv is the environment of e's three variables.
func serviceEnv(e *acctest.Env) *testEnv {
	return newTestEnv(map[string]string{providerenv.BaseURL: e.BaseURL, providerenv.APIKey: e.APIKey, providerenv.WorkspaceID: e.WorkspaceID})
}

func (e *testEnv) set(k, v string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vars[k] = v
}

func (e *testEnv) getenv(k string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.vars[k]; ok {
		return v
	}
	return os.Getenv(k)
}

func (e *testEnv) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){"dataintegration": NewServerWithEnv("test", e.getenv)}
}

// faultsRunEachOnce applies config while the sandbox refuses 30% of
// requests with 429 or 503 (faults seeded with seed), and checks that
// triggers were retried and that each of jobs ran exactly once.
func faultsRunEachOnce(t *testing.T, e *acctest.Env, config string, jobs []string, seed uint64) {
	t.Helper()
	var checks []tfresource.TestCheckFunc
	for _, id := range jobs {
		checks = append(checks, e.ExpectExecutions(id, sandbox.Execution{}))
	}
	checks = append(checks, func(*terraform.State) error {
		st := e.Sandbox.Stats()
		if st.Faults == 0 {
			return fmt.Errorf("no fault was injected: %+v", st)
		}
		if got := st.ByRoute[acctest.RouteRunJob]; got <= int64(len(jobs)) {
			return fmt.Errorf("%d trigger requests for %d jobs: no trigger was retried", got, len(jobs))
		}
		t.Logf("%d faults injected, %d trigger requests for %d jobs", st.Faults, st.ByRoute[acctest.RouteRunJob], len(jobs))
		return nil
	})
	tfresource.ParallelTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []tfresource.TestStep{{
			PreConfig: func() {
				if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 503}, Seed: seed}); err != nil {
					t.Fatal(err)
				}
			},
			Config: config,
			Check:  tfresource.ComposeAggregateTestCheckFunc(checks...),
		}},
	})
	for _, id := range jobs {
		if n := len(e.Sandbox.Executions(e.WorkspaceID, id)); n != 1 {
			t.Errorf("after the whole test, job %s has %d executions, want 1", id, n)
		}
	}
}

func TestMain(m *testing.M) {
	// The provider served from the test binary cannot see the engine as
	// its parent: the harness names it.
	engineName = acctest.EngineName
	acctest.Main(m)
}

func serveProto(tb testing.TB) *acctest.ProtoProvider {
	tb.Helper()
	return acctest.ServeProto(tb, NewServer("test"))
}

func newProtoProvider(tb testing.TB, settings map[string]string) *acctest.ProtoProvider {
	tb.Helper()
	return acctest.NewProtoProvider(tb, NewServer("test"), settings)
}

func newProtoProviderIn(tb testing.TB, getenv func(string) string, settings map[string]string) *acctest.ProtoProvider {
	tb.Helper()
	return acctest.NewProtoProvider(tb, NewServerWithEnv("test", getenv), settings)
}

// unitSandbox is a sandbox and the provider data of a client to it, for
// tests that call a resource's methods directly.
func unitSandbox(t *testing.T, cfg sandbox.Config, apiKey string) (*sandbox.Server, *providerData) {
	t.Helper()
	return unitSandboxAt(t, cfg, apiKey, "")
}

func unitSandboxAt(t *testing.T, cfg sandbox.Config, apiKey, basePath string, edit ...func(*client.Config)) (*sandbox.Server, *providerData) {
	t.Helper()
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, unitData(t, ts.URL+basePath, apiKey, srv.Workspaces()[0], edit...)
}

// unitData is the provider data of a client of its own to baseURL: what
// one provider process holds.
func unitData(t *testing.T, baseURL, apiKey, ws string, edit ...func(*client.Config)) *providerData {
	t.Helper()
	conf := client.Config{BaseURL: baseURL, APIKey: apiKey, MaxRetries: 0}
	for _, e := range edit {
		e(&conf)
	}
	c, err := client.New(conf)
	if err != nil {
		t.Fatal(err)
	}
	return &providerData{client: c, workspaceID: ws, secrets: []string{apiKey}}
}

func configured(t *testing.T, r resource.Resource, data *providerData) resource.Resource {
	t.Helper()
	var resp resource.ConfigureResponse
	r.(resource.ResourceWithConfigure).Configure(context.Background(), resource.ConfigureRequest{ProviderData: data}, &resp)
	failOn(t, resp.Diagnostics)
	return r
}

func stateOf(t *testing.T, r resource.Resource, model any) tfsdk.State {
	t.Helper()
	ctx := context.Background()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	st := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
	failOn(t, st.Set(ctx, model))
	return st
}

func destroy(t *testing.T, r resource.Resource, model any) diag.Diagnostics {
	t.Helper()
	var resp resource.DeleteResponse
	r.Delete(context.Background(), resource.DeleteRequest{State: stateOf(t, r, model)}, &resp)
	return resp.Diagnostics
}

func failOn(t *testing.T, diags diag.Diagnostics) {
	t.Helper()
	for _, d := range diags {
		t.Fatalf("%s: %s: %s", d.Severity(), d.Summary(), d.Detail())
	}
}

func connectorState(ws, id string) connectorResourceModel {
	return connectorResourceModel{
		connectorModel: connectorModel{
			ID: types.StringValue(id), WorkspaceID: types.StringValue(ws), Name: types.StringValue("desk"),
			URL: types.StringValue("https://acme.example.com"), AgentEmail: types.StringValue("agent@acme.com"),
			Streams: stringList([]string{"chats"}), ConnectorName: types.StringValue("customer_service"),
			CreatedAt: types.StringValue("2026-11-21T09:30:00.123Z"), UpdatedAt: types.StringValue("2026-11-21T09:30:00.123Z"),
		},
		Token: types.StringValue("platform-token-1"), TokenWO: types.StringNull(), TokenWOVersion: types.NumberNull(),
	}
}

type invoked struct {
	diags    diag.Diagnostics
	progress []string
}

// invoke configures a with data and calls its Invoke with a configuration
// holding model: a model struct, or a map of the attributes set (strings
// and bools), every other one null.
func invoke(t *testing.T, a action.Action, data *providerData, model any) invoked {
	t.Helper()
	ctx := context.Background()
	var cr action.ConfigureResponse
	a.(action.ActionWithConfigure).Configure(ctx, action.ConfigureRequest{ProviderData: data}, &cr)
	failOn(t, cr.Diagnostics)
	var sr action.SchemaResponse
	a.Schema(ctx, action.SchemaRequest{}, &sr)
	st := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
	if set, ok := model.(map[string]any); ok {
		typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
		st.Raw = tftypes.NewValue(typ, acctest.ObjectAttrs(typ, set))
	} else {
		failOn(t, st.Set(ctx, model))
	}
	var out invoked
	resp := action.InvokeResponse{SendProgress: func(e action.InvokeProgressEvent) { out.progress = append(out.progress, e.Message) }}
	a.Invoke(ctx, action.InvokeRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: st.Raw}}, &resp)
	out.diags = resp.Diagnostics
	return out
}

func runJob(job, ifRunning string) runJobModel {
	m := runJobModel{
		jobActionTarget:  jobActionTarget{JobID: types.StringValue(job), JobName: types.StringNull(), WorkspaceID: types.StringNull()},
		ForceFullRefresh: types.BoolNull(), IfRunning: types.StringNull(), Timeout: types.StringNull(),
	}
	if ifRunning != "" {
		m.IfRunning = types.StringValue(ifRunning)
	}
	return m
}

func triggerState(ws, jobID string, cancelOnDestroy bool) jobTriggerModel {
	return jobTriggerModel{
		ID: types.StringValue("5f0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10"), WorkspaceID: types.StringValue(ws),
		JobID: types.StringValue(jobID), ForceFullRefresh: types.BoolValue(false), Triggers: types.MapNull(types.StringType),
		CancelOnDestroy: types.BoolValue(cancelOnDestroy), TriggeredAt: types.StringValue("2026-11-21T09:30:00Z"),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "delete": types.StringType})},
	}
}

func protoDiags(diags []*tfprotov6.Diagnostic) string {
	parts := make([]string, len(diags))
	for i, d := range diags {
		parts[i] = fmt.Sprintf("[%s: %s]", d.Summary, d.Detail)
	}
	return strconv.Itoa(len(diags)) + " diagnostics " + strings.Join(parts, " ")
}

func create(t *testing.T, r resource.Resource, model any) *resource.CreateResponse {
	t.Helper()
	return createIn(context.Background(), t, r, model)
}

// made creates a connector straight through the client, as someone else would.
func made(t *testing.T, data *providerData, spec client.ConnectorSpec) string {
	t.Helper()
	c, err := data.client.CreateConnector(t.Context(), data.workspaceID, spec)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func onlyWarning(t *testing.T, diags diag.Diagnostics, summary string, phrases ...string) {
	t.Helper()
	only(t, diags, diag.SeverityWarning, summary, phrases...)
}

func onlyError(t *testing.T, diags diag.Diagnostics, summary string, phrases ...string) {
	t.Helper()
	only(t, diags, diag.SeverityError, summary, phrases...)
}

// only checks that diags hold one diagnostic, of the severity, with the summary and the phrases.
func only(t *testing.T, diags diag.Diagnostics, severity diag.Severity, summary string, phrases ...string) {
	t.Helper()
	if len(diags) != 1 || diags[0].Severity() != severity || diags[0].Summary() != summary {
		t.Fatalf("diagnostics %v, want one %s %q", diags, severity, summary)
	}
	for _, p := range phrases {
		if !strings.Contains(diags[0].Detail(), p) {
			t.Errorf("%s %q lacks %q", severity, diags[0].Detail(), p)
		}
	}
}

// createIn is create with the context Terraform would give, which it may cancel.
func createIn(ctx context.Context, t *testing.T, r resource.Resource, model any) *resource.CreateResponse {
	t.Helper()
	st := stateOf(t, r, model)
	resp := &resource.CreateResponse{State: tfsdk.State{Schema: st.Schema, Raw: tftypes.NewValue(st.Raw.Type(), nil)}}
	r.Create(ctx, resource.CreateRequest{
		Plan:   tfsdk.Plan(st),
		Config: tfsdk.Config(st),
	}, resp)
	return resp
}

// loseAnswers makes the sandbox answer 502 to every request of methods,
// after carrying it out ("after") or without doing anything ("before").
func loseAnswers(t *testing.T, srv *sandbox.Server, when string, methods ...string) {
	t.Helper()
	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{502}, When: when, Methods: methods}); err != nil {
		t.Fatal(err)
	}
}

// configureProvider runs Configure as an engine of engineVersion ("" for none)
// would, on a configuration of settings, every other one null.
func configureProvider(t *testing.T, getenv func(string) string, engineVersion string, settings map[string]any) provider.ConfigureResponse {
	t.Helper()
	ctx := context.Background()
	p := NewWithEnv("0.2.0", getenv)()
	var sr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sr)
	typ, ok := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatalf("the provider's schema is not an object")
	}
	var resp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{TerraformVersion: engineVersion,
		Config: tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, acctest.ObjectAttrs(typ, settings))}}, &resp)
	return resp
}

// serviceVariants are services the published API allows, each settling
// its open points another way than the sandbox's default: which envelope
// fields a page carries, how many items it holds at most, what a page past
// the last answers, how filters match, fields beyond those listed, and
// null for a listed string.
var serviceVariants = map[string]sandbox.Variant{
	"default":                          {},
	"next_page only, 25 a page":        {Envelope: []string{"next_page"}, MaxPageSize: 25},
	"results only, 404 past the end":   {Envelope: []string{}, PastEnd: sandbox.PastEnd404},
	"results only, empty past the end": {Envelope: []string{}, PastEnd: sandbox.PastEndEmpty, MaxPageSize: 25},
	"count only, 25 a page":            {Envelope: []string{"count"}, MaxPageSize: 25},
	"count and total_pages, no next":   {Envelope: []string{"count", "total_pages"}},
	"partial filters, extra, null":     {Envelope: []string{"total_pages", "page_size"}, Filters: sandbox.FiltersPartial, ExtraFields: true, NullFields: []string{"data_source"}},
	"ignored filters, next and count":  {Envelope: []string{"next_page", "count"}, Filters: sandbox.FiltersIgnored, ExtraFields: true, MaxPageSize: 25},
	"everything left out but results":  {Envelope: []string{}, Filters: sandbox.FiltersIgnored, NullFields: []string{"data_source", "schema_name"}, MaxPageSize: 30},
}

// variantEnv is a sandbox playing variant v, whose workspace holds 260
// jobs: 256 generated, the job of a connector made outside Terraform whose
// name contains name in upper case, and three jobs last in the service's
// order (on page 3 of 100) whose names a partial or ignored name filter
// confuses with "nightly", the last of them.
type variantEnv struct {
	*acctest.Env
	jobs    []sandbox.Job
	nightly sandbox.Job
	// other is the connector made outside Terraform: a name check that a
	// partial filter misleads would take it for the one to create.
	other *client.Connector
}

func newVariantEnv(t *testing.T, v sandbox.Variant, name string, run time.Duration) *variantEnv {
	t.Helper()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 256, Variant: v, RunDuration: run})
	e.RequireSandbox(t, "play a service that settles the API's open points another way")
	ve := &variantEnv{Env: e, other: e.MakeConnector(t, strings.ToUpper(name)+" (old)")}
	now := time.Now().UTC()
	for i, n := range []string{"nightly (copy)", "Nightly", "nightly"} {
		at := now.Add(time.Duration(i) * time.Second)
		if err := e.Sandbox.AddJobs(e.WorkspaceID, sandbox.Job{
			Name: n, DataSource: "zendesk", ConnectorName: "customer_service", SchemaName: "raw", IsActive: true, CreatedAt: at, UpdatedAt: at,
		}); err != nil {
			t.Fatal(err)
		}
	}
	ve.jobs = e.Sandbox.Jobs(e.WorkspaceID)
	ve.nightly = ve.jobs[len(ve.jobs)-1]
	if ve.nightly.Name != "nightly" || len(ve.jobs) != 260 {
		t.Fatalf("the sandbox's last job is %q of %d", ve.nightly.Name, len(ve.jobs))
	}
	return ve
}

// expectOnlyNightlyRan checks that "nightly" has the executions want
// (their statuses, oldest first) and every other job none, and that the
// connector made outside Terraform is still there.
func (ve *variantEnv) expectOnlyNightlyRan(want ...string) tfresource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, j := range ve.jobs {
			ex := ve.Sandbox.Executions(ve.WorkspaceID, j.ID)
			if j.ID != ve.nightly.ID {
				if len(ex) != 0 {
					return fmt.Errorf("job %q ran %d times, want none: only %q was named", j.Name, len(ex), ve.nightly.Name)
				}
				continue
			}
			got := make([]string, len(ex))
			for i, x := range ex {
				got[i] = x.Status
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("job %q has executions %v, want %v", j.Name, got, want)
			}
		}
		if _, ok := ve.Sandbox.Connector(ve.WorkspaceID, ve.other.ID); !ok {
			return fmt.Errorf("the connector %q made outside Terraform is gone", ve.other.Name)
		}
		return nil
	}
}

// testWaitsIfRunning starts an execution of a few seconds, then applies
// the configuration of the job that config gives: it must wait, and start
// the second execution after the first ended.
func testWaitsIfRunning(t *testing.T, config func(job string) string, checks ...tfresource.TestCheckFunc) {
	t.Helper()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: 3 * time.Second})
	e.RequireSandbox(t, "start an execution of a few seconds and read its times")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	tfresource.ParallelTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []tfresource.TestStep{{
			PreConfig: func() {
				if err := e.Client(t).TriggerJob(context.Background(), e.WorkspaceID, jobs[0], false); err != nil {
					t.Fatal(err)
				}
			},
			Config: e.ProviderConfig() + config(jobs[0]),
			Check: tfresource.ComposeAggregateTestCheckFunc(append(checks, func(*terraform.State) error {
				acctest.ExpectSequential(t, e.Sandbox.Executions(e.WorkspaceID, jobs[0]), 2)
				return nil
			})...),
		}},
	})
}

func expectProgress(t *testing.T, got []string, want string) {
	t.Helper()
	for _, p := range got {
		if strings.Contains(p, want) {
			return
		}
	}
	t.Errorf("progress %q, want a message with %q", got, want)
}

// runningJob is a sandbox of one job, with an execution of it started that runs for runFor.
func runningJob(t *testing.T, runFor time.Duration) (*sandbox.Server, *providerData, string) {
	t.Helper()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1, RunDuration: runFor}, sandbox.DefaultAPIKey)
	job := srv.Jobs(data.workspaceID)[0].ID
	if err := data.client.TriggerJob(t.Context(), data.workspaceID, job, false); err != nil {
		t.Fatal(err)
	}
	return srv, data, job
}

// frameworkServer is the provider as the framework alone serves it, without
// the jobs fast path, configured with settings; not configured when settings is nil.
func frameworkServer(tb testing.TB, settings map[string]string) tfprotov6.ProviderServer {
	tb.Helper()
	return frameworkServerIn(tb, os.Getenv, settings)
}

func frameworkServerIn(tb testing.TB, getenv func(string) string, settings map[string]string) tfprotov6.ProviderServer {
	tb.Helper()
	srv, err := providerserver.NewProtocol6WithError(NewWithEnv("test", getenv)())()
	if err != nil {
		tb.Fatal(err)
	}
	if settings != nil {
		cfg := acctest.ProtoValue(tb, serveProto(tb).Schemas.Provider, settings)
		resp, err := srv.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: &cfg})
		if err != nil {
			tb.Fatal(err)
		}
		acctest.FailOnProto(tb, resp.Diagnostics)
	}
	return srv
}

func sameDiagnostics(t *testing.T, got, want []*tfprotov6.Diagnostic) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("diagnostics: %v, the framework's %v", got, want)
	}
	for i, d := range got {
		w := want[i]
		if d.Severity != w.Severity || d.Summary != w.Summary || d.Detail != w.Detail || !d.Attribute.Equal(w.Attribute) {
			t.Errorf("diagnostic %d: %+v, the framework's %+v", i, d, w)
		}
	}
}

func ptr[T any](v T) *T { return &v }

type frameworkSpy struct {
	fullServer
	reads atomic.Int64
}

func (s *frameworkSpy) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	s.reads.Add(1)
	return s.fullServer.ReadDataSource(ctx, req)
}

// proxyPassword is the password of the tests' proxies: an engine that
// prints it fails the test.
const proxyPassword = "pr0xy-s3cret+x"

// madeOutside creates n connectors in e's workspace, side by side, as
// another team would: the workspace the tests' connectors share.
func madeOutside(t *testing.T, e *acctest.Env, n int) {
	t.Helper()
	c := e.Client(t)
	var wg sync.WaitGroup
	next := make(chan int)
	for range client.DefaultMaxConcurrentRequests {
		wg.Go(func() {
			for i := range next {
				_, err := c.CreateConnector(context.Background(), e.WorkspaceID, client.ConnectorSpec{
					Name: fmt.Sprintf("outside %d", i), URL: "https://other.example.com", Token: "other-token", AgentEmail: "other@acme.com",
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
