package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestSandbox_faults(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	h := newHarness(t, Config{Jobs: 1})
	job := SeedJobs(ws, 1)[0].ID
	connectors := "/developers/workspaces/" + ws + "/connectors/"

	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{502}, "when": "before"}, 200, "")
	h.expectGateway("POST", connectors, connectorBody("before"), 502)
	h.expectGateway("POST", jobsPath(job+"/run/"), nil, 502)
	if n, e := len(h.srv.ConnectorIDs(ws)), len(h.srv.Executions(ws, job)); n != 0 || e != 0 {
		t.Fatalf(`a "before" fault made %d connectors and %d executions, want none`, n, e)
	}

	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{502}, "when": "after"}, 200, "")
	h.expectGateway("POST", connectors, connectorBody("after"), 502)
	h.expectGateway("POST", jobsPath(job+"/run/"), nil, 502)
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
	t.Parallel()
	h := newHarness(t, Config{Jobs: 1})
	job := SeedJobs(ws, 1)[0].ID
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{504}, "when": "after", "methods": []string{"post"}}, 200, "")
	for range 5 {
		h.expect("GET", jobsPath(""), nil, 200, "")
	}
	h.expectGateway("POST", jobsPath(job+"/run/"), nil, 504)
	h.expect("DELETE", jobsPath(job+"/cancel/"), nil, 204, "")
	if f := h.srv.Stats().Faults; f != 1 {
		t.Errorf("faults counted: %d, want only the POST's", f)
	}
}

// TestSandbox_faultsFromPage: "from_page" limits the faults to list pages
// from that one on, so that a list fails part-way; a read without a page
// draws nothing.
func TestSandbox_faultsFromPage(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	h := newHarness(t, Config{Jobs: 1})
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"rate": 1, "statuses": []int{502}, "when": "later"}, `when must be "before", "after", "hang" or "cut", got "later"`},
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

// TestSandbox_faultsGatewayPages: a 502 or a 504 comes from a gateway in
// front of the service, as an HTML page; other statuses are the service's
// JSON.
func TestSandbox_faultsGatewayPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 1})
	for _, st := range []int{502, 504} {
		h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{st}}, 200, "")
		h.expectGateway("GET", jobsPath(""), nil, st)
	}
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{500}}, 200, "")
	h.expect("GET", jobsPath(""), nil, 500, "injected fault: Internal Server Error")
}

// TestSandbox_faultsHang: a "hang" fault takes the request, carries out
// nothing and never answers, until the client goes away or the sandbox
// closes; either ends the handler.
// It runs serially: it waits at most a few seconds for the held request.
func TestSandbox_faultsHang(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1})
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "when": "hang", "methods": []string{"POST"}}, 200, "")
	hc := &http.Client{Timeout: 200 * time.Millisecond}
	body := `{"name": "held", "connector_name": "customer_service", "configuration": {"url": "https://acme.example.com", "token": "t", "agent_email": "a@acme.com"}}`
	req, _ := http.NewRequest("POST", h.ts.URL+"/developers/workspaces/"+ws+"/connectors/", strings.NewReader(body))
	req.Header.Set("Authorization", key)
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a held request was answered %d", resp.StatusCode)
	}
	if n := len(h.srv.ConnectorIDs(ws)); n != 0 {
		t.Errorf("a held create made %d connectors", n)
	}
	h.expect("GET", jobsPath(""), nil, 200, "")
	waitUntil(t, func() bool { return h.srv.inFlightNow() == 0 })

	// A request whose client waits for ever ends when the sandbox closes.
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("POST", h.ts.URL+jobsPath(SeedJobs(ws, 1)[0].ID+"/run/"), nil)
		req.Header.Set("Authorization", key)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("answered %d", resp.StatusCode)
		}
		done <- err
	}()
	waitUntil(t, func() bool { return h.srv.inFlightNow() == 1 })
	h.srv.Close()
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Errorf("the held request, when the sandbox closed: %v; want its connection dropped", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("closing the sandbox did not end the held request")
	}
	if f := h.srv.Stats().Faults; f != 2 {
		t.Errorf("faults counted: %d, want the two held", f)
	}
}

// TestSandbox_faultsCut: a "cut" fault carries the request out, then sends
// the first half of a 2xx answer's body, with the whole body's
// Content-Length, and drops the connection; an error goes whole.
func TestSandbox_faultsCut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 1})
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "when": "cut"}, 200, "")
	for _, c := range []struct{ method, path, body string }{
		{"GET", jobsPath(""), ""},
		{"POST", "/developers/workspaces/" + ws + "/connectors/", `{"name": "cut", "connector_name": "customer_service", "configuration": {"url": "https://acme.example.com", "token": "t", "agent_email": "a@acme.com"}}`},
	} {
		req, _ := http.NewRequest(c.method, h.ts.URL+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 || !errors.Is(err, io.ErrUnexpectedEOF) || resp.ContentLength < 2 || int64(len(got)) != resp.ContentLength/2 {
			t.Errorf("%s %s: %d, %d of %d bytes, %v; want the first half, then the connection dropped", c.method, c.path, resp.StatusCode, len(got), resp.ContentLength, err)
		}
	}
	if ids := h.srv.ConnectorIDs(ws); len(ids) != 1 {
		t.Errorf("a create whose answer was cut: connectors %v, want the one carried out", ids)
	}
	h.expect("POST", jobsPath("7f1e3a40-0000-4000-8000-000000000000/run/"), nil, 404, "")
	if f := h.srv.Stats().Faults; f != 3 {
		t.Errorf("faults counted: %d, want 3", f)
	}
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "when": "cut", "statuses": []int{502}}, 400, `statuses must be left out with "when": "cut"`)
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "when": "hang", "statuses": []int{504}}, 400, `statuses must be left out with "when": "hang"`)
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}
