package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/jobsfastpath"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func TestAccJobsDataSource_all(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	want := e.JobsOneByOne(t, client.JobFilter{})
	if e.Sandbox != nil {
		// Against the sandbox, the oracle is its seed, not the list itself.
		want = nil
		for _, j := range sandbox.SeedJobs(e.WorkspaceID, sandbox.DefaultJobs) {
			want = append(want, client.Job{ID: j.ID})
		}
	}
	first := e.JobsOneByOne(t, client.JobFilter{})[0]
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectIDs(acctest.JobIDs(want)),
				statecheck.ExpectKnownValue(acctest.JobsAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.WorkspaceID)),
				statecheck.ExpectKnownValue(acctest.JobsAddress, tfjsonpath.New("jobs").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"id":             knownvalue.StringExact(first.ID),
					"name":           knownvalue.StringExact(*first.Name),
					"data_source":    knownvalue.StringExact(*first.DataSource),
					"connector_name": knownvalue.StringExact(*first.ConnectorName),
					"schema_name":    knownvalue.StringExact(*first.SchemaName),
					"is_active":      knownvalue.Bool(first.IsActive),
					"created_at":     knownvalue.StringExact(*first.CreatedAt),
					"updated_at":     knownvalue.StringExact(*first.UpdatedAt),
				})),
			},
		}},
	})
}

// TestAccJobsDataSource_filters: the provider must send the filters, and the
// service apply them.
func TestAccJobsDataSource_filters(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	all := e.JobsOneByOne(t, client.JobFilter{})
	ref := all[0]
	f := func(keep func(client.Job) bool) []string {
		var ids []string
		for _, j := range all {
			if keep(j) {
				ids = append(ids, j.ID)
			}
		}
		if len(ids) == 0 || len(ids) == len(all) {
			t.Fatalf("the workspace's jobs make a useless filter case: %d of %d match", len(ids), len(all))
		}
		return ids
	}
	cases := []struct {
		args string
		want []string
	}{
		{fmt.Sprintf("connector_name = %q", *ref.ConnectorName), f(func(j client.Job) bool { return *j.ConnectorName == *ref.ConnectorName })},
		{fmt.Sprintf("data_source = %q", *ref.DataSource), f(func(j client.Job) bool { return *j.DataSource == *ref.DataSource })},
		{fmt.Sprintf("name = %q", *ref.Name), f(func(j client.Job) bool { return *j.Name == *ref.Name })},
		{fmt.Sprintf("schema_name = %q", *ref.SchemaName), f(func(j client.Job) bool { return *j.SchemaName == *ref.SchemaName })},
		{"is_active = false", f(func(j client.Job) bool { return !j.IsActive })},
		{"is_active = true", f(func(j client.Job) bool { return j.IsActive })},
		{fmt.Sprintf("connector_name = %q\n  schema_name = %q", *ref.ConnectorName, *ref.SchemaName),
			f(func(j client.Job) bool {
				return *j.ConnectorName == *ref.ConnectorName && *j.SchemaName == *ref.SchemaName
			})},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:            e.ProviderConfig() + "data \"dataintegration_jobs\" \"test\" {\n  " + c.args + "\n}",
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(c.want)},
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

func TestAccJobsDataSource_ordering(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	all := e.JobsOneByOne(t, client.JobFilter{})
	if len(all) < 2 {
		t.Fatal("need at least two jobs to check an order")
	}
	slices.SortStableFunc(all, func(a, b client.Job) int { return strings.Compare(*b.Name, *a.Name) })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + `data "dataintegration_jobs" "test" { ordering = "-name" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectIDs(acctest.JobIDs(all)),
				statecheck.ExpectKnownValue(acctest.JobsAddress, tfjsonpath.New("ordering"), knownvalue.StringExact("-name")),
			},
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(acctest.JobsAddress, "jobs.0.name", *all[0].Name),
				resource.TestCheckResourceAttr(acctest.JobsAddress, "jobs.1.name", *all[1].Name),
			),
		}},
	})
}

// TestAccJobsDataSource_everyPage reads 250 jobs: three pages of 100, three
// requests, following next_page.
func TestAccJobsDataSource_everyPage(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 250})
	e.RequireSandbox(t, "seed 250 jobs and count the list requests")
	var want []string
	for _, j := range sandbox.SeedJobs(e.WorkspaceID, 250) {
		want = append(want, j.ID)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            e.ProviderConfig() + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(want)},
			// Checked right after the apply: the plan read the data source once.
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(acctest.JobsAddress, "jobs.#", "250"),
				e.ExpectRouteCount(acctest.RouteListJobs, 3),
			),
		}},
	})
}

func TestAccJobsDataSource_unknownOrdering(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	want := []string{"Unable to List Jobs", "HTTP 400"}
	if e.Sandbox != nil {
		want = append(want, `invalid ordering field "colour"`)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      e.ProviderConfig() + `data "dataintegration_jobs" "test" { ordering = "colour" }`,
			ExpectError: acctest.Phrases(want...),
		}},
	})
}

// TestAccJobsDataSource_missingWorkspace runs with no workspace anywhere:
// not in the provider, not in the data source, not in the environment.
func TestAccJobsDataSource_missingWorkspace(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	config := e.ProviderWithoutWorkspace() + `data "dataintegration_jobs" "test" {}`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: noWorkspaceEnv().factories(),
		Steps: []resource.TestStep{{
			Config:      config,
			ExpectError: acctest.Phrases("Missing Workspace", "workspace_id", "DATAINTEGRATION_WORKSPACE_ID"),
		}},
	})
	e.ExpectNoRequests(t)
}

func TestAccJobsDataSource_unknownAPIKey(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	badKey := "not-a-key-" + strings.Repeat("7", 24)
	config := e.ProviderWithKey(badKey) + `data "dataintegration_jobs" "test" {}`
	check := &acctest.ErrorMatching{Want: acctest.Phrases("Authentication Failed", "Authentication failed", "HTTP 401"), Secrets: []string{badKey, e.APIKey}}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		ErrorCheck:               check.Check,
		Steps:                    []resource.TestStep{{Config: config}},
	})
	if !check.Seen {
		t.Error("the apply with an unknown API key did not fail")
	}
}

// TestAccJobsDataSource_refusedKeyNamesItsSource: of two configurations, the
// error tells apart the one whose key is refused. It drives the engine by
// hand: the in-process harness serves both configurations from one provider
// instance, where the last Configure answers for both.
func TestAccJobsDataSource_refusedKeyNamesItsSource(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	badKey := "not-a-key-" + strings.Repeat("7", 24)
	host := strings.TrimPrefix(strings.TrimPrefix(e.BaseURL, "http://"), "https://")
	dir := acctest.ConfigDir(t, e.ProviderConfig()+fmt.Sprintf(`
provider "dataintegration" {
  alias        = "other"
  base_url     = %q
  workspace_id = %q
}

data "dataintegration_jobs" "test" {}

data "dataintegration_jobs" "other" {
  provider = dataintegration.other
}
`, e.BaseURL, e.WorkspaceID))
	check := &acctest.ErrorMatching{
		Want:    acctest.Phrases("Authentication Failed", "the service at "+host, "workspace "+e.WorkspaceID, "The key came from the "+providerenv.APIKey+" environment variable"),
		Secrets: []string{badKey, e.APIKey},
	}
	_, err := eng.Try(dir, []string{providerenv.APIKey + "=" + badKey}, "plan", "-input=false", "-no-color")
	if err == nil {
		t.Fatal("the plan with a refused API key did not fail")
	}
	if err := check.Check(err); err != nil {
		t.Error(err)
	}
}

// TestAccJobsDataSource_cutAnswers: with 30% of the pages' answers cut
// short mid-body, the data source still reads every job, in order, once.
func TestAccJobsDataSource_cutAnswers(t *testing.T) {
	const jobs = 1000
	e := acctest.NewEnv(t, sandbox.Config{Jobs: jobs})
	e.RequireSandbox(t, "cut answers short")
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, When: sandbox.FaultsCut, Methods: []string{"GET"}, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	var want []client.Job
	for _, j := range sandbox.SeedJobs(e.WorkspaceID, jobs) {
		want = append(want, client.Job{ID: j.ID})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            e.ProviderConfig() + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(acctest.JobIDs(want))},
		}},
	})
	if f := e.Sandbox.Stats().Faults; f == 0 {
		t.Error("no answer was cut short")
	}
}

// TestJobsDataSource_readsEachPageOnce: over 10,000 jobs, the data source
// makes exactly 100 list requests, the API's floor, and returns every job.
func TestJobsDataSource_readsEachPageOnce(t *testing.T) {
	t.Parallel()
	srv, err := sandbox.New(sandbox.Config{Jobs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	p := newProtoProvider(t, map[string]string{"base_url": ts.URL, "api_key": sandbox.DefaultAPIKey, "workspace_id": sandbox.DefaultWorkspaceID})
	state := p.ReadJobs(t)
	if n := p.JobsInState(t, state); n != 10000 {
		t.Errorf("%d jobs in the state, want 10000", n)
	}
	st := srv.Stats()
	if st.Requests != 100 || st.ByRoute[acctest.RouteListJobs] != 100 {
		t.Errorf("%d requests (%v), want exactly 100 list requests", st.Requests, fmt.Sprint(st.ByRoute))
	}
}

// clientAndConversion is a read of every job as the data source does it.
func clientAndConversion(tb testing.TB, p *acctest.ProtoProvider, base string) func() {
	tb.Helper()
	typ, ok := p.Schemas.DataSourceSchemas[jobsTypeName].ValueType().(tftypes.Object)
	if !ok {
		tb.Fatal("the data source's type is not an object")
	}
	c, err := client.New(client.Config{BaseURL: base, APIKey: sandbox.DefaultAPIKey, Version: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	attrs := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(t, nil)
	}
	return func() {
		sink, err := jobsfastpath.NewPackedJobs(typ, jobsSource{}.Fields(), newJobModel)
		if err != nil {
			tb.Fatal(err)
		}
		if err := c.EachJobPage(context.Background(), sandbox.DefaultWorkspaceID, client.JobFilter{}, client.Visitor[client.Job]{Page: sink.Add, Reset: sink.Reset}); err != nil || sink.Len() != 10000 {
			tb.Fatalf("%d jobs, %v", sink.Len(), err)
		}
		if _, err := sink.State(attrs); err != nil {
			tb.Fatal(err)
		}
	}
}

func BenchmarkJobsDataSource_clientAndConversion(b *testing.B) {
	s := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	read := clientAndConversion(b, newProtoProvider(b, map[string]string{"base_url": s.BaseURL, "api_key": s.APIKey}), s.BaseURL)
	b.ReportAllocs()
	for b.Loop() {
		read()
	}
}

// BenchmarkJobsDataSource_againstBareLoop holds the read of 10,000 jobs to at
// most 1.2 times the bare loop's, in turns so that the machine's load falls on
// both alike. make bench prints its row.
func BenchmarkJobsDataSource_againstBareLoop(b *testing.B) {
	e := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	p := newProtoProvider(b, map[string]string{"base_url": e.BaseURL, "api_key": e.APIKey, "workspace_id": e.WorkspaceID})
	read := clientAndConversion(b, p, e.BaseURL)
	ours, bare := time.Duration(1<<63-1), time.Duration(1<<63-1)
	for range 5 {
		ours = min(ours, acctest.Best(1, read))
		bare = min(bare, acctest.Best(1, func() {
			if n, err := acctest.BareRead(e.BaseURL); err != nil || n != 10000 {
				b.Fatalf("bare loop: %d jobs, %v", n, err)
			}
		}))
	}
	ratio := float64(ours) / float64(bare)
	rows := []acctest.BenchRow{{
		Figure: "same read: the provider's client and data-source conversion against a bare net/http + encoding/json loop, best of 5",
		Value:  fmt.Sprintf("%.2f× (%v against %v)", ratio, ours.Round(time.Millisecond), bare.Round(time.Millisecond)),
		Target: "at most 1.2×", Met: ratio <= 1.2,
	}}
	acctest.PrintFigures(rows)
	b.ReportMetric(ratio, "provider/bare")
	acctest.Missed(b, rows)
}

// TestJobsDataSource_readLeavesConfigAlone: jobs written into the configuration
// would make the framework compare each with it after Read, for nothing
// (BENCHMARKS.md, "The 10,000-job plan").
func TestJobsDataSource_readLeavesConfigAlone(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 150})
	ctx := context.Background()
	d := &jobsDataSource{data: &providerData{client: e.Client(t), workspaceID: e.WorkspaceID}}
	var s datasource.SchemaResponse
	d.Schema(ctx, datasource.SchemaRequest{}, &s)
	typ, ok := s.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema's type is not an object")
	}
	config := tftypes.NewValue(typ, acctest.ObjectAttrs[any](typ, nil))
	want := config.Copy()
	resp := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema, Raw: config.Copy()}}
	d.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: config}}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if !config.Equal(want) {
		t.Error("Read wrote into the configuration it was given")
	}
	var ids []string
	resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("ids"), &ids)...)
	if resp.Diagnostics.HasError() || len(ids) != 150 {
		t.Errorf("the state holds %d ids, want 150: %v", len(ids), resp.Diagnostics)
	}
}

// TestJobsDataSource_readsAChangedListAgain: a job created between pages makes
// the read start again, once; a list that keeps changing fails it.
func TestJobsDataSource_readsAChangedListAgain(t *testing.T) {
	t.Parallel()
	for _, changes := range []int64{1, 2} {
		srv, err := sandbox.New(sandbox.Config{Jobs: 450})
		if err != nil {
			t.Fatal(err)
		}
		var left atomic.Int64
		left.Store(changes)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") == "3" && left.Add(-1) >= 0 {
				if err := srv.AddJobs(sandbox.DefaultWorkspaceID, sandbox.Job{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", left.Load()), Name: "new"}); err != nil {
					t.Error(err)
				}
			}
			srv.ServeHTTP(w, r)
		}))
		p := newProtoProvider(t, map[string]string{"base_url": ts.URL, "api_key": sandbox.DefaultAPIKey, "workspace_id": sandbox.DefaultWorkspaceID})
		resp := p.ReadJobsResponse(t)
		switch changes {
		case 1:
			var want []string
			for _, j := range srv.Jobs(sandbox.DefaultWorkspaceID) {
				want = append(want, j.ID)
			}
			if got := p.IDsInState(t, resp.State); len(want) != 451 || !slices.Equal(got, want) {
				t.Errorf("one change: %d jobs in the state, want the sandbox's %d in its order", len(got), len(want))
			}
			// Page 1 to 5 asked, then the list again: 5 pages.
			if got := srv.Stats().ByRoute[acctest.RouteListJobs]; got < 6 || got > 10 {
				t.Errorf("one change: %d list requests, want 6 to 10", got)
			}
		case 2:
			if len(resp.Diagnostics) == 0 || !strings.Contains(resp.Diagnostics[0].Detail, "changed while it was read, twice in a row") ||
				strings.Contains(resp.Diagnostics[0].Detail, "could not be read") {
				t.Errorf("two changes: %v", resp.Diagnostics)
			}
		}
		ts.Close()
	}
}

// TestAccPaging_sideBySide: pages read side by side, within
// max_concurrent_requests, give what one page after another gives.
func TestAccPaging_sideBySide(t *testing.T) {
	testPaging(t, 1000, 3, 30)
}

// TestAccPaging_oneAtATime: max_concurrent_requests = 1 reads one page after
// another: the sandbox never holds two requests.
func TestAccPaging_oneAtATime(t *testing.T) {
	testPaging(t, 300, 1, 20)
}

func TestAccPaging_faults(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 1000})
	e.RequireSandbox(t, "inject faults and count the requests held at once")
	all := acctest.JobIDs(e.JobsOneByOne(t, client.JobFilter{}))
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 503}, Seed: 7, LatencyMS: 10}); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            e.ProviderConfig("max_retries = 10", "max_concurrent_requests = 4") + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(all)},
			Check: resource.ComposeTestCheckFunc(
				expectHeldAtMost(e, 4, false),
				func(*terraform.State) error {
					if e.Sandbox.Stats().Faults == 0 {
						return fmt.Errorf("no fault was injected: the test proved nothing")
					}
					return nil
				},
			),
		}},
	})
}

// TestAccLists_serviceVariants runs every list and lookup against each service
// of serviceVariants: each finds exactly its own, not what a partial or
// ignored filter also matches.
func TestAccLists_serviceVariants(t *testing.T) {
	for label, v := range serviceVariants {
		t.Run(label, func(t *testing.T) {
			name := acctest.Name("variant")
			e := newVariantEnv(t, v, name, time.Millisecond)
			ids := make([]string, len(e.jobs))
			for i, j := range e.jobs {
				ids[i] = j.ID
			}
			page3 := e.jobs[210]
			config := e.ProviderConfig() + fmt.Sprintf(`
data "dataintegration_jobs" "all" {}

data "dataintegration_job" "by_id" {
  id = %q
}

data "dataintegration_job" "by_name" {
  name = "nightly"
}

resource "dataintegration_job_trigger" "nightly" {
  job_name = "nightly"
}

resource "dataintegration_customer_service_connector" "c" {
  name        = %q
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = "platform-token-1"
}

data "dataintegration_customer_service_connector" "by_name" {
  name = dataintegration_customer_service_connector.c.name
}
`, page3.ID, name)
			// A field the service sends as null is null; else it is set.
			nulls := func(addr, prefix, field string) resource.TestCheckFunc {
				if slices.Contains(v.NullFields, field) {
					return resource.TestCheckNoResourceAttr(addr, prefix+field)
				}
				return resource.TestCheckResourceAttrSet(addr, prefix+field)
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: config,
						Check: resource.ComposeAggregateTestCheckFunc(
							expectList("data.dataintegration_jobs.all", "ids", ids),
							resource.TestCheckResourceAttr("data.dataintegration_jobs.all", "jobs.#", "260"),
							resource.TestCheckResourceAttr("data.dataintegration_job.by_id", "name", page3.Name),
							nulls("data.dataintegration_job.by_id", "", "data_source"),
							nulls("data.dataintegration_job.by_id", "", "schema_name"),
							nulls("data.dataintegration_jobs.all", "jobs.259.", "data_source"),
							resource.TestCheckResourceAttr("data.dataintegration_job.by_name", "id", e.nightly.ID),
							resource.TestCheckResourceAttr("dataintegration_job_trigger.nightly", "job_id", e.nightly.ID),
							resource.TestCheckResourceAttrPair("data.dataintegration_customer_service_connector.by_name", "id", "dataintegration_customer_service_connector.c", "id"),
							e.expectOnlyNightlyRan(sandbox.StatusSucceeded),
						),
					},
					{Config: config, PlanOnly: true},
				},
			})
		})
	}
}

// expectHeldAtMost: never more than bound requests at once and, when atLeast,
// more than one.
func expectHeldAtMost(e *acctest.Env, bound int64, atLeast bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		held := e.Sandbox.Stats().MaxInFlight
		if held > bound || atLeast && held < 2 {
			return fmt.Errorf("the sandbox held %d requests at once, want 2 to %d", held, bound)
		}
		return nil
	}
}

const pagingHCL = `
data "dataintegration_jobs" "test" {}

data "dataintegration_jobs" "by_name" {
  ordering = "-name"
}
`

func testPaging(t *testing.T, jobs, bound, latencyMS int) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: jobs})
	e.RequireSandbox(t, "add latency and count the requests held at once")
	all, byName := acctest.JobIDs(e.JobsOneByOne(t, client.JobFilter{})), acctest.JobIDs(e.JobsOneByOne(t, client.JobFilter{Ordering: "-name"}))
	if slices.Equal(all, byName) {
		t.Fatal("the two orders are the same: the test could not tell them apart")
	}
	if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: latencyMS}); err != nil {
		t.Fatal(err)
	}
	before := e.Sandbox.Stats().ByRoute[acctest.RouteListJobs]
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig(fmt.Sprintf("max_concurrent_requests = %d", bound)) + pagingHCL,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectIDs(all),
				statecheck.ExpectKnownValue("data.dataintegration_jobs.by_name", tfjsonpath.New("ids"), acctest.StringsExact(byName...)),
			},
			Check: resource.ComposeTestCheckFunc(
				e.ExpectRouteCount(acctest.RouteListJobs, before+int64(2*jobs/client.PageSize)),
				expectHeldAtMost(e, int64(bound), bound > 1),
			),
		}},
	})
}

// expectList checks that the list attribute attr of the resource at addr
// holds want, in order.
func expectList(addr, attr string, want []string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s is not in the state", addr)
		}
		got := make([]string, 0, len(want))
		for i := 0; ; i++ {
			v, ok := rs.Primary.Attributes[fmt.Sprintf("%s.%d", attr, i)]
			if !ok {
				break
			}
			got = append(got, v)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s.%s holds %d items, want %d in the service's order (first difference at %d)", addr, attr, len(got), len(want), firstDifference(got, want))
		}
		return nil
	}
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
