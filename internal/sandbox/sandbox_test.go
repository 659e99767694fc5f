package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	ws  = DefaultWorkspaceID
	key = DefaultAPIKey
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type harness struct {
	t   *testing.T
	srv *Server
	ts  *httptest.Server
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &harness{t: t, srv: srv, ts: ts}
}

// call sends a request with the given key and decodes a JSON answer.
func (h *harness) call(method, path, apiKey string, body any) (int, http.Header, any) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.ts.URL+path, rd)
	if apiKey != "" {
		req.Header.Set("Authorization", apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			h.t.Fatalf("%s %s: answer is not JSON: %q", method, path, raw)
		}
	}
	return resp.StatusCode, resp.Header, out
}

func (h *harness) do(method, path string, body any) (int, any) {
	h.t.Helper()
	st, _, out := h.call(method, path, key, body)
	return st, out
}

// expect checks the status and, for errors, that the detail holds want.
func (h *harness) expect(method, path string, body any, status int, want string) any {
	h.t.Helper()
	st, hdr, out := h.call(method, path, key, body)
	if st != status {
		h.t.Fatalf("%s %s: status %d, want %d (%v)", method, path, st, status, out)
	}
	if want != "" {
		d, _ := out.(map[string]any)["detail"].(string)
		if !strings.Contains(d, want) {
			h.t.Fatalf("%s %s: detail %q does not hold %q", method, path, d, want)
		}
		if ct := hdr.Get("Content-Type"); ct != "application/json" {
			h.t.Fatalf("error Content-Type %q", ct)
		}
	}
	return out
}

func jobsPath(query string) string {
	return "/developers/workspaces/" + ws + "/jobs/" + query
}

func names(page any) []string {
	var out []string
	for _, r := range page.(map[string]any)["results"].([]any) {
		out = append(out, r.(map[string]any)["name"].(string))
	}
	return out
}

func TestDefaults(t *testing.T) {
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

func TestAuthorization(t *testing.T) {
	if _, err := New(Config{Keys: []KeyBinding{{key, ws}, {key, strings.ToUpper(ws)}}}); err == nil {
		t.Error("a key bound twice to the same workspace was accepted")
	}
	other := "11111111-1111-4111-8111-111111111111"
	h := newHarness(t, Config{Jobs: 2, Keys: []KeyBinding{{key, ws}, {"second-key", other}}})
	for _, c := range []struct {
		apiKey, path string
		status       int
	}{
		{"", jobsPath(""), 401},
		{"nope", jobsPath(""), 401},
		{"Bearer " + key, jobsPath(""), 401},
		{key, jobsPath(""), 200},
		{"second-key", jobsPath(""), 403},
		{"second-key", "/developers/workspaces/" + other + "/jobs/", 200},
		{key, "/developers/workspaces/" + other + "/jobs/", 403},
		{key, "/developers/workspaces/not-a-uuid/jobs/", 404},
	} {
		if st, _, _ := h.call("GET", c.path, c.apiKey, nil); st != c.status {
			t.Errorf("key %q on %s: status %d, want %d", c.apiKey, c.path, st, c.status)
		}
	}
	third := "22222222-2222-4222-8222-222222222222"
	h = newHarness(t, Config{Jobs: 1, Keys: []KeyBinding{{key, ws}, {key, third}, {"second-key", other}}})
	if got := h.srv.Workspaces(); !slices.Equal(got, []string{ws, third, other}) {
		t.Errorf("workspaces %v", got)
	}
	for _, c := range []struct {
		apiKey, path string
		status       int
	}{
		{key, jobsPath(""), 200},
		{key, "/developers/workspaces/" + third + "/jobs/", 200},
		{key, "/developers/workspaces/" + other + "/jobs/", 403},
		{"second-key", "/developers/workspaces/" + third + "/jobs/", 403},
	} {
		if st, _, _ := h.call("GET", c.path, c.apiKey, nil); st != c.status {
			t.Errorf("key %q on %s: status %d, want %d", c.apiKey, c.path, st, c.status)
		}
	}
}

func TestPagination(t *testing.T) {
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

func TestFilters(t *testing.T) {
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

func TestOrdering(t *testing.T) {
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

func TestTriggerAndCancel(t *testing.T) {
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

func connectorBody(name string) map[string]any {
	return map[string]any{
		"name":           name,
		"connector_name": "customer_service",
		"configuration":  map[string]any{"url": "https://acme.example.com", "token": "secret-token", "agent_email": "agent@acme.com"},
	}
}

func TestConnectors(t *testing.T) {
	h := newHarness(t, Config{Jobs: 2})
	base := "/developers/workspaces/" + ws + "/connectors/"
	c := h.expect("POST", base, connectorBody("Support Desk (EU)"), 201, "").(map[string]any)
	id := c["_id"].(string)
	if _, leaked := c["configuration"].(map[string]any)["token"]; leaked {
		t.Fatal("create answered the token")
	}
	if len(c["streams"].([]any)) != 15 || c["connector_name"] != "customer_service" {
		t.Errorf("created connector: %v", c)
	}
	// The connector's own job.
	p := h.expect("GET", jobsPath("?data_source=Support%20Desk%20(EU)"), nil, 200, "").(map[string]any)
	job := p["results"].([]any)[0].(map[string]any)
	if p["count"] != 1.0 || job["schema_name"] != "support_desk_eu_" || job["connector_name"] != "customer_service" || job["is_active"] != true {
		t.Errorf("connector job: %v", p)
	}

	got := h.expect("GET", base+id+"/", nil, 200, "").(map[string]any)
	if got["name"] != "Support Desk (EU)" || got["configuration"].(map[string]any)["url"] != "https://acme.example.com" {
		t.Errorf("read: %v", got)
	}
	upd := h.expect("PATCH", base+id+"/", map[string]any{"streams": []string{"chats", "tickets"}, "configuration": map[string]any{"token": "new"}}, 200, "").(map[string]any)
	if len(upd["streams"].([]any)) != 2 || upd["name"] != "Support Desk (EU)" || upd["configuration"].(map[string]any)["agent_email"] != "agent@acme.com" {
		t.Errorf("patch changed more than it sent: %v", upd)
	}
	if v, _ := h.srv.Connector(ws, id); v.Token != "new" || v.TokenWrites != 2 {
		t.Errorf("token after patch: %+v", v)
	}
	list := h.expect("GET", base+"?name=Support%20Desk%20(EU)", nil, 200, "").(map[string]any)
	if list["count"] != 1.0 {
		t.Errorf("list: %v", list)
	}
	h.expect("DELETE", base+id+"/", nil, 204, "")
	h.expect("GET", base+id+"/", nil, 404, "Not found.")
	h.expect("DELETE", base+id+"/", nil, 404, "")
	h.expect("PATCH", base+id+"/", map[string]any{"name": "x"}, 404, "")
	if p := h.expect("GET", jobsPath("?data_source=Support%20Desk%20(EU)"), nil, 200, "").(map[string]any); p["count"] != 0.0 {
		t.Error("deleting the connector left its job")
	}
}

func TestConnectorValidation(t *testing.T) {
	h := newHarness(t, Config{Jobs: 0})
	base := "/developers/workspaces/" + ws + "/connectors/"
	with := func(edit func(m map[string]any)) map[string]any {
		m := connectorBody("desk")
		edit(m)
		return m
	}
	conf := func(k string, v any) func(map[string]any) {
		return func(m map[string]any) { m["configuration"].(map[string]any)[k] = v }
	}
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{with(func(m map[string]any) { m["name"] = "" }), "name: must be 1 to 255"},
		{with(func(m map[string]any) { m["name"] = strings.Repeat("n", 256) }), "name: must be 1 to 255"},
		{with(func(m map[string]any) { delete(m, "name") }), "name: this field is required"},
		{with(func(m map[string]any) { m["connector_name"] = "crm" }), "connector_name"},
		{with(func(m map[string]any) { m["colour"] = "red" }), "colour: unknown field"},
		{with(conf("url", "http://acme.example.com")), "configuration.url"},
		{with(conf("url", "https://acme.example.com/path")), "configuration.url"},
		{with(conf("url", "https://acme.example.com?q=1")), "configuration.url"},
		{with(conf("url", "https://acme.example.com#f")), "configuration.url"},
		{with(conf("token", "")), "configuration.token"},
		{with(conf("agent_email", "not-an-email")), "configuration.agent_email"},
		{with(conf("agent_email", "Agent <a@b.com>")), "configuration.agent_email"},
		{with(func(m map[string]any) { m["streams"] = []string{"chats", "gossip"} }), `streams: "gossip" is not a stream`},
		{with(func(m map[string]any) { m["streams"] = []string{"chats", "chats"} }), `streams: "chats" is listed twice`},
		{with(func(m map[string]any) { delete(m["configuration"].(map[string]any), "token") }), "configuration.token: this field is required"},
	} {
		h.expect("POST", base, c.body, 400, c.want)
	}
	if st := h.srv.Stats(); st.ByRoute["POST /developers/workspaces/{workspace_id}/connectors/"] != 15 {
		t.Errorf("stats: %v", st.ByRoute)
	}
}

func TestSideDoor(t *testing.T) {
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

func TestFaults(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1})
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{503}, "seed": 7}, 200, "")
	st, hdr, _ := h.call("GET", jobsPath(""), key, nil)
	if st != 503 || hdr.Get("Retry-After") != "1" {
		t.Errorf("fault: %d, Retry-After %q", st, hdr.Get("Retry-After"))
	}
	// The side door is never faulted, so tests can always turn faults off.
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 0}, 200, "")
	h.expect("GET", jobsPath(""), nil, 200, "")
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 2}, 400, "rate")

	// A faulted request changes nothing: no execution is recorded.
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{500}}, 200, "")
	h.expect("POST", jobsPath(SeedJobs(ws, 1)[0].ID+"/run/"), nil, 500, "injected fault")
	if n := len(h.srv.Executions(ws, SeedJobs(ws, 1)[0].ID)); n != 0 {
		t.Errorf("a faulted trigger recorded %d executions", n)
	}
	if h.srv.Stats().Faults != 2 {
		t.Errorf("faults counted: %d", h.srv.Stats().Faults)
	}

	// A rate of 0.3 faults about 30% of requests, the same ones for a seed.
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 0.3, "statuses": []int{429, 502}, "seed": 1}, 200, "")
	faulted := 0
	for range 200 {
		if st, _ := h.do("GET", jobsPath(""), nil); st != 200 {
			faulted++
		}
	}
	if faulted < 40 || faulted > 80 {
		t.Errorf("rate 0.3 faulted %d of 200", faulted)
	}
}

func TestStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	h := newHarness(t, Config{Jobs: 3, StatePath: path})
	c := h.expect("POST", "/developers/workspaces/"+ws+"/connectors/", connectorBody("kept"), 201, "").(map[string]any)
	h.expect("POST", jobsPath(SeedJobs(ws, 3)[0].ID+"/run/"), nil, 201, "")

	again := newHarness(t, Config{Jobs: 3, StatePath: path})
	if v, ok := again.srv.Connector(ws, c["_id"].(string)); !ok || v.Name != "kept" || v.Token != "secret-token" {
		t.Errorf("connector after restart: %+v %v", v, ok)
	}
	if n := len(again.srv.Jobs(ws)); n != 4 {
		t.Errorf("%d jobs after restart, want 3 seeded and the connector's", n)
	}
	if n := len(again.srv.Executions(ws, SeedJobs(ws, 3)[0].ID)); n != 1 {
		t.Errorf("%d executions after restart", n)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp"))
	if len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

// TestConcurrentRequests: 16 clients send 1,000 mixed requests each at once
// (lists, triggers, cancels, and the create, read, update and delete of
// connectors); afterwards every count agrees with what they were answered.
// Run with -race, as `make test` does.
func TestConcurrentRequests(t *testing.T) {
	const clients, each, seeded = 16, 1000, 40
	srv, err := New(Config{Jobs: seeded, RunDuration: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	jobs := SeedJobs(ws, seeded)
	api := "/developers/workspaces/" + ws
	var sent atomic.Int64
	send := func(method, path string, body any) (int, map[string]any) {
		sent.Add(1)
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req := httptest.NewRequest(method, path, rd)
		req.Header.Set("Authorization", key)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var out map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
		return rec.Code, out
	}
	var triggered, cancelled, created, deleted, unexpected atomic.Int64
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []string // this client's live connectors, oldest first
			expect := func(got int, want ...int) {
				if !slices.Contains(want, got) {
					unexpected.Add(1)
				}
			}
			for i := range each {
				job := jobs[(g*7+i)%seeded].ID
				switch i % 8 {
				case 0:
					st, _ := send("GET", api+"/jobs/?ordering=-name&page=2&page_size=10", nil)
					expect(st, 200)
				case 1:
					st, _ := send("POST", api+"/jobs/"+job+"/run/", nil)
					expect(st, 201, 409)
					if st == 201 {
						triggered.Add(1)
					}
				case 2:
					st, out := send("POST", api+"/connectors/", connectorBody(fmt.Sprintf("c-%d-%d", g, i)))
					expect(st, 201)
					if id, ok := out["_id"].(string); ok {
						mine = append(mine, id)
						created.Add(1)
					}
				case 3, 4:
					if len(mine) == 0 {
						continue
					}
					if i%8 == 3 {
						st, _ := send("PATCH", api+"/connectors/"+mine[len(mine)-1]+"/", map[string]any{"name": fmt.Sprintf("r-%d-%d", g, i)})
						expect(st, 200)
					} else {
						st, _ := send("GET", api+"/connectors/"+mine[len(mine)-1]+"/", nil)
						expect(st, 200)
					}
				case 5:
					if len(mine) < 3 {
						continue
					}
					st, _ := send("DELETE", api+"/connectors/"+mine[0]+"/", nil)
					expect(st, 204)
					mine = mine[1:]
					deleted.Add(1)
				case 6:
					st, _ := send("GET", "/_sandbox/stats", nil)
					expect(st, 200)
				default:
					st, _ := send("DELETE", api+"/jobs/"+job+"/cancel/", nil)
					expect(st, 204, 409)
					if st == 204 {
						cancelled.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()

	if n := unexpected.Load(); n != 0 {
		t.Errorf("%d answers had an unexpected status", n)
	}
	st := srv.Stats()
	var answered int64
	for _, n := range st.ByRoute {
		answered += n
	}
	if st.Requests != sent.Load() || answered != sent.Load() {
		t.Errorf("stats: %d requests, %d by route; %d were sent", st.Requests, answered, sent.Load())
	}
	live := created.Load() - deleted.Load()
	if n := int64(len(srv.Jobs(ws))); n != seeded+live {
		t.Errorf("%d jobs, want %d seeded and one for each of the %d live connectors", n, seeded, live)
	}
	var runs, cancels int64
	for _, j := range jobs {
		for _, e := range srv.Executions(ws, j.ID) {
			runs++
			if e.Status == StatusCancelled {
				cancels++
			}
		}
	}
	if runs != triggered.Load() || cancels != cancelled.Load() {
		t.Errorf("executions: %d, %d cancelled; answers: %d triggers and %d cancels accepted", runs, cancels, triggered.Load(), cancelled.Load())
	}
	t.Logf("%d requests: %d connectors created, %d deleted, %d triggers and %d cancels accepted",
		st.Requests, created.Load(), deleted.Load(), triggered.Load(), cancelled.Load())
}
