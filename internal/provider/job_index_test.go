package provider

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestJobLookup_lookupsShareOnePass: 50 lookups by ID at once, over a workspace of
// 1,000 jobs (10 pages), cost one pass of 10 list requests, and each finds
// its job.
func TestJobLookup_lookupsShareOnePass(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1000}, sandbox.DefaultAPIKey)
	jobs := srv.Jobs(data.workspaceID)
	var wg sync.WaitGroup
	for i := range 50 {
		want := jobs[i*20+19] // spread over every page, the last job included
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := data.jobs.find(context.Background(), data.client, data.workspaceID, want.ID)
			if err != nil || j == nil || j.ID != want.ID || *j.Name != want.Name {
				t.Errorf("lookup of %s: %+v, %v", want.ID, j, err)
			}
		}()
	}
	wg.Wait()
	if got := srv.Stats().ByRoute[acctest.RouteListJobs]; got != 10 {
		t.Errorf("50 lookups made %d list requests, want 10: one shared pass", got)
	}
}

// TestJobLookup_stopsAtItsPage: a lone lookup reads no further than the page
// that holds its job, a later lookup of a job already seen reads nothing,
// and one of a job further on reads on from there. One page after another
// (max_concurrent_requests = 1), that is the page itself; side by side, no
// more than twice the bound of pages past the one awaited (a page asked may
// still be on its way when the lookup returns: hence a range).
func TestJobLookup_stopsAtItsPage(t *testing.T) {
	t.Parallel()
	type step struct {
		index  int
		lo, hi int64 // list requests so far
	}
	for _, tc := range []struct {
		name  string
		bound int
		steps []step
	}{
		{"one page after another", 1, []step{{250, 3, 3}, {10, 3, 3}, {299, 3, 3}, {300, 4, 4}, {2999, 30, 30}}},
		// Pages are asked up to 16 ahead of the one awaited, 8 at once:
		// page 3 is awaited with pages up to 18 asked; page 4, up to 19;
		// the last job, every page once.
		{"side by side", 8, []step{{250, 3, 18}, {10, 3, 18}, {299, 3, 18}, {300, 4, 19}, {2999, 30, 30}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, data := unitSandboxAt(t, sandbox.Config{Jobs: 3000}, sandbox.DefaultAPIKey, "", func(c *client.Config) { c.MaxConcurrentRequests = tc.bound })
			jobs := srv.Jobs(data.workspaceID)
			ctx := context.Background()
			for _, c := range tc.steps {
				if j, err := data.jobs.find(ctx, data.client, data.workspaceID, jobs[c.index].ID); err != nil || j == nil || j.ID != jobs[c.index].ID {
					t.Fatalf("job %d: %v, %v", c.index, j, err)
				}
				if got := srv.Stats().ByRoute[acctest.RouteListJobs]; got < c.lo || got > c.hi {
					t.Errorf("after looking up job %d: %d list requests, want %d to %d", c.index, got, c.lo, c.hi)
				}
			}
		})
	}
}

// TestJobLookup_seesJobsCreatedSince: an ID missing from a pass that began
// before the lookup gets a new pass, so that a job created since is found;
// an ID missing from a fresh pass is not found, without a second pass.
func TestJobLookup_seesJobsCreatedSince(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 150}, sandbox.DefaultAPIKey)
	ctx := context.Background()
	missing := uuid.NewString()
	if j, err := data.jobs.find(ctx, data.client, data.workspaceID, missing); j != nil || err != nil {
		t.Fatalf("an unknown ID: %+v, %v", j, err)
	}
	if got := srv.Stats().ByRoute[acctest.RouteListJobs]; got != 2 {
		t.Errorf("an unknown ID cost %d list requests, want 2: one pass", got)
	}
	added := sandbox.Job{ID: uuid.NewString(), Name: "added", IsActive: true}
	if err := srv.AddJobs(data.workspaceID, added); err != nil {
		t.Fatal(err)
	}
	j, err := data.jobs.find(ctx, data.client, data.workspaceID, added.ID)
	if err != nil || j == nil || *j.Name != "added" {
		t.Fatalf("a job created after the first pass: %+v, %v", j, err)
	}
	if got := srv.Stats().ByRoute[acctest.RouteListJobs]; got != 4 {
		t.Errorf("%d list requests in all, want 4: a second pass for the new job", got)
	}
}

// TestJobLookup_failureIsShared: when a page cannot be read, every lookup
// waiting on that pass gets the error, and the page is not read again by
// each of them.
func TestJobLookup_failureIsShared(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 300}, sandbox.DefaultAPIKey)
	jobs := srv.Jobs(data.workspaceID)
	// Slow enough that every lookup joins the pass before its first page
	// fails.
	if err := srv.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{500}, LatencyMS: 200}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := data.jobs.find(context.Background(), data.client, data.workspaceID, jobs[i*25].ID); err == nil {
				t.Error("a lookup succeeded against a failing service")
			}
		}()
	}
	wg.Wait()
	// The client makes no retry here (MaxRetries 0).
	if got := srv.Stats().ByRoute[acctest.RouteListJobs]; got != 1 {
		t.Errorf("%d list requests for 10 lookups of one failing pass, want 1", got)
	}
	if err := srv.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	if j, err := data.jobs.find(context.Background(), data.client, data.workspaceID, jobs[0].ID); err != nil || j == nil {
		t.Errorf("after the service recovered: %+v, %v", j, err)
	}
}

// TestJobLookup_ignoresLetterCase: a UUID is the same in any letter case, so
// an upper-case ID finds its job, and the lower-case one after it is served
// by the same pass.
func TestJobLookup_ignoresLetterCase(t *testing.T) {
	t.Parallel()
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 250}, sandbox.DefaultAPIKey)
	want := srv.Jobs(data.workspaceID)[150]
	ctx := context.Background()
	for _, id := range []string{strings.ToUpper(want.ID), want.ID} {
		j, err := data.jobs.find(ctx, data.client, data.workspaceID, id)
		if err != nil || j == nil || j.ID != want.ID {
			t.Fatalf("lookup of %s: %+v, %v", id, j, err)
		}
	}
	// Page 3 is asked beside page 2, and may still be on its way.
	if got := srv.Stats().ByRoute[acctest.RouteListJobs]; got < 2 || got > 3 {
		t.Errorf("two lookups of the job on page 2 made %d list requests, want 2 or 3: one pass, each page once", got)
	}
}
