package provider

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

const jobsAddress = "data.dataintegration_jobs.test"

// jobIDs are the IDs of jobs, in their order.
func jobIDs(jobs []client.Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// expectIDs checks the ids attribute of the test's jobs data source.
func expectIDs(ids []string) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(jobsAddress, tfjsonpath.New("ids"), stringsExact(ids...))
}

func TestAccJobsDataSource_all(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	want := e.allJobs(t)
	if e.sandbox != nil {
		// Against the sandbox, the oracle is its seed, not the list itself.
		want = nil
		for _, j := range sandbox.SeedJobs(e.workspaceID, sandbox.DefaultJobs) {
			want = append(want, client.Job{ID: j.ID})
		}
	}
	first := e.allJobs(t)[0]
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.providerConfig() + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				expectIDs(jobIDs(want)),
				statecheck.ExpectKnownValue(jobsAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.workspaceID)),
				statecheck.ExpectKnownValue(jobsAddress, tfjsonpath.New("jobs").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
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
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	all := e.allJobs(t)
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
			Config:            e.providerConfig() + "data \"dataintegration_jobs\" \"test\" {\n  " + c.args + "\n}",
			ConfigStateChecks: []statecheck.StateCheck{expectIDs(c.want)},
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

func TestAccJobsDataSource_ordering(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	all := e.allJobs(t)
	if len(all) < 2 {
		t.Fatal("need at least two jobs to check an order")
	}
	slices.SortStableFunc(all, func(a, b client.Job) int { return strings.Compare(*b.Name, *a.Name) })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.providerConfig() + `data "dataintegration_jobs" "test" { ordering = "-name" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				expectIDs(jobIDs(all)),
				statecheck.ExpectKnownValue(jobsAddress, tfjsonpath.New("ordering"), knownvalue.StringExact("-name")),
			},
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(jobsAddress, "jobs.0.name", *all[0].Name),
				resource.TestCheckResourceAttr(jobsAddress, "jobs.1.name", *all[1].Name),
			),
		}},
	})
}

// TestAccJobsDataSource_everyPage reads 250 jobs: three pages of 100, three
// requests, following next_page.
func TestAccJobsDataSource_everyPage(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: 250})
	e.requireSandbox(t, "seed 250 jobs and count the list requests")
	var want []string
	for _, j := range sandbox.SeedJobs(e.workspaceID, 250) {
		want = append(want, j.ID)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            e.providerConfig() + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{expectIDs(want)},
			// Checked right after the apply: the plan read the data source once.
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(jobsAddress, "jobs.#", "250"),
				e.expectRouteCount(routeListJobs, 3),
			),
		}},
	})
}

func TestAccJobsDataSource_unknownOrdering(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	want := []string{"Unable to List Jobs", "HTTP 400"}
	if e.sandbox != nil {
		want = append(want, `invalid ordering field "colour"`)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      e.providerConfig() + `data "dataintegration_jobs" "test" { ordering = "colour" }`,
			ExpectError: phrases(want...),
		}},
	})
}

// TestAccJobsDataSource_missingWorkspace runs with no workspace anywhere:
// not in the provider, not in the data source, not in the environment.
func TestAccJobsDataSource_missingWorkspace(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	t.Setenv(EnvWorkspaceID, "")
	config := e.providerWithoutWorkspace() + `data "dataintegration_jobs" "test" {}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      config,
			ExpectError: phrases("Missing Workspace", "workspace_id", "DATAINTEGRATION_WORKSPACE_ID"),
		}},
	})
	e.expectNoRequests(t)
}

func TestAccJobsDataSource_unknownAPIKey(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	badKey := "not-a-key-" + strings.Repeat("7", 24)
	config := e.providerWithKey(badKey) + `data "dataintegration_jobs" "test" {}`
	check := &errorMatching{re: phrases("Authentication Failed", "Authentication failed", "HTTP 401"), secrets: []string{badKey, e.apiKey}}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		ErrorCheck:               check.check,
		Steps:                    []resource.TestStep{{Config: config}},
	})
	if !check.seen {
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
	state := p.readJobs(t)
	if n := p.jobsInState(t, state); n != 10000 {
		t.Errorf("%d jobs in the state, want 10000", n)
	}
	st := srv.Stats()
	if st.Requests != 100 || st.ByRoute[routeListJobs] != 100 {
		t.Errorf("%d requests (%v), want exactly 100 list requests", st.Requests, fmt.Sprint(st.ByRoute))
	}
}
