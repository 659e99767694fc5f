package sandbox

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func names(page any) []string {
	var out []string
	for _, r := range page.(map[string]any)["results"].([]any) {
		out = append(out, r.(map[string]any)["name"].(string))
	}
	return out
}

func TestJobs_defaults(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: DefaultJobs})
	p := h.expect("GET", jobsPath(""), nil, 200, "").(map[string]any)
	if p["count"].(float64) != 25 || p["page_size"].(float64) != 20 || len(p["results"].([]any)) != 20 {
		t.Fatalf("default page: %v", p)
	}
	if got := h.srv.Jobs(ws); len(got) != 25 || !slices.EqualFunc(got, SeedJobs(ws, 25), func(a, b Job) bool { return a.ID == b.ID }) {
		t.Fatal("the workspace does not hold the seeded jobs in creation order")
	}
	if a, b := SeedJobs(ws, 3), SeedJobs(ws, 3); !slices.Equal(a, b) {
		t.Fatal("seeded jobs differ between calls")
	}
}

func TestJobs_pagination(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 45})
	for _, c := range []struct {
		query               string
		size, page, results float64
		next, prev          any
		total               float64
	}{
		{"", 20, 1, 20, 2.0, nil, 3},
		{"?page=3", 20, 3, 5, nil, 2.0, 3},
		{"?page_size=500", 100, 1, 45, nil, nil, 1},
		{"?page_size=-3", 20, 1, 20, 2.0, nil, 3},
		{"?page_size=abc&page=2", 20, 2, 20, 3.0, 1.0, 3},
	} {
		p := h.expect("GET", jobsPath(c.query), nil, 200, "").(map[string]any)
		if p["page_size"] != c.size || p["current_page"] != c.page || float64(len(p["results"].([]any))) != c.results ||
			p["next_page"] != c.next || p["previous_page"] != c.prev || p["total_pages"] != c.total || p["count"] != 45.0 {
			t.Errorf("%s: envelope %v", c.query, p)
		}
	}
	for _, q := range []string{"?page=4", "?page=0", "?page=-1", "?page=x"} {
		h.expect("GET", jobsPath(q), nil, 404, "Invalid page.")
	}
	p := h.expect("GET", jobsPath("?name=nobody"), nil, 200, "").(map[string]any)
	if p["count"] != 0.0 || p["total_pages"] != 1.0 || p["next_page"] != nil || len(p["results"].([]any)) != 0 {
		t.Errorf("empty result: %v", p)
	}
}

func TestJobs_filters(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: DefaultJobs})
	all := SeedJobs(ws, DefaultJobs)
	count := func(keep func(Job) bool) float64 {
		n := 0
		for _, j := range all {
			if keep(j) {
				n++
			}
		}
		return float64(n)
	}
	for _, c := range []struct {
		query string
		want  float64
	}{
		{"?data_source=stripe", count(func(j Job) bool { return j.DataSource == "stripe" })},
		{"?data_source=Stripe", 0},
		{"?data_source=strip", 0},
		{"?connector_name=crm", count(func(j Job) bool { return j.ConnectorName == "crm" })},
		{"?schema_name=raw", count(func(j Job) bool { return j.SchemaName == "raw" })},
		{"?connector_name=crm&schema_name=raw", count(func(j Job) bool { return j.ConnectorName == "crm" && j.SchemaName == "raw" })},
		{"?name=" + strings.ReplaceAll(all[4].Name, " ", "%20"), 1},
		{"?is_active=true", count(func(j Job) bool { return j.IsActive })},
		{"?is_active=True", count(func(j Job) bool { return j.IsActive })},
		{"?is_active=1", count(func(j Job) bool { return j.IsActive })},
		{"?is_active=false", count(func(j Job) bool { return !j.IsActive })},
		{"?is_active=False", count(func(j Job) bool { return !j.IsActive })},
		{"?is_active=0", count(func(j Job) bool { return !j.IsActive })},
	} {
		p := h.expect("GET", jobsPath(c.query), nil, 200, "").(map[string]any)
		if p["count"] != c.want {
			t.Errorf("%s: count %v, want %v", c.query, p["count"], c.want)
		}
	}
	h.expect("GET", jobsPath("?is_active=yes"), nil, 400, "is_active")
}

func TestJobs_ordering(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 12})
	got := names(h.expect("GET", jobsPath("?ordering=-name"), nil, 200, ""))
	if !slices.IsSortedFunc(got, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("-name: %v", got)
	}
	got = names(h.expect("GET", jobsPath("?ordering=data_source,-_created_at"), nil, 200, ""))
	// hubspot jobs are numbers 2, 7 and 12; newest first within the source.
	if got[0] != "hubspot to staging 012" || got[1] != "hubspot to analytics 007" || got[2] != "hubspot to raw 002" {
		t.Errorf("data_source,-_created_at: %v", got)
	}
	var want []string
	for _, j := range SeedJobs(ws, 12) {
		want = append(want, j.Name)
	}
	if got = names(h.expect("GET", jobsPath("?page_size=100"), nil, 200, "")); !slices.Equal(got, want) {
		t.Errorf("default order %v, want creation order %v", got, want)
	}
	h.expect("GET", jobsPath("?ordering=colour"), nil, 400, `invalid ordering field "colour"`)
}

func TestJobs_triggerAndCancel(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	h := newHarness(t, Config{Jobs: 8, Now: clock.Now, RunDuration: 2 * time.Second})
	jobs := SeedJobs(ws, 8)
	active, inactive := jobs[0], jobs[3]
	run := func(id, q string) string { return jobsPath(id + "/run/" + q) }
	cancel := func(id string) string { return jobsPath(id + "/cancel/") }
	execs := func(id string) []any {
		_, out := h.do("GET", "/_sandbox/workspaces/"+ws+"/jobs/"+id+"/executions/", nil)
		return out.([]any)
	}

	h.expect("POST", run("8b4e2bb8-0000-4000-8000-000000000000", ""), nil, 404, "Not found.")
	h.expect("POST", run("not-a-uuid", ""), nil, 404, "")
	h.expect("POST", run(inactive.ID, ""), nil, 409, "job is inactive")
	h.expect("POST", run(active.ID, "?force_full_refresh=maybe"), nil, 400, "force_full_refresh")
	h.expect("DELETE", cancel(active.ID), nil, 409, "no running execution")

	if out := h.expect("POST", run(active.ID, "?force_full_refresh=1"), nil, 201, ""); out != nil {
		t.Errorf("trigger answered a body: %v", out)
	}
	h.expect("POST", run(active.ID, ""), nil, 409, "job is already running")
	clock.Add(2 * time.Second)
	if e := execs(active.ID)[0].(map[string]any); e["status"] != StatusSucceeded || e["force_full_refresh"] != true || e["_ended_at"] != "2026-11-21T10:00:02.000Z" {
		t.Errorf("execution after its run time: %v", e)
	}
	h.expect("DELETE", cancel(active.ID), nil, 409, "no running execution")

	h.expect("POST", run(active.ID, "?force_full_refresh=false"), nil, 201, "")
	clock.Add(time.Second)
	h.expect("DELETE", cancel(active.ID), nil, 204, "")
	e := execs(active.ID)
	if len(e) != 2 || e[1].(map[string]any)["status"] != StatusCancelled || e[1].(map[string]any)["force_full_refresh"] != false {
		t.Errorf("executions after cancel: %v", e)
	}
	h.expect("DELETE", cancel(active.ID), nil, 409, "no running execution")
}
