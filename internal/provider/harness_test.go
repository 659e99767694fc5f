// The provider's own harness, for what needs this package: the provider
// served in-process to the engine (testAccProtoV6ProviderFactories) and
// over protocol 6 (serveProto, newProtoProvider), and the unit helpers that
// call a resource's or an action's methods directly, with a client to a
// sandbox (unitSandbox, configured, create, destroy, invoke), for outcomes
// an engine cannot set up, and the checks of their diagnostics (onlyError,
// onlyWarning, failOn). Everything else a test needs is in
// internal/acctest, whose package comment says which harness to use when.

package provider

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// testAccProtoV6ProviderFactories serves the provider in-process to the
// Terraform CLI that the acceptance tests drive.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"dataintegration": NewServer("test"),
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

// serveProto serves this package's provider over protocol 6, in-process,
// not configured yet.
func serveProto(tb testing.TB) *acctest.ProtoProvider {
	tb.Helper()
	return acctest.ServeProto(tb, NewServer("test"))
}

// newProtoProvider serves this package's provider over protocol 6,
// in-process, configured with settings.
func newProtoProvider(tb testing.TB, settings map[string]string) *acctest.ProtoProvider {
	tb.Helper()
	return acctest.NewProtoProvider(tb, NewServer("test"), settings)
}

// unitSandbox is a sandbox and the provider data of a client to it, for
// tests that call a resource's methods directly.
func unitSandbox(t *testing.T, cfg sandbox.Config, apiKey string) (*sandbox.Server, *providerData) {
	t.Helper()
	return unitSandboxAt(t, cfg, apiKey, "")
}

// unitSandboxAt is unitSandbox with a path after the sandbox's address in
// the client's base URL.
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

// configured is r after Configure with data.
func configured(t *testing.T, r resource.Resource, data *providerData) resource.Resource {
	t.Helper()
	var resp resource.ConfigureResponse
	r.(resource.ResourceWithConfigure).Configure(context.Background(), resource.ConfigureRequest{ProviderData: data}, &resp)
	failOn(t, resp.Diagnostics)
	return r
}

// stateOf is r's state holding model.
func stateOf(t *testing.T, r resource.Resource, model any) tfsdk.State {
	t.Helper()
	ctx := context.Background()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	st := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
	failOn(t, st.Set(ctx, model))
	return st
}

// destroy calls r's Delete on a state holding model.
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

// invoked is what an Invoke answered: its diagnostics and the progress it
// sent.
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

// runJob is a dataintegration_run_job configuration of the job by ID, in
// the provider's workspace, with if_running.
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

// create calls r's Create with a plan and configuration holding model.
func create(t *testing.T, r resource.Resource, model any) *resource.CreateResponse {
	t.Helper()
	return createIn(context.Background(), t, r, model)
}

// made creates a connector straight through the client, as someone else
// would.
func made(t *testing.T, data *providerData, spec client.ConnectorSpec) string {
	t.Helper()
	c, err := data.client.CreateConnector(t.Context(), data.workspaceID, spec)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// onlyWarning checks that diags hold one warning with the summary and the
// phrases, and no error.
func onlyWarning(t *testing.T, diags diag.Diagnostics, summary string, phrases ...string) {
	t.Helper()
	only(t, diags, diag.SeverityWarning, summary, phrases...)
}

// onlyError checks that diags hold one error with the summary and the
// phrases, and no warning.
func onlyError(t *testing.T, diags diag.Diagnostics, summary string, phrases ...string) {
	t.Helper()
	only(t, diags, diag.SeverityError, summary, phrases...)
}

// only checks that diags hold one diagnostic, of the severity, with the
// summary and the phrases.
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

// createIn is create with the context Terraform would give, which it may
// cancel.
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

// configureAs runs the provider's Configure, as an engine of version
// engineVersion ("" for none) would, on a configuration of the given
// settings, every other one null.
func configureAs(t *testing.T, engineVersion string, settings map[string]any) provider.ConfigureResponse {
	t.Helper()
	ctx := context.Background()
	p := New("0.2.0")()
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
