package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestClient_headersAndBaseURL(t *testing.T) {
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

// TestClient_errorNamesTheWholePath: with a base URL that has a path, an error
// names the path that was really asked, the base's included.
func TestClient_errorNamesTheWholePath(t *testing.T) {
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

// TestClient_everyFailureNamesTheWholePath: every way a request can fail (a body
// that cannot be encoded, a context ended before sending, no connection, a
// refusal, a page that cannot be followed) builds its Error the same way,
// naming the whole path asked, from its leading "/", the base's included.
func TestClient_everyFailureNamesTheWholePath(t *testing.T) {
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

func TestClient_typedErrors(t *testing.T) {
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

func TestClient_decodeErrors(t *testing.T) {
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

// TestClient_retries checks which answers are retried, for an idempotent GET and a
// non-idempotent POST: the server fails the first answers, then succeeds.
func TestClient_retries(t *testing.T) {
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

func TestClient_retriesStopAtMaxRetries(t *testing.T) {
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

// TestClient_retriesWithinBudget: with no limit on their count, retries go on
// through a long run of failures, until the retry budget: a service that
// is down fails the request within it, and the error says how many
// attempts were made over how long. A limit on the count still ends them
// first.
func TestClient_retriesWithinBudget(t *testing.T) {
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

// TestClient_namedLimitEndsRequest: a request cut off by a limit of WithLimit,
// in flight or between its attempts, says which limit ended it, and is a
// context.DeadlineExceeded; the limit is its retry budget.
func TestClient_namedLimitEndsRequest(t *testing.T) {
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

// TestClient_connectionErrors: a connection that was never made may be retried by
// any request; one that broke after the request was sent only by an
// idempotent one.
func TestClient_connectionErrors(t *testing.T) {
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

func TestClient_requestTimeout(t *testing.T) {
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

func TestClient_contextCancelledDuringBackoff(t *testing.T) {
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

func TestClient_retryAfterAndBackoff(t *testing.T) {
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

func TestClient_logNeverSeesSecrets(t *testing.T) {
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

func TestClient_errorMessageMasksTheAPIKey(t *testing.T) {
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

// TestClient_errorMessageMasksAKeyTheCutWouldSplit: the key is masked before the
// message is shortened, so no part of it survives the cut.
func TestClient_errorMessageMasksAKeyTheCutWouldSplit(t *testing.T) {
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

// TestClient_errorMessageMasksTheConnectorToken: a service that repeats the body
// of a refused create or update does not put the token in the error.
func TestClient_errorMessageMasksTheConnectorToken(t *testing.T) {
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

// TestClient_largeAnswers: a large answer within the limit is read; one beyond it
// is an error, and what is read of it stays bounded.
func TestClient_largeAnswers(t *testing.T) {
	// About 10 MB: one page of 100 jobs with long names.
	name := strings.Repeat("n", 100<<10)
	var b strings.Builder
	b.WriteString(`{"next_page": null, "results": [`)
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"_id": "j%d", "name": %q}`, i, name)
	}
	b.WriteString("]}")
	jobs, err := newTestClient(t, serve(t, b.String())).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || len(jobs) != 100 || *jobs[99].Name != name {
		t.Fatalf("a 10 MB page: %d jobs, err %v", len(jobs), err)
	}

	// An answer that never ends: a stream of spaces after an open array.
	var written atomic.Int64
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"results": [`)
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for r.Context().Err() == nil {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer endless.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = newTestClient(t, endless.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Fatalf("an endless answer: %v, want an error saying it is too large", err)
	}
	// The client stopped reading at its limit: the server could write that
	// much, plus what the connection's buffers hold.
	if w := written.Load(); w > 24<<20 {
		t.Errorf("the server wrote %d MiB before the client gave up", w>>20)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Errorf("reading an endless answer left %d MiB on the heap", grew>>20)
	}

	// An endless error body: the message is cut, the request ends.
	endlessError := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		chunk := []byte(strings.Repeat("e", 64<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer endlessError.Close()
	err = newTestClient(t, endlessError.URL).TriggerJob(context.Background(), testWS, "j", false)
	if StatusCode(err) != http.StatusBadRequest || len(err.Error()) > 1000 {
		t.Fatalf("an endless error body: status %d, message of %d bytes", StatusCode(err), len(err.Error()))
	}
}

// TestClient_stalledAnswer: a service that sends its headers and then nothing is
// given up on after the request timeout, and a read is retried.
func TestClient_stalledAnswer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"results": [`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	start := time.Now()
	_, err := newTestClient(t, ts.URL, func(c *Config) {
		c.RequestTimeout = 50 * time.Millisecond
		c.MaxRetries = 1
	}).ListJobs(context.Background(), testWS, JobFilter{})
	if err == nil || rec.count() != 2 {
		t.Fatalf("a stalled answer: %d requests, err %v; want an error after 2", rec.count(), err)
	}
	if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "timeout") && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("the error does not say the request timed out: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// TestClient_farRetryAfter: a Retry-After an hour away, as seconds or as an HTTP
// date, is capped; the wait ends with the context.
func TestClient_farRetryAfter(t *testing.T) {
	for _, header := range []string{"3600", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", header)
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		cl := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetryAfter = 20 * time.Millisecond; c.MaxRetries = 2 })
		start := time.Now()
		err := cl.CancelJob(context.Background(), testWS, "j")
		if StatusCode(err) != http.StatusServiceUnavailable || rec.count() != 3 {
			t.Errorf("Retry-After %q: %d requests, err %v", header, rec.count(), err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Retry-After %q was not capped: %v", header, d)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		uncapped := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetryAfter = time.Hour })
		start = time.Now()
		err = uncapped.CancelJob(ctx, testWS, "j")
		cancel()
		if err == nil || time.Since(start) > 5*time.Second {
			t.Errorf("Retry-After %q: the wait did not end with the context (%v, err %v)", header, time.Since(start), err)
		}
	}
}

// TestClient_interruptedCreateIsLetFinish: when the context is cancelled while a
// trigger is in flight, the trigger is let finish and its answer kept, so
// that Terraform records what the service did; a read in flight is
// abandoned; and nothing is sent once the context is cancelled.
func TestClient_interruptedCreateIsLetFinish(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			return
		}
		writePage(w, nil)
	})
	cl := newTestClient(t, ts.URL)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if err := cl.TriggerJob(ctx, testWS, "j", false); err != nil || rec.count() != 1 {
		t.Errorf("a trigger in flight when interrupted: %d requests, err %v; want it to finish", rec.count(), err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if _, err := cl.ListJobs(ctx, testWS, JobFilter{}); !errors.Is(err, context.Canceled) || time.Since(start) > 90*time.Millisecond {
		t.Errorf("a read in flight when interrupted: err %v after %v; want it abandoned", err, time.Since(start))
	}

	if err := cl.TriggerJob(ctx, testWS, "j", false); !errors.Is(err, context.Canceled) || rec.count() != 2 {
		t.Errorf("a trigger after the interruption: %d requests in all, err %v; want none sent", rec.count(), err)
	}
}

// TestClient_mayHaveTakenEffect: a failed trigger says whether the service may have
// carried it out: yes after a 500, 502 or 504, a lost answer or an
// unreadable success; no after a refusal, a 429 or 503, or when no
// connection was made.
func TestClient_mayHaveTakenEffect(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   bool
	}{{500, "", true}, {502, "", true}, {504, "", true}, {400, "", false}, {409, "", false}, {429, "", false}, {503, "", false}} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(c.status) }))
		err := newTestClient(t, ts.URL, func(cfg *Config) { cfg.MaxRetries = 0 }).TriggerJob(context.Background(), testWS, "j", false)
		ts.Close()
		var e *Error
		if !errors.As(err, &e) || e.MayHaveTakenEffect() != c.want || MayHaveTakenEffect(fmt.Errorf("wrapped: %w", err)) != c.want {
			t.Errorf("HTTP %d: %v, may have taken effect: want %v", c.status, err, c.want)
		}
	}
	if MayHaveTakenEffect(nil) || MayHaveTakenEffect(errors.New("not a request")) {
		t.Error("an error that is no failed request may have taken effect")
	}

	// A created connector whose answer cannot be read.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"_id": "c1", "na`)
	}))
	defer ts.Close()
	_, err := newTestClient(t, ts.URL).CreateConnector(context.Background(), testWS, ConnectorSpec{Name: "x"})
	var e *Error
	if !errors.As(err, &e) || !e.MayHaveTakenEffect() {
		t.Errorf("an unreadable 201: %v, want one that may have taken effect", err)
	}

	// The answer lost: the server hangs up after reading the request.
	var rec recorder
	lost := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	err = newTestClient(t, lost.URL).TriggerJob(context.Background(), testWS, "j", false)
	if !errors.As(err, &e) || !e.MayHaveTakenEffect() {
		t.Errorf("a lost answer: %v, want one that may have taken effect", err)
	}

	// No connection at all.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	err = newTestClient(t, closed, func(cfg *Config) { cfg.MaxRetries = 0 }).TriggerJob(context.Background(), testWS, "j", false)
	if !errors.As(err, &e) || e.MayHaveTakenEffect() {
		t.Errorf("no connection: %v, want one that did not take effect", err)
	}
}

// TestClient_retryAfterPausesEveryRequest: a 429 with Retry-After to one page
// holds back the other pages of the list for that long, not only that one.
func TestClient_retryAfterPausesEveryRequest(t *testing.T) {
	var (
		mu      sync.Mutex
		limited time.Time // when the 429 was answered
		during  []int     // the pages asked within the pause
	)
	// Page 9 is answered 429 at once, the other pages after 150 ms. A page
	// sent before the client read the 429 arrives within moments of it;
	// one that arrives from 50 ms after it to the end of the pause was
	// sent during the pause.
	s := &pagedServer{items: 2000, envelope: fullEnvelope, delay: 150 * time.Millisecond}
	s.hook = func(_ *pagedServer, _, page int, w http.ResponseWriter, _ *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if since := time.Since(limited); !limited.IsZero() && since > 50*time.Millisecond && since < 950*time.Millisecond {
			during = append(during, page)
		}
		if page == 9 && limited.IsZero() {
			limited = time.Now()
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return true
		}
		return false
	}
	ts := s.start(t)
	jobs, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || !slices.Equal(idsOf(jobs), jobIDs(2000)) {
		t.Fatalf("%d jobs, %v", len(jobs), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(during) != 0 {
		t.Errorf("pages %v were asked during the pause", during)
	}
	if s.count() != 21 {
		t.Errorf("%d requests, want 21: 20 pages and one retry", s.count())
	}
}

// TestClient_retryAfterPausesOtherCalls: a 429 with Retry-After to a list holds
// back a trigger sent meanwhile.
func TestClient_retryAfterPausesOtherCalls(t *testing.T) {
	var limited atomic.Int64
	var triggered atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			triggered.Store(time.Now().UnixNano())
			w.WriteHeader(http.StatusCreated)
			return
		}
		if limited.Load() == 0 {
			limited.Store(time.Now().UnixNano())
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		writePage(w, nil, "a")
	}))
	t.Cleanup(ts.Close)
	c := newTestClient(t, ts.URL)
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := c.ListJobs(context.Background(), testWS, JobFilter{}); err != nil {
			t.Error(err)
		}
	})
	for limited.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if err := c.TriggerJob(context.Background(), testWS, "j1", false); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if d := time.Duration(triggered.Load() - limited.Load()); d < 950*time.Millisecond {
		t.Errorf("the trigger went %v after the 429, within its Retry-After of 1s", d)
	}
}

// TestClient_retryAfterPauseEndsWithContext: a request held by a pause gives up
// when its context ends, without being sent.
func TestClient_retryAfterPauseEndsWithContext(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "slow down", http.StatusServiceUnavailable)
	})
	c := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = 0 })
	if _, err := c.ListJobs(context.Background(), testWS, JobFilter{}); StatusCode(err) != http.StatusServiceUnavailable {
		t.Fatalf("list: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.CancelJob(ctx, testWS, "j1")
	if err == nil || time.Since(start) > time.Second || rec.count() != 1 {
		t.Errorf("held cancel: %v after %v, %d requests (want only the list's)", err, time.Since(start), rec.count())
	}
	var e *Error
	if !errors.As(err, &e) || e.Sent {
		t.Errorf("a request never sent counts as sent: %#v", err)
	}
}
