package provider

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func TestAccJobsDataSource_all(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	want := e.AllJobs(t)
	if e.Sandbox != nil {
		// Against the sandbox, the oracle is its seed, not the list itself.
		want = nil
		for _, j := range sandbox.SeedJobs(e.WorkspaceID, sandbox.DefaultJobs) {
			want = append(want, client.Job{ID: j.ID})
		}
	}
	first := e.AllJobs(t)[0]
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

// TestAccJobsDataSource_filters checks each filter alone and two together
// against the unfiltered list filtered here: the provider must send the
// filters, and the service apply them.
func TestAccJobsDataSource_filters(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	all := e.AllJobs(t)
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
	all := e.AllJobs(t)
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
	t.Setenv(EnvWorkspaceID, "")
	config := e.ProviderWithoutWorkspace() + `data "dataintegration_jobs" "test" {}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
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

// TestJobsDataSourceReadsEachPageOnce: over 10,000 jobs, the data source
// makes exactly 100 list requests, the API's floor, and returns every job.
func TestJobsDataSourceReadsEachPageOnce(t *testing.T) {
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

// clientAndConversion returns a read of every job as the data source does
// it: the provider's client, and the encoding of each page into the state
// Terraform receives, the state itself included.
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
		sink, err := newPackedJobs(typ)
		if err != nil {
			tb.Fatal(err)
		}
		if err := c.EachJobPage(context.Background(), sandbox.DefaultWorkspaceID, client.JobFilter{}, client.Visitor[client.Job]{Page: sink.add, Reset: sink.reset}); err != nil || sink.n != 10000 {
			tb.Fatalf("%d jobs, %v", sink.n, err)
		}
		if _, err := sink.state(attrs); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkClientAndConversion is the provider's client and conversion of
// 10,000 jobs, BenchmarkJobsRead the whole read through the protocol, and
// BenchmarkBareRead the bare loop, for `go test -bench`.
func BenchmarkClientAndConversion(b *testing.B) {
	s := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	read := clientAndConversion(b, newProtoProvider(b, map[string]string{"base_url": s.BaseURL, "api_key": s.APIKey}), s.BaseURL)
	b.ReportAllocs()
	for b.Loop() {
		read()
	}
}

// BenchmarkClientAndConversionAgainstBareLoop holds the provider's client and
// the data source's conversion of 10,000 jobs to at most 1.2 times the bare
// loop's read (acctest.BareRead), best of 5 each, in turns so that the
// machine's load falls on both alike. make bench prints its row.
func BenchmarkClientAndConversionAgainstBareLoop(b *testing.B) {
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
