package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// expectHeldAtMost checks that the sandbox never held more than bound
// requests at once, and, when atLeast, that it held more than one: the
// pages were read side by side.
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

// TestAccPaging_sideBySide: over a link with latency, two lists of 1,000
// jobs (ten pages each) are read side by side, never more requests at once
// than max_concurrent_requests, each page once, and give exactly what one
// page after another gives, in the service's order and in another.
func TestAccPaging_sideBySide(t *testing.T) {
	testPaging(t, 1000, 3, 30)
}

// TestAccPaging_oneAtATime: max_concurrent_requests = 1 reads one page after
// another: the sandbox never holds two requests.
func TestAccPaging_oneAtATime(t *testing.T) {
	testPaging(t, 300, 1, 20)
}

// testPaging reads pagingHCL over a sandbox of jobs jobs, with
// max_concurrent_requests = bound, each request latencyMS late: both lists
// are those of one page after another, each page is read once, and the
// sandbox held at most bound requests at once (at least 2 when bound is).
func testPaging(t *testing.T, jobs, bound, latencyMS int) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: jobs})
	e.RequireSandbox(t, "add latency and count the requests held at once")
	all, byName := e.OneByOne(t, client.JobFilter{}), e.OneByOne(t, client.JobFilter{Ordering: "-name"})
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

// TestAccPaging_faults: with 30% of the requests answered 429 or 503 (each
// with Retry-After, which pauses every request), the jobs are the same, in
// the same order, and the bound holds.
func TestAccPaging_faults(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 1000})
	e.RequireSandbox(t, "inject faults and count the requests held at once")
	all := e.OneByOne(t, client.JobFilter{})
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

// TestJobsDataSourceReadsAChangedListAgain: a job created while the data
// source reads the list (between its pages) makes it read the list again
// from the start, once, and the state holds every job once; a list that
// keeps changing fails the read with a clear error.
func TestJobsDataSourceReadsAChangedListAgain(t *testing.T) {
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
