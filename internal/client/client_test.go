package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testWS = "00000000-0000-4000-8000-000000000001"

// newTestClient returns a client of srv with quick backoff.
func newTestClient(t *testing.T, baseURL string, edit ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		BaseURL: baseURL, APIKey: "key-123", Version: "1.2.3", MaxRetries: 3,
		MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recorder is a test server that records its requests and answers with the
// function it is given.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (r *recorder) server(t *testing.T, answer func(n int, w http.ResponseWriter, req *http.Request)) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, req)
		r.body = append(r.body, string(b))
		n := len(r.reqs)
		r.mu.Unlock()
		answer(n, w, req)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (r *recorder) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.reqs) }

func writePage(w http.ResponseWriter, next any, ids ...string) {
	jobs := make([]Job, len(ids))
	for i, id := range ids {
		jobs[i] = Job{ID: id, Name: new("job " + id)}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"next_page": next, "results": jobs})
}

// ListJobs returns every job of the workspace that f selects, in the order
// the service gives them: the tests' way to walk every page.
func (c *Client) ListJobs(ctx context.Context, workspaceID string, f JobFilter) ([]Job, error) {
	v, all := Collect[Job](nil, 0)
	err := c.EachJobPage(ctx, workspaceID, f, v)
	return *all, err
}

func TestHeadersAndBaseURL(t *testing.T) {
	for _, suffix := range []string{"", "/", "/api", "/api/"} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writePage(w, nil) })
		c := newTestClient(t, ts.URL+suffix)
		if _, err := c.ListJobs(context.Background(), testWS, JobFilter{}); err != nil {
			t.Fatal(err)
		}
		r := rec.reqs[0]
		wantPath := strings.TrimSuffix(suffix, "/") + "/developers/workspaces/" + testWS + "/jobs/"
		if r.URL.Path != wantPath {
			t.Errorf("base %q: path %q, want %q", suffix, r.URL.Path, wantPath)
		}
		if r.Header.Get("Authorization") != "key-123" || r.Header.Get("Accept") != "application/json" ||
			r.Header.Get("User-Agent") != "terraform-provider-dataintegration/1.2.3" {
			t.Errorf("headers: %v", r.Header)
		}
	}
}

// TestErrorNamesTheWholePath: with a base URL that has a path, an error
// names the path that was really asked, the base's included.
func TestErrorNamesTheWholePath(t *testing.T) {
	for _, suffix := range []string{"", "/api/v1", "/api/v1/"} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") != "" {
				writePage(w, 1, "a") // a next page that does not move forward
				return
			}
			http.Error(w, `{"detail": "no such connector"}`, http.StatusNotFound)
		})
		c := newTestClient(t, ts.URL+suffix)
		base := strings.TrimSuffix(suffix, "/")
		var e *Error
		_, err := c.GetConnector(context.Background(), testWS, "c1")
		if !errors.As(err, &e) || e.Path != base+"/developers/workspaces/"+testWS+"/connectors/c1/" {
			t.Errorf("base %q: %#v", suffix, err)
		}
		if _, err = c.ListJobs(context.Background(), testWS, JobFilter{}); !errors.As(err, &e) || e.Path != base+"/developers/workspaces/"+testWS+"/jobs/" {
			t.Errorf("base %q: %#v", suffix, err)
		}
	}
}

// TestEveryFailureNamesTheWholePath: every way a request can fail (a body
// that cannot be encoded, a context ended before sending, no connection, a
// refusal, a page that cannot be followed) builds its Error the same way,
// naming the whole path asked, from its leading "/", the base's included.
func TestEveryFailureNamesTheWholePath(t *testing.T) {
	for _, suffix := range []string{"", "/api/v1/"} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") != "" {
				writePage(w, nil) // next_page null: not a failure
				return
			}
			http.Error(w, `{"detail": "no"}`, http.StatusConflict)
		}))
		c := newTestClient(t, ts.URL+suffix, func(cfg *Config) { cfg.MaxRetries = 0 })
		want := strings.TrimSuffix(suffix, "/") + "/developers/workspaces/" + testWS + "/jobs/j1/run/"
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		failures := map[string]error{
			"unencodable body": c.do(context.Background(), request{op: "trigger job", method: http.MethodPost,
				path: "developers/workspaces/" + testWS + "/jobs/j1/run/", body: make(chan int), want: http.StatusCreated}),
			"context ended": c.TriggerJob(cancelled, testWS, "j1", false),
			"refused":       c.TriggerJob(context.Background(), testWS, "j1", false),
		}
		ts.Close()
		failures["no connection"] = c.TriggerJob(context.Background(), testWS, "j1", false)
		for name, err := range failures {
			var e *Error
			if !errors.As(err, &e) || e.Path != want || e.Method != http.MethodPost || e.Operation != "trigger job" {
				t.Errorf("base %q, %s: %#v, want path %s", suffix, name, err, want)
			}
		}
	}
}

// TestPageFailureWasSent: a page that cannot be followed came in an answer,
// so its request reached the service.
func TestPageFailureWasSent(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writePage(w, 1, "a") }))
	t.Cleanup(ts.Close)
	_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusOK || !e.Sent || !e.MayHaveTakenEffect() || !strings.Contains(e.Error(), "does not move forward") {
		t.Errorf("%#v", err)
	}
}

func TestListFollowsNextPage(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page") {
		case "1":
			writePage(w, 2, "a", "b")
		case "2":
			// next_page may skip: the client follows it, never computing pages.
			writePage(w, 5, "c")
		case "5":
			_ = json.NewEncoder(w).Encode(map[string]any{"count": 999, "total_pages": 9, "next_page": nil, "results": []Job{{ID: "d"}}})
		default:
			t.Errorf("unexpected page %q", r.URL.Query().Get("page"))
		}
	})
	c := newTestClient(t, ts.URL)
	active, name := false, "x y"
	jobs, err := c.ListJobs(context.Background(), testWS, JobFilter{IsActive: &active, Name: &name, Ordering: "-name"})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%d %s %s", len(jobs), jobs[0].ID, jobs[3].ID); got != "4 a d" {
		t.Errorf("jobs: %s", got)
	}
	q := rec.reqs[0].URL.Query()
	if q.Get("page_size") != "100" || q.Get("is_active") != "false" || q.Get("name") != "x y" || q.Get("ordering") != "-name" {
		t.Errorf("query: %v", q)
	}
	for _, unset := range []string{"connector_name", "data_source", "schema_name"} {
		if q.Has(unset) {
			t.Errorf("unset filter %s was sent", unset)
		}
	}
	if rec.count() != 3 {
		t.Errorf("%d requests, want 3", rec.count())
	}
}

func TestListStopsWhenNextPageDoesNotMoveForward(t *testing.T) {
	for _, next := range []int{1, 0, -4} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) { writePage(w, next, "a") })
		_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
		if err == nil || !strings.Contains(err.Error(), "does not move forward") {
			t.Errorf("next_page %d: %v", next, err)
		}
		if rec.count() != 1 {
			t.Errorf("next_page %d: %d requests", next, rec.count())
		}
	}
}

func TestEachJobPageStopsEarly(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) { writePage(w, 2, "a") })
	err := newTestClient(t, ts.URL).EachJobPage(context.Background(), testWS, JobFilter{}, Visitor[Job]{Page: func([]Job) int { return 0 }})
	if err != nil || rec.count() != 1 {
		t.Errorf("err %v, %d requests", err, rec.count())
	}
}

func TestEachConnectorPageStopsEarly(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) { writePage(w, 2, "a") })
	n := "desk"
	err := newTestClient(t, ts.URL).EachConnectorPage(context.Background(), testWS, ConnectorFilter{Name: &n}, Visitor[Connector]{Page: func([]Connector) int { return 0 }})
	if err != nil || rec.count() != 1 {
		t.Errorf("err %v, %d requests", err, rec.count())
	}
	if q := rec.reqs[0].URL.Query(); q.Get("name") != "desk" || q.Get("page") != "1" {
		t.Errorf("list query %v", q)
	}
}

func TestTriggerSendsForceFullRefreshOnlyWhenTrue(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) })
	c := newTestClient(t, ts.URL)
	if err := c.TriggerJob(context.Background(), testWS, "j1", false); err != nil {
		t.Fatal(err)
	}
	if err := c.TriggerJob(context.Background(), testWS, "j1", true); err != nil {
		t.Fatal(err)
	}
	if rec.reqs[0].Method != "POST" || rec.reqs[0].URL.Path != "/developers/workspaces/"+testWS+"/jobs/j1/run/" {
		t.Errorf("request: %s %s", rec.reqs[0].Method, rec.reqs[0].URL)
	}
	if rec.reqs[0].URL.RawQuery != "" || rec.reqs[1].URL.RawQuery != "force_full_refresh=true" {
		t.Errorf("queries %q and %q", rec.reqs[0].URL.RawQuery, rec.reqs[1].URL.RawQuery)
	}
}

func TestCancel(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })
	if err := newTestClient(t, ts.URL).CancelJob(context.Background(), testWS, "j1"); err != nil {
		t.Fatal(err)
	}
	if r := rec.reqs[0]; r.Method != "DELETE" || r.URL.Path != "/developers/workspaces/"+testWS+"/jobs/j1/cancel/" {
		t.Errorf("request: %s %s", r.Method, r.URL)
	}
}

func TestTypedErrors(t *testing.T) {
	long := strings.Repeat("é", 1000)
	for _, c := range []struct {
		status      int
		contentType string
		body        string
		message     string
	}{
		{404, "application/json", `{"detail": "Not found."}`, "Not found."},
		{409, "application/json", `{"detail": "job is inactive"}`, "job is inactive"},
		{400, "application/json", `{"detail": {"name": ["too long"]}}`, `{"name": ["too long"]}`},
		{400, "application/json", `{"errors": "other shape"}`, `{"errors": "other shape"}`},
		{500, "text/html", "<html>\n<body>\tBad things</body></html>", "<html> <body> Bad things</body></html>"},
		{418, "text/plain", long, strings.Repeat("é", maxMessageRunes) + "…"},
		{400, "text/plain", "", ""},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", c.contentType)
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		}))
		err := newTestClient(t, ts.URL, func(cfg *Config) { cfg.MaxRetries = 0 }).CancelJob(context.Background(), testWS, "j1")
		ts.Close()
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("status %d: error %T %v", c.status, err, err)
		}
		if e.StatusCode != c.status || e.Message != c.message || e.Operation != "cancel job" || e.Method != "DELETE" {
			t.Errorf("status %d: %+v", c.status, e)
		}
		if IsNotFound(err) != (c.status == 404) {
			t.Errorf("status %d: IsNotFound %v", c.status, IsNotFound(err))
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"", "empty body"},
		{"<html>maintenance</html>", "not the JSON expected"},
		{`{"results": [{"_id": "a"`, "not the JSON expected"},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, c.body) }))
		_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
		ts.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("body %q: %v", c.body, err)
		}
	}
}

// TestRetries checks which answers are retried, for an idempotent GET and a
// non-idempotent POST: the server fails the first answers, then succeeds.
func TestRetries(t *testing.T) {
	for _, c := range []struct {
		status         int
		getRetried     bool
		triggerRetried bool
	}{
		{429, true, true},
		{503, true, true},
		{502, true, false},
		{504, true, false},
		{500, true, false},
		{400, false, false},
		{401, false, false},
	} {
		for _, op := range []string{"get", "trigger"} {
			var rec recorder
			ts := rec.server(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n <= 2 {
					w.WriteHeader(c.status)
					return
				}
				if r.Method == "POST" {
					w.WriteHeader(201)
					return
				}
				writePage(w, nil)
			})
			cl := newTestClient(t, ts.URL)
			var err error
			retried := c.getRetried
			if op == "get" {
				_, err = cl.ListJobs(context.Background(), testWS, JobFilter{})
			} else {
				err = cl.TriggerJob(context.Background(), testWS, "j1", false)
				retried = c.triggerRetried
			}
			if retried && (err != nil || rec.count() != 3) {
				t.Errorf("%s on %d: err %v after %d requests, want success after 3", op, c.status, err, rec.count())
			}
			if !retried && (StatusCode(err) != c.status || rec.count() != 1) {
				t.Errorf("%s on %d: err %v after %d requests, want the error after 1", op, c.status, err, rec.count())
			}
		}
	}
}

func TestRetriesStopAtMaxRetries(t *testing.T) {
	for _, max := range []int{0, 2} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) })
		err := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = max }).CancelJob(context.Background(), testWS, "j")
		if StatusCode(err) != 503 || rec.count() != max+1 {
			t.Errorf("max_retries %d: %d requests, err %v", max, rec.count(), err)
		}
		if want := fmt.Sprintf("attempt(s)? over [0-9.a-z]+, at max_retries \\(%d\\)\\)$", max); !regexp.MustCompile(want).MatchString(err.Error()) {
			t.Errorf("max_retries %d: the error does not name max_retries: %v", max, err)
		}
	}
}

// TestRetriesWithinBudget: with no limit on their count, retries go on
// through a long run of failures, until the retry budget: a service that
// is down fails the request within it, and the error says how many
// attempts were made over how long. A limit on the count still ends them
// first.
func TestRetriesWithinBudget(t *testing.T) {
	var rec recorder
	down := 15
	ts := rec.server(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n <= down {
			w.WriteHeader([]int{429, 500, 502, 503, 504}[n%5])
			return
		}
		writePage(w, nil, "a")
	})
	c := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = NoRetryLimit })
	if jobs, err := c.ListJobs(context.Background(), testWS, JobFilter{}); err != nil || len(jobs) != 1 || rec.count() != down+1 {
		t.Fatalf("after %d failures: %d jobs, %d requests, %v", down, len(jobs), rec.count(), err)
	}

	down = 1 << 30
	start := time.Now()
	err := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = NoRetryLimit; c.RetryBudget = 300 * time.Millisecond }).CancelJob(context.Background(), testWS, "j")
	took := time.Since(start)
	var e *Error
	if !errors.As(err, &e) || e.StatusCode == 0 || e.Attempts < 10 || took > time.Second || e.Tried > took {
		t.Fatalf("a service that is down: after %v, %#v", took, err)
	}
	if want := fmt.Sprintf("(gave up after %d attempts over ", e.Attempts); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "at the end of the retry budget (300ms))") {
		t.Errorf("the error does not say how long it tried: %v", err)
	}

	before := rec.count()
	err = newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = 2 }).CancelJob(context.Background(), testWS, "j")
	if !errors.As(err, &e) || e.Attempts != 3 || rec.count()-before != 3 || !strings.Contains(err.Error(), "(gave up after 3 attempts over ") || strings.Contains(err.Error(), "at the end") ||
		!strings.HasSuffix(err.Error(), ", at max_retries (2))") {
		t.Errorf("max retries 2: %d requests, %v", rec.count()-before, err)
	}
}

// TestNamedLimitEndsRequest: a request cut off by a limit of WithLimit,
// in flight or between its attempts, says which limit ended it, and is a
// context.DeadlineExceeded; the limit is its retry budget.
func TestNamedLimitEndsRequest(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var rec recorder
	ts := rec.server(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "" {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(503)
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = NoRetryLimit; c.MinBackoff = 20 * time.Millisecond })
	for _, tc := range []struct {
		name string
		call func(context.Context) error
		want string
	}{
		{"in flight", func(ctx context.Context) error { _, err := c.ListJobs(ctx, testWS, JobFilter{}); return err }, "timeouts.create (150ms) ran out"},
		// Retried until the limit, which ends them between two attempts or
		// during one.
		{"retried", func(ctx context.Context) error { return c.CancelJob(ctx, testWS, "j") }, "timeouts.create (150ms)"},
		{"trigger retried", func(ctx context.Context) error { return c.TriggerJob(ctx, testWS, "j", false) }, "timeouts.create (150ms)"},
	} {
		ctx, cancel := WithLimit(context.Background(), "timeouts.create", 150*time.Millisecond)
		start := time.Now()
		err := tc.call(ctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) || time.Since(start) > time.Second {
			t.Errorf("%s: after %v, %v; want it to say %q", tc.name, time.Since(start), err, tc.want)
		}
		if tc.name == "in flight" && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v is no context.DeadlineExceeded", tc.name, err)
		}
	}
}

// TestConnectionErrors: a connection that was never made may be retried by
// any request; one that broke after the request was sent only by an
// idempotent one.
func TestConnectionErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	var attempts atomic.Int32
	count := func(c *Config) {
		c.Log = func(context.Context, string, map[string]any) { attempts.Add(1) }
	}
	err = newTestClient(t, closed, count).TriggerJob(context.Background(), testWS, "j", false)
	if err == nil || attempts.Load() != 4 {
		t.Errorf("trigger to a closed port: %d attempts, err %v; want 4 attempts", attempts.Load(), err)
	}

	// The server reads the request, then hangs up without answering.
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	err = newTestClient(t, ts.URL).TriggerJob(context.Background(), testWS, "j", false)
	if err == nil || rec.count() != 1 {
		t.Errorf("trigger whose answer was lost: %d requests, err %v; want 1", rec.count(), err)
	}
	err = newTestClient(t, ts.URL).CancelJob(context.Background(), testWS, "j")
	if err == nil || rec.count() != 1+4 {
		t.Errorf("cancel whose answer was lost: %d requests in all, err %v; want 1+4", rec.count(), err)
	}
}

func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	err := newTestClient(t, ts.URL, func(c *Config) {
		c.RequestTimeout = 20 * time.Millisecond
		c.MaxRetries = 1
	}).CancelJob(context.Background(), testWS, "j")
	if err == nil || !strings.Contains(err.Error(), "request timeout") || rec.count() != 2 {
		t.Errorf("%d requests, err %v", rec.count(), err)
	}
}

func TestContextCancelledDuringBackoff(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(429)
	})
	attempted := make(chan struct{}, 1)
	c := newTestClient(t, ts.URL, func(c *Config) {
		c.MaxRetryAfter = time.Hour
		c.RetryBudget = 2 * time.Hour
		// Called when the attempt is over, just before the client waits.
		c.Log = func(context.Context, string, map[string]any) { attempted <- struct{}{} }
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.CancelJob(ctx, testWS, "j") }()
	<-attempted
	cancel()
	select {
	case err := <-done:
		if StatusCode(err) != 429 || rec.count() != 1 {
			t.Errorf("%d requests, err %v", rec.count(), err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client kept waiting out an hour's Retry-After after its context was cancelled")
	}
}

func TestRetryAfterAndBackoff(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		header string
		want   time.Duration
	}{
		{"", -1},
		{"3", 3 * time.Second},
		{"0", 0},
		{"-2", -1},
		{"soon", -1},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	} {
		h := http.Header{}
		if c.header != "" {
			h.Set("Retry-After", c.header)
		}
		if got := retryAfter(h, now); got != c.want {
			t.Errorf("Retry-After %q: %v, want %v", c.header, got, c.want)
		}
	}
	c, _ := New(Config{BaseURL: "https://x", MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, MaxRetryAfter: 30 * time.Second})
	if got := c.backoff(0, 5*time.Second); got != 5*time.Second {
		t.Errorf("Retry-After not honoured: %v", got)
	}
	if got := c.backoff(0, time.Hour); got != 30*time.Second {
		t.Errorf("Retry-After not capped: %v", got)
	}
	for attempt, hi := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		hi *= time.Millisecond
		for range 50 {
			if got := c.backoff(attempt, -1); got < hi/2 || got > hi {
				t.Fatalf("attempt %d: backoff %v outside [%v, %v]", attempt, got, hi/2, hi)
			}
		}
	}
}

func TestConnectorOperations(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case "POST":
			w.WriteHeader(201)
			_, _ = io.WriteString(w, `{"_id": "c1", "name": "desk", "connector_name": "customer_service", "configuration": {"url": "https://a.example.com", "agent_email": "a@b.c"}, "streams": ["chats"]}`)
		case "PATCH", "GET":
			if strings.HasSuffix(r.URL.Path, "/connectors/") {
				next := any(nil)
				if r.URL.Query().Get("page") == "1" {
					next = 2
				}
				_ = json.NewEncoder(w).Encode(map[string]any{"next_page": next, "results": []Connector{{ID: "c" + r.URL.Query().Get("page")}}})
				return
			}
			_, _ = io.WriteString(w, `{"_id": "c1", "name": "renamed"}`)
		case "DELETE":
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"detail": "Not found."}`)
		}
	})
	c := newTestClient(t, ts.URL)
	ctx := context.Background()
	created, err := c.CreateConnector(ctx, testWS, ConnectorSpec{Name: "desk", URL: "https://a.example.com", Token: "tok", AgentEmail: "a@b.c", Streams: []string{"chats"}})
	if err != nil || created.ID != "c1" || created.Configuration.URL != "https://a.example.com" {
		t.Fatalf("create: %+v %v", created, err)
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(rec.body[0]), &body)
	want := `map[configuration:map[agent_email:a@b.c token:tok url:https://a.example.com] connector_name:customer_service name:desk streams:[chats]]`
	if fmt.Sprint(body) != want || rec.reqs[0].Header.Get("Content-Type") != "application/json" {
		t.Errorf("create body %v", body)
	}

	name := "renamed"
	if _, err := c.UpdateConnector(ctx, testWS, "c1", ConnectorUpdate{Name: &name}); err != nil {
		t.Fatal(err)
	}
	token := "new"
	if _, err := c.UpdateConnector(ctx, testWS, "c1", ConnectorUpdate{Token: &token, Streams: []string{"tickets"}}); err != nil {
		t.Fatal(err)
	}
	if rec.body[1] != `{"name":"renamed"}` || rec.body[2] != `{"configuration":{"token":"new"},"streams":["tickets"]}` {
		t.Errorf("patch bodies %s and %s", rec.body[1], rec.body[2])
	}
	if rec.reqs[1].URL.Path != "/developers/workspaces/"+testWS+"/connectors/c1/" {
		t.Errorf("patch path %s", rec.reqs[1].URL.Path)
	}
	if got, err := c.GetConnector(ctx, testWS, "c1"); err != nil || got.Name != "renamed" {
		t.Errorf("read: %+v %v", got, err)
	}
	if err := c.DeleteConnector(ctx, testWS, "c1"); !IsNotFound(err) {
		t.Errorf("delete of a gone connector: %v", err)
	}
	n := "desk"
	all, err := c.ListConnectors(ctx, testWS, ConnectorFilter{Name: &n})
	if err != nil || len(all) != 2 || all[1].ID != "c2" {
		t.Errorf("list: %+v %v", all, err)
	}
	if q := rec.reqs[len(rec.reqs)-1].URL.Query(); q.Get("name") != "desk" || q.Get("page") != "2" {
		t.Errorf("list query %v", q)
	}
}

func TestLogNeverSeesSecrets(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) })
	var logged []string
	var mu sync.Mutex
	c := newTestClient(t, ts.URL, func(c *Config) {
		c.Log = func(_ context.Context, msg string, fields map[string]any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, fmt.Sprint(msg, fields))
		}
	})
	if _, err := c.CreateConnector(context.Background(), testWS, ConnectorSpec{Name: "n", Token: "tok-SECRET"}); err == nil {
		t.Fatal("want an error: the test server answers no body")
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "method:POST") || !strings.Contains(logged[0], "status:201") {
		t.Errorf("log: %v", logged)
	}
	for _, l := range logged {
		if strings.Contains(l, "tok-SECRET") || strings.Contains(l, "key-123") {
			t.Errorf("a secret was logged: %s", l)
		}
	}
}

func TestErrorMessageMasksTheAPIKey(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		_, _ = fmt.Fprintf(w, `{"detail": "Invalid API key %s."}`, r.Header.Get("Authorization"))
	}))
	defer ts.Close()
	err := newTestClient(t, ts.URL).CancelJob(context.Background(), testWS, "j")
	if err == nil || strings.Contains(err.Error(), "key-123") || !strings.Contains(err.Error(), "Invalid API key ***.") {
		t.Errorf("error: %v", err)
	}
}

// TestErrorMessageMasksAKeyTheCutWouldSplit: the key is masked before the
// message is shortened, so no part of it survives the cut.
func TestErrorMessageMasksAKeyTheCutWouldSplit(t *testing.T) {
	key := "k-" + strings.Repeat("9", 40)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		_, _ = fmt.Fprintf(w, `{"detail": "%s%s"}`, strings.Repeat("x", maxMessageRunes-10), r.Header.Get("Authorization"))
	}))
	defer ts.Close()
	err := newTestClient(t, ts.URL, func(c *Config) { c.APIKey = key }).CancelJob(context.Background(), testWS, "j")
	if err == nil || strings.Contains(err.Error(), key[:10]) {
		t.Errorf("a part of the key is shown: %v", err)
	}
}

// TestErrorMessageMasksTheConnectorToken: a service that repeats the body
// of a refused create or update does not put the token in the error.
func TestErrorMessageMasksTheConnectorToken(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(400)
		_, _ = fmt.Fprintf(w, "cannot accept %s", body)
	}))
	defer ts.Close()
	c := newTestClient(t, ts.URL)
	_, err := c.CreateConnector(context.Background(), testWS, ConnectorSpec{Name: "desk", URL: "https://acme.example.com", Token: "tok-secret-1", AgentEmail: "a@b.c"})
	if err == nil || strings.Contains(err.Error(), "tok-secret-1") || !strings.Contains(err.Error(), `"token":"***"`) {
		t.Errorf("create: %v", err)
	}
	token := "tok-secret-2"
	_, err = c.UpdateConnector(context.Background(), testWS, "c", ConnectorUpdate{Token: &token})
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), `"token":"***"`) {
		t.Errorf("update: %v", err)
	}
}
