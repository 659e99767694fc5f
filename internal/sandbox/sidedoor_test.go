package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

func TestSideDoor_endpoints(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 1})
	job := h.expect("POST", "/_sandbox/workspaces/"+ws+"/jobs/", map[string]any{
		"name": "made by hand", "data_source": "s3", "connector_name": "files", "schema_name": "raw", "is_active": false,
	}, 201, "").(map[string]any)
	if job["is_active"] != false || job["_id"] == "" {
		t.Errorf("side-door job: %v", job)
	}
	h.expect("POST", "/_sandbox/workspaces/"+ws+"/jobs/", map[string]any{"name": "x"}, 400, "required")
	if p := h.expect("GET", jobsPath("?name=made%20by%20hand"), nil, 200, "").(map[string]any); p["count"] != 1.0 {
		t.Errorf("the side-door job is not listed: %v", p)
	}
	st := h.expect("GET", "/_sandbox/stats", nil, 200, "").(map[string]any)
	if st["by_route"].(map[string]any)["GET /developers/workspaces/{workspace_id}/jobs/"] != 1.0 || st["requests"] != 4.0 {
		t.Errorf("stats: %v", st)
	}
	if s, _, _ := h.call("GET", "/_sandbox/stats", "", nil); s != 401 {
		t.Errorf("side door without a key: %d", s)
	}
}

// TestSideDoor_createConnector: the side door creates connectors as the
// API does, under the same rules, however many a key sends past its rate
// limit.
func TestSideDoor_createConnector(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 0, RateLimit: 1})
	for i := range 5 {
		if c := h.expect("POST", "/_sandbox/workspaces/"+ws+"/connectors/", connectorBody(fmt.Sprint("seeded ", i)), 201, "").(map[string]any); c["name"] != fmt.Sprint("seeded ", i) {
			t.Errorf("side-door connector: %v", c)
		}
	}
	h.expect("POST", "/_sandbox/workspaces/"+ws+"/connectors/", map[string]any{"name": "x"}, 400, "connector_name")
	if n := len(h.srv.ConnectorIDs(ws)); n != 5 {
		t.Errorf("%d connectors, want 5", n)
	}
	if jobs := h.srv.Jobs(ws); len(jobs) != 5 || !strings.HasPrefix(jobs[0].Name, "seeded ") {
		t.Errorf("the connectors' jobs: %+v", jobs)
	}
	if st := h.srv.Stats(); st.RateLimited != 0 || st.ByRoute["POST /_sandbox/workspaces/{workspace_id}/connectors/"] != 6 {
		t.Errorf("stats: %+v", st)
	}
	// The API's bucket is still full.
	h.expectServed(1, key)
}

// TestSideDoor_addConnectors: connectors added in Go are what the API lists,
// each with its job, and spend none of the rate limit.
func TestSideDoor_addConnectors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 0, RateLimit: 1})
	if err := h.srv.AddConnectors(ws, "added 1", "added 2"); err != nil {
		t.Fatal(err)
	}
	if err := h.srv.AddConnectors("00000000-0000-4000-8000-0000000000ff", "x"); err == nil {
		t.Error("a connector added to a workspace that does not exist")
	}
	page := h.expect("GET", "/developers/workspaces/"+ws+"/connectors/?name=added+2", nil, 200, "").(map[string]any)
	if results, _ := page["results"].([]any); len(results) != 1 || results[0].(map[string]any)["name"] != "added 2" {
		t.Errorf("the API lists %v", page["results"])
	}
	if jobs := h.srv.Jobs(ws); len(jobs) != 2 || !strings.HasPrefix(jobs[0].Name, "added ") {
		t.Errorf("the connectors' jobs: %+v", jobs)
	}
	if st := h.srv.Stats(); st.RateLimited != 0 {
		t.Errorf("stats: %+v", st)
	}
}
