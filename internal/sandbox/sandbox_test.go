package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSandbox_authorization(t *testing.T) {
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

func TestSandbox_faults(t *testing.T) {
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

// TestSandbox_faultsAfter: an "after" fault carries the request out, then answers
// the fault status instead of the real answer; a "before" fault of the same
// status changes nothing.
func TestSandbox_faultsAfter(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1})
	job := SeedJobs(ws, 1)[0].ID
	connectors := "/developers/workspaces/" + ws + "/connectors/"

	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{502}, "when": "before"}, 200, "")
	h.expect("POST", connectors, connectorBody("before"), 502, "injected fault")
	h.expect("POST", jobsPath(job+"/run/"), nil, 502, "injected fault")
	if n, e := len(h.srv.ConnectorIDs(ws)), len(h.srv.Executions(ws, job)); n != 0 || e != 0 {
		t.Fatalf(`a "before" fault made %d connectors and %d executions, want none`, n, e)
	}

	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{502}, "when": "after"}, 200, "")
	h.expect("POST", connectors, connectorBody("after"), 502, "injected fault")
	h.expect("POST", jobsPath(job+"/run/"), nil, 502, "injected fault")
	ids := h.srv.ConnectorIDs(ws)
	if len(ids) != 1 || len(h.srv.Executions(ws, job)) != 1 {
		t.Fatalf(`an "after" fault: connectors %v, %d executions, want one of each`, ids, len(h.srv.Executions(ws, job)))
	}
	if c, _ := h.srv.Connector(ws, ids[0]); c.Name != "after" {
		t.Errorf("the connector made is %q", c.Name)
	}
	// The request was carried out in full: a second trigger meets the
	// running execution.
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 0}, 200, "")
	h.expect("POST", jobsPath(job+"/run/"), nil, 409, "already running")
	if f := h.srv.Stats().Faults; f != 4 {
		t.Errorf("faults counted: %d, want 4", f)
	}
}

// TestSandbox_faultsMethods: "methods" limits the faults to those methods; the
// others are served as usual and draw nothing.
func TestSandbox_faultsMethods(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1})
	job := SeedJobs(ws, 1)[0].ID
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{504}, "when": "after", "methods": []string{"post"}}, 200, "")
	for range 5 {
		h.expect("GET", jobsPath(""), nil, 200, "")
	}
	h.expect("POST", jobsPath(job+"/run/"), nil, 504, "injected fault")
	h.expect("DELETE", jobsPath(job+"/cancel/"), nil, 204, "")
	if f := h.srv.Stats().Faults; f != 1 {
		t.Errorf("faults counted: %d, want only the POST's", f)
	}
}

// TestSandbox_faultsFromPage: "from_page" limits the faults to list pages
// from that one on, so that a list fails part-way; a read without a page
// draws nothing.
func TestSandbox_faultsFromPage(t *testing.T) {
	h := newHarness(t, Config{Jobs: 250})
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{400}, "methods": []string{"GET"}, "from_page": 2}, 200, "")
	h.expect("GET", jobsPath("?page=1&page_size=100"), nil, 200, "")
	h.expect("GET", jobsPath(""), nil, 200, "")
	h.expect("GET", jobsPath("?page=2&page_size=100"), nil, 400, "injected fault")
	h.expect("GET", jobsPath("?page=3&page_size=100"), nil, 400, "injected fault")
	if f := h.srv.Stats().Faults; f != 2 {
		t.Errorf("faults counted: %d, want those of pages 2 and 3", f)
	}
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{400}, "from_page": -1}, 400, "from_page must not be negative")
}

// TestSandbox_faultsRefused: settings that cannot be honoured are refused, naming
// what is wrong.
func TestSandbox_faultsRefused(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1})
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"rate": 1, "statuses": []int{502}, "when": "later"}, `when must be "before" or "after"`},
		{map[string]any{"rate": 1, "statuses": []int{503}, "when": "after"}, "status 503 cannot follow a request carried out"},
		{map[string]any{"rate": 1, "statuses": []int{429}, "when": "after"}, "status 429"},
		{map[string]any{"rate": 1, "statuses": []int{502}, "methods": []string{"TRACE"}}, `method "TRACE"`},
		{map[string]any{"rate": 1, "statuses": []int{502}, "methods": "POST"}, `the body must be a faults object, {"rate": 0 to 1, "statuses": [`},
		{map[string]any{"rate": 0.3, "statuses": []int{200}}, "status 200 is not an error status: give statuses from 400 to 599"},
		{map[string]any{"rate": 0.3, "statusses": []int{503}}, `unknown field "statusses": the body must be a faults object`},
	} {
		h.expect("PUT", "/_sandbox/faults", c.body, 400, c.want)
	}
	// 429 and 503 stay valid before the request.
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{429, 503}, "when": "before", "methods": []string{"POST"}}, 200, "")
}

// TestSandbox_maxInFlight: the stats keep the most requests of the API held at
// once; the side door is not counted.
func TestSandbox_maxInFlight(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1})
	h.expect("PUT", "/_sandbox/faults", map[string]any{"latency_ms": 100}, 200, "")
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { h.expect("GET", jobsPath(""), nil, 200, "") })
	}
	wg.Wait()
	h.expect("GET", jobsPath(""), nil, 200, "")
	if got := h.srv.Stats().MaxInFlight; got != 3 {
		t.Errorf("max_in_flight %d, want 3", got)
	}
}

// TestSandbox_concurrentRequests: 16 clients send 1,000 mixed requests each at once
// (lists, triggers, cancels, and the create, read, update and delete of
// connectors); afterwards every count agrees with what they were answered.
// Run with -race, as `make test` does.
func TestSandbox_concurrentRequests(t *testing.T) {
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

// TestServer_countsUserAgents: each request is counted under its
// User-Agent, the side door's and a refused one's too, and Stats hands out
// a copy.
func TestServer_countsUserAgents(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1})
	send := func(ua, apiKey string) {
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+"/developers/workspaces/"+ws+"/jobs/", nil)
		req.Header.Set("Authorization", apiKey)
		req.Header.Set("User-Agent", ua)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	send("Terraform/1.16.4 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0", key)
	send("Terraform/1.16.4 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0", key)
	send("OpenTofu/1.12.6 (+https://opentofu.org) terraform-provider-dataintegration/0.2.0", "wrong-key")
	st := h.srv.Stats()
	want := map[string]int64{
		"Terraform/1.16.4 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0": 2,
		"OpenTofu/1.12.6 (+https://opentofu.org) terraform-provider-dataintegration/0.2.0":      1,
	}
	if !reflect.DeepEqual(st.UserAgents, want) {
		t.Errorf("user agents %v, want %v", st.UserAgents, want)
	}
	st.UserAgents["changed"] = 1
	if _, ok := h.srv.Stats().UserAgents["changed"]; ok {
		t.Error("Stats shares its map with the server")
	}
}
