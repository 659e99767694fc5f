package request_test

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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest/testclient"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
)

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
			var rec clienttest.Recorder
			ts := rec.Server(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n <= 2 {
					w.WriteHeader(c.status)
					return
				}
				if r.Method == "POST" {
					w.WriteHeader(201)
					return
				}
				clienttest.WritePage(w, nil)
			})
			cl := testclient.New(t, ts.URL)
			var err error
			retried := c.getRetried
			if op == "get" {
				_, err = listJobs(cl, context.Background())
			} else {
				err = cl.TriggerJob(context.Background(), testWS, "j1", false)
				retried = c.triggerRetried
			}
			if retried && (err != nil || rec.Count() != 3) {
				t.Errorf("%s on %d: err %v after %d requests, want success after 3", op, c.status, err, rec.Count())
			}
			if !retried && (client.StatusCode(err) != c.status || rec.Count() != 1) {
				t.Errorf("%s on %d: err %v after %d requests, want the error after 1", op, c.status, err, rec.Count())
			}
		}
	}
}

func TestClient_retriesStopAtMaxRetries(t *testing.T) {
	for _, max := range []int{0, 2} {
		var rec clienttest.Recorder
		ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) })
		err := testclient.New(t, ts.URL, func(c *client.Config) { c.MaxRetries = max }).CancelJob(context.Background(), testWS, "j")
		if client.StatusCode(err) != 503 || rec.Count() != max+1 {
			t.Errorf("max_retries %d: %d requests, err %v", max, rec.Count(), err)
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
	var rec clienttest.Recorder
	down := 15
	ts := rec.Server(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n <= down {
			w.WriteHeader([]int{429, 500, 502, 503, 504}[n%5])
			return
		}
		clienttest.WritePage(w, nil, "a")
	})
	c := testclient.New(t, ts.URL, func(c *client.Config) { c.MaxRetries = client.NoRetryLimit })
	if jobs, err := listJobs(c, context.Background()); err != nil || len(jobs) != 1 || rec.Count() != down+1 {
		t.Fatalf("after %d failures: %d jobs, %d requests, %v", down, len(jobs), rec.Count(), err)
	}

	down = 1 << 30
	start := time.Now()
	err := testclient.New(t, ts.URL, func(c *client.Config) { c.MaxRetries = client.NoRetryLimit; c.RetryBudget = 300 * time.Millisecond }).CancelJob(context.Background(), testWS, "j")
	took := time.Since(start)
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode == 0 || e.Attempts < 10 || took > time.Second || e.Tried > took {
		t.Fatalf("a service that is down: after %v, %#v", took, err)
	}
	if want := fmt.Sprintf("(gave up after %d attempts over ", e.Attempts); !strings.Contains(err.Error(), want) || !regexp.MustCompile(`(, at the end of|: the next attempt would wait [0-9.]+m?s, past the end of) the retry budget \(300ms\)\)`).MatchString(err.Error()) {
		t.Errorf("the error does not say how long it tried: %v", err)
	}

	before := rec.Count()
	err = testclient.New(t, ts.URL, func(c *client.Config) { c.MaxRetries = 2 }).CancelJob(context.Background(), testWS, "j")
	if !errors.As(err, &e) || e.Attempts != 3 || rec.Count()-before != 3 || !strings.Contains(err.Error(), "(gave up after 3 attempts over ") || strings.Contains(err.Error(), "at the end") ||
		!strings.HasSuffix(err.Error(), ", at max_retries (2))") {
		t.Errorf("max retries 2: %d requests, %v", rec.Count()-before, err)
	}
}

// TestClient_namedLimitEndsRequest: a request cut off by a limit of WithLimit,
// in flight or between its attempts, says which limit ended it, and is a
// context.DeadlineExceeded; the limit is its retry budget.
func TestClient_namedLimitEndsRequest(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var rec clienttest.Recorder
	ts := rec.Server(t, func(n int, w http.ResponseWriter, r *http.Request) {
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
	c := testclient.New(t, ts.URL, func(c *client.Config) { c.MaxRetries = client.NoRetryLimit; c.MinBackoff = 20 * time.Millisecond })
	for _, tc := range []struct {
		name string
		call func(context.Context) error
		want string
	}{
		{"in flight", func(ctx context.Context) error { _, err := listJobs(c, ctx); return err }, "timeouts.create (150ms) ran out"},
		// Retried until the limit, which ends them between two attempts or
		// during one.
		{"retried", func(ctx context.Context) error { return c.CancelJob(ctx, testWS, "j") }, "timeouts.create (150ms)"},
		{"trigger retried", func(ctx context.Context) error { return c.TriggerJob(ctx, testWS, "j", false) }, "timeouts.create (150ms)"},
	} {
		ctx, cancel := client.WithLimit(context.Background(), "timeouts.create", 150*time.Millisecond)
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
	count := func(c *client.Config) {
		c.Log = func(context.Context, string, map[string]any) { attempts.Add(1) }
	}
	err = testclient.New(t, closed, count).TriggerJob(context.Background(), testWS, "j", false)
	if err == nil || attempts.Load() != 4 {
		t.Errorf("trigger to a closed port: %d attempts, err %v; want 4 attempts", attempts.Load(), err)
	}

	// The server reads the request, then hangs up without answering.
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	err = testclient.New(t, ts.URL).TriggerJob(context.Background(), testWS, "j", false)
	if err == nil || rec.Count() != 1 {
		t.Errorf("trigger whose answer was lost: %d requests, err %v; want 1", rec.Count(), err)
	}
	err = testclient.New(t, ts.URL).CancelJob(context.Background(), testWS, "j")
	if err == nil || rec.Count() != 1+4 {
		t.Errorf("cancel whose answer was lost: %d requests in all, err %v; want 1+4", rec.Count(), err)
	}
}

func TestClient_contextCancelledDuringBackoff(t *testing.T) {
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(429)
	})
	attempted := make(chan struct{}, 1)
	c := testclient.New(t, ts.URL, func(c *client.Config) {
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
		if client.StatusCode(err) != 429 || rec.Count() != 1 {
			t.Errorf("%d requests, err %v", rec.Count(), err)
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
		{"99999999999999999999", pacing.MaxRetryAfterSeconds * time.Second},
		{"+99999999999999999999999999", pacing.MaxRetryAfterSeconds * time.Second},
		{"9223372036854775807", pacing.MaxRetryAfterSeconds * time.Second},
		{"-99999999999999999999", -1},
		{"Fri, 31 Dec 9999 23:59:59 GMT", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Sub(now)},
	} {
		h := http.Header{}
		if c.header != "" {
			h.Set("Retry-After", c.header)
		}
		if got := pacing.RetryAfter(h, now); got != c.want {
			t.Errorf("Retry-After %q: %v, want %v", c.header, got, c.want)
		}
	}
	c, _ := client.New(client.Config{BaseURL: "https://x", MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, MaxRetryAfter: 30 * time.Second})
	if got := c.BackoffAfter(0, 5*time.Second); got != 5*time.Second {
		t.Errorf("Retry-After not honoured: %v", got)
	}
	if got := c.BackoffAfter(0, time.Hour); got != 30*time.Second {
		t.Errorf("Retry-After not capped: %v", got)
	}
	for _, far := range []string{"99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"} {
		if got := c.BackoffAfter(0, pacing.RetryAfter(http.Header{"Retry-After": {far}}, now)); got != 30*time.Second {
			t.Errorf("Retry-After %q not capped: %v", far, got)
		}
	}
	for attempt, hi := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		hi *= time.Millisecond
		for range 50 {
			if got := c.BackoffAfter(attempt, -1); got < hi/2 || got > hi {
				t.Fatalf("attempt %d: backoff %v outside [%v, %v]", attempt, got, hi/2, hi)
			}
		}
	}
}

// TestClient_farRetryAfter: a Retry-After an hour away, as seconds or as an HTTP
// date, is capped; the wait ends with the context.
func TestClient_farRetryAfter(t *testing.T) {
	for _, header := range []string{"3600", "99999999999999999999", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)} {
		var rec clienttest.Recorder
		ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", header)
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		cl := testclient.New(t, ts.URL, func(c *client.Config) { c.MaxRetryAfter = 20 * time.Millisecond; c.MaxRetries = 2 })
		start := time.Now()
		err := cl.CancelJob(context.Background(), testWS, "j")
		if client.StatusCode(err) != http.StatusServiceUnavailable || rec.Count() != 3 {
			t.Errorf("Retry-After %q: %d requests, err %v", header, rec.Count(), err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Retry-After %q was not capped: %v", header, d)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		uncapped := testclient.New(t, ts.URL, func(c *client.Config) { c.MaxRetryAfter = time.Hour })
		start = time.Now()
		err = uncapped.CancelJob(ctx, testWS, "j")
		cancel()
		if err == nil || time.Since(start) > 5*time.Second {
			t.Errorf("Retry-After %q: the wait did not end with the context (%v, err %v)", header, time.Since(start), err)
		}
	}
}

// TestClient_unreachableStopsAtMaxRetries: a request that reaches
// max_retries failing to reach the service stops the client's retries of
// it, as the budget does; a request that reaches it on a 503 does not.
func TestClient_unreachableStopsAtMaxRetries(t *testing.T) {
	var log attemptLog
	c := budgetClient(t, "http://"+nettest.RefusingAddr(t), time.Minute, &log, func(c *client.Config) { c.MaxRetries = 2 })
	_, err := c.GetConnector(context.Background(), testWS, "c-1")
	if ce := unreachable(t, err); ce.StoppedBy != "max_retries (2)" || log.Count() != 3 {
		t.Errorf("first request: %d attempts, stopped by %q; want 3, by max_retries (2)", log.Count(), ce.StoppedBy)
	}
	for range 3 {
		if err := c.TriggerJob(context.Background(), testWS, "j", false); unreachable(t, err).StoppedBy != "max_retries (2)" {
			t.Errorf("a later trigger: %v", err)
		}
	}
	if n := log.Count(); n != 3+3 {
		t.Errorf("%d attempts in all, want 3+3", n)
	}
}

// TestClient_unavailableKeepsItsOwnBudget: a service that answers 503 is
// reached: each request is retried for a budget of its own, and the next
// one is retried as long.
func TestClient_unavailableKeepsItsOwnBudget(t *testing.T) {
	const budget = 300 * time.Millisecond
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	var log attemptLog
	c := budgetClient(t, ts.URL, budget, &log)
	for i := range 2 {
		before := rec.Count()
		start := time.Now()
		_, err := c.GetConnector(context.Background(), testWS, "c-1")
		var e *client.Error
		if !errors.As(err, &e) || e.StatusCode != 503 || e.Limit != "the retry budget (300ms)" || rec.Count()-before < 3 || time.Since(start) < budget/2 {
			t.Errorf("request %d: %d attempts over %v, err %v; want retries for its own budget", i+1, rec.Count()-before, time.Since(start), err)
		}
	}
}

// TestClient_lostAnswerAfterUnreachable: once the budget of reaching the
// service is spent, a connection that breaks after the request went out
// is a lost answer, as ever: the trigger may have taken effect.
func TestClient_lostAnswerAfterUnreachable(t *testing.T) {
	addr := nettest.RefusingAddr(t)
	var log attemptLog
	c := budgetClient(t, "http://"+addr, 200*time.Millisecond, &log)
	if err := c.TriggerJob(context.Background(), testWS, "j", false); unreachable(t, err).StoppedBy == "" {
		t.Fatalf("the budget was not spent: %v", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	var reached atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	err = c.TriggerJob(context.Background(), testWS, "j", false)
	var e *client.Error
	var ce *client.ConnectError
	if !errors.As(err, &e) || !e.Sent || !e.MayHaveTakenEffect() || errors.As(err, &ce) || reached.Load() != 1 {
		t.Errorf("a lost answer: %v (sent %v, %d requests); want one that may have taken effect", err, e != nil && e.Sent, reached.Load())
	}
}

// TestRetries_waitPastLimitSaysSo: a retry whose Retry-After would end past
// the operation's limit is not begun, and the error says the wait, not that
// the limit ran out (most of it is left).
func TestRetries_waitPastLimitSaysSo(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		http.Error(w, `{"detail": "Request was throttled."}`, http.StatusTooManyRequests)
	}))
	t.Cleanup(ts.Close)
	ctx, cancel := client.WithLimit(context.Background(), "timeouts.create", 2*time.Second)
	defer cancel()
	start := time.Now()
	err := testclient.New(t, ts.URL).CancelJob(ctx, testWS, "j")
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusTooManyRequests || time.Since(start) > time.Second {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	if want := "(gave up after 1 attempt over 0s: the next attempt would wait 5s, past the end of timeouts.create (2s))"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %q, want it to end %q", err, want)
	}
	if !client.OutOfTime(err) {
		t.Error("a retry cut by its limit is not told as out of time")
	}
}

func TestClient_decodeErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"", "empty body"},
		{"<html>maintenance</html>", "not the JSON expected"},
		// JSON cut off is a body cut short: retried, as a 502 is.
		{`{"results": [{"_id": "a"`, "the answer was cut short (unexpected EOF)"},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, c.body) }))
		_, err := listJobs(testclient.New(t, ts.URL), context.Background())
		ts.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("body %q: %v", c.body, err)
		}
	}
}

func TestClient_requestTimeout(t *testing.T) {
	release := make(chan struct{})
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	err := testclient.New(t, ts.URL, func(c *client.Config) {
		c.RequestTimeout = 20 * time.Millisecond
		c.MaxRetries = 1
	}).CancelJob(context.Background(), testWS, "j")
	if err == nil || !strings.Contains(err.Error(), "nothing answered at "+strings.TrimPrefix(ts.URL, "http://")+" within request_timeout (20ms)") || rec.Count() != 2 {
		t.Errorf("%d requests, err %v", rec.Count(), err)
	}
}

func TestClient_logNeverSeesSecrets(t *testing.T) {
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) })
	var logged []string
	var mu sync.Mutex
	c := testclient.New(t, ts.URL, func(c *client.Config) {
		c.Log = func(_ context.Context, msg string, fields map[string]any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, fmt.Sprint(msg, fields))
		}
	})
	if _, err := c.CreateConnector(context.Background(), testWS, client.ConnectorSpec{Name: "n", Token: "tok-SECRET"}); err == nil {
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
	jobs, err := listJobs(testclient.New(t, clienttest.Serve(t, b.String())), context.Background())
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
	_, err = listJobs(testclient.New(t, endless.URL), context.Background())
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
	err = testclient.New(t, endlessError.URL).TriggerJob(context.Background(), testWS, "j", false)
	if client.StatusCode(err) != http.StatusBadRequest || len(err.Error()) > 1000 {
		t.Fatalf("an endless error body: status %d, message of %d bytes", client.StatusCode(err), len(err.Error()))
	}
}

// TestClient_stalledAnswer: a service that sends its headers and then nothing is
// given up on after the request timeout, and a read is retried.
func TestClient_stalledAnswer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"results": [`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	start := time.Now()
	_, err := listJobs(testclient.New(t, ts.URL, func(c *client.Config) {
		c.RequestTimeout = 50 * time.Millisecond
		c.MaxRetries = 1
	}), context.Background())
	if err == nil || rec.Count() != 2 {
		t.Fatalf("a stalled answer: %d requests, err %v; want an error after 2", rec.Count(), err)
	}
	if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "timeout") && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("the error does not say the request timed out: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// TestClient_interruptedCreateIsLetFinish: when the context is cancelled while a
// trigger is in flight, the trigger is let finish and its answer kept, so
// that Terraform records what the service did; a read in flight is
// abandoned; and nothing is sent once the context is cancelled.
func TestClient_interruptedCreateIsLetFinish(t *testing.T) {
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			return
		}
		clienttest.WritePage(w, nil)
	})
	cl := testclient.New(t, ts.URL)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if err := cl.TriggerJob(ctx, testWS, "j", false); err != nil || rec.Count() != 1 {
		t.Errorf("a trigger in flight when interrupted: %d requests, err %v; want it to finish", rec.Count(), err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if _, err := listJobs(cl, ctx); !errors.Is(err, context.Canceled) || time.Since(start) > 90*time.Millisecond {
		t.Errorf("a read in flight when interrupted: err %v after %v; want it abandoned", err, time.Since(start))
	}

	if err := cl.TriggerJob(ctx, testWS, "j", false); !errors.Is(err, context.Canceled) || rec.Count() != 2 {
		t.Errorf("a trigger after the interruption: %d requests in all, err %v; want none sent", rec.Count(), err)
	}
}
