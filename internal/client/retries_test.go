package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	if want := fmt.Sprintf("(gave up after %d attempts over ", e.Attempts); !strings.Contains(err.Error(), want) || !regexp.MustCompile(`(, at the end of|: the next attempt would wait [0-9.]+m?s, past the end of) the retry budget \(300ms\)\)`).MatchString(err.Error()) {
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

// TestClient_unreachableSharesOneBudget: requests to a port where nothing
// listens, side by side and one after another, fail within one retry
// budget of the client, not one each; once it is spent, each request
// makes one attempt and fails at once, naming the cause.
func TestClient_unreachableSharesOneBudget(t *testing.T) {
	const budget = time.Second
	addr := nettest.RefusingAddr(t)
	var log attemptLog
	c := budgetClient(t, "http://"+addr, budget, &log)

	start := time.Now()
	errs := make([]error, 12)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { _, errs[i] = c.GetConnector(context.Background(), testWS, "c-1") })
	}
	wg.Wait()
	for _, err := range errs {
		_ = unreachable(t, err)
	}
	// One after another, as the engine's next resources come.
	for range 10 {
		if _, err := c.GetConnector(context.Background(), testWS, "c-1"); unreachable(t, err).StoppedBy != "the retry budget (1s)" {
			t.Errorf("a request after the budget: %v; want it to say the retry budget (1s) stopped the retries", err)
		}
	}
	if took := time.Since(start); took > budget+budget/2 {
		t.Errorf("22 requests to a closed port took %v: more than one budget (%v)", took, budget)
	}

	before := log.count()
	start = time.Now()
	_, err := c.GetConnector(context.Background(), testWS, "c-1")
	ce := unreachable(t, err)
	if n := log.count() - before; n != 1 || time.Since(start) > budget/4 {
		t.Errorf("after the budget: %d attempts over %v; want one, at once", n, time.Since(start))
	}
	for _, want := range []string{"nothing accepts connections at " + addr, "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if ce.StoppedBy == "" || strings.Contains(err.Error(), "gave up after") {
		t.Errorf("a single attempt after the budget: %v (stopped by %q)", err, ce.StoppedBy)
	}
	f := log.last()
	if f["error"] != "connection refused" || f["failure"] != string(Unreachable) || f["status"] != 0 {
		t.Errorf("the attempt's log fields %v do not name the cause", f)
	}
}

// TestClient_unreachableServiceFoundWhenBack: after the budget is spent, a
// service that came back is found by the next request; a service that
// goes away again gets a budget of its own.
func TestClient_unreachableServiceFoundWhenBack(t *testing.T) {
	const budget = 300 * time.Millisecond
	addr := nettest.RefusingAddr(t)
	var log attemptLog
	c := budgetClient(t, "http://"+addr, budget, &log)
	if _, err := c.GetConnector(context.Background(), testWS, "c-1"); unreachable(t, err).StoppedBy == "" {
		t.Fatalf("the budget was not spent: %v", err)
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"_id": "c-1", "name": "back"}`))
	}))
	srv.Listener = ln
	srv.Start()
	before := log.count()
	if _, err := c.GetConnector(context.Background(), testWS, "c-1"); err != nil || log.count()-before != 1 {
		t.Fatalf("the service back: %d attempts, err %v; want one, which succeeds", log.count()-before, err)
	}

	srv.Close()
	before = log.count()
	start := time.Now()
	_, err = c.GetConnector(context.Background(), testWS, "c-1")
	if _ = unreachable(t, err); log.count()-before < 3 || time.Since(start) < budget/2 {
		t.Errorf("gone again: %d attempts over %v; want retries for a new budget (%v)", log.count()-before, time.Since(start), budget)
	}
}

// TestClient_unreachableStopsAtMaxRetries: a request that reaches
// max_retries failing to reach the service stops the client's retries of
// it, as the budget does; a request that reaches it on a 503 does not.
func TestClient_unreachableStopsAtMaxRetries(t *testing.T) {
	var log attemptLog
	c := budgetClient(t, "http://"+nettest.RefusingAddr(t), time.Minute, &log, func(c *Config) { c.MaxRetries = 2 })
	_, err := c.GetConnector(context.Background(), testWS, "c-1")
	if ce := unreachable(t, err); ce.StoppedBy != "max_retries (2)" || log.count() != 3 {
		t.Errorf("first request: %d attempts, stopped by %q; want 3, by max_retries (2)", log.count(), ce.StoppedBy)
	}
	for range 3 {
		if err := c.TriggerJob(context.Background(), testWS, "j", false); unreachable(t, err).StoppedBy != "max_retries (2)" {
			t.Errorf("a later trigger: %v", err)
		}
	}
	if n := log.count(); n != 3+3 {
		t.Errorf("%d attempts in all, want 3+3", n)
	}
}

// TestClient_unavailableKeepsItsOwnBudget: a service that answers 503 is
// reached: each request is retried for a budget of its own, and the next
// one is retried as long.
func TestClient_unavailableKeepsItsOwnBudget(t *testing.T) {
	const budget = 300 * time.Millisecond
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	var log attemptLog
	c := budgetClient(t, ts.URL, budget, &log)
	for i := range 2 {
		before := rec.count()
		start := time.Now()
		_, err := c.GetConnector(context.Background(), testWS, "c-1")
		var e *Error
		if !errors.As(err, &e) || e.StatusCode != 503 || e.Limit != "the retry budget (300ms)" || rec.count()-before < 3 || time.Since(start) < budget/2 {
			t.Errorf("request %d: %d attempts over %v, err %v; want retries for its own budget", i+1, rec.count()-before, time.Since(start), err)
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
	var e *Error
	var ce *ConnectError
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
	ctx, cancel := WithLimit(context.Background(), "timeouts.create", 2*time.Second)
	defer cancel()
	start := time.Now()
	err := newTestClient(t, ts.URL).CancelJob(ctx, testWS, "j")
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusTooManyRequests || time.Since(start) > time.Second {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	if want := "(gave up after 1 attempt over 0s: the next attempt would wait 5s, past the end of timeouts.create (2s))"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %q, want it to end %q", err, want)
	}
	if !OutOfTime(err) {
		t.Error("a retry cut by its limit is not told as out of time")
	}
}
