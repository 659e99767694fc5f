package request_test

import (
	"context"
	"errors"
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

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest/testclient"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
)

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
	s := &clienttest.PagedServer{Items: 2000, Envelope: clienttest.FullEnvelope, Delay: 150 * time.Millisecond}
	s.Hook = func(_ *clienttest.PagedServer, _, page int, w http.ResponseWriter, _ *http.Request) bool {
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
	ts := s.Start(t)
	jobs, err := listJobs(testclient.New(t, ts.URL), context.Background())
	if err != nil || !slices.Equal(idsOf(jobs), clienttest.JobIDs(2000)) {
		t.Fatalf("%d jobs, %v", len(jobs), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(during) != 0 {
		t.Errorf("pages %v were asked during the pause", during)
	}
	if s.Count() != 21 {
		t.Errorf("%d requests, want 21: 20 pages and one retry", s.Count())
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
		clienttest.WritePage(w, nil, "a")
	}))
	t.Cleanup(ts.Close)
	c := testclient.New(t, ts.URL)
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := listJobs(c, context.Background()); err != nil {
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
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "slow down", http.StatusServiceUnavailable)
	})
	c := testclient.New(t, ts.URL, func(c *client.Config) { c.MaxRetries = 0 })
	if _, err := listJobs(c, context.Background()); client.StatusCode(err) != http.StatusServiceUnavailable {
		t.Fatalf("list: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.CancelJob(ctx, testWS, "j1")
	if err == nil || time.Since(start) > time.Second || rec.Count() != 1 {
		t.Errorf("held cancel: %v after %v, %d requests (want only the list's)", err, time.Since(start), rec.Count())
	}
	var e *client.Error
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

	before := log.Count()
	start = time.Now()
	_, err := c.GetConnector(context.Background(), testWS, "c-1")
	ce := unreachable(t, err)
	if n := log.Count() - before; n != 1 || time.Since(start) > budget/4 {
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
	if f["error"] != "connection refused" || f["failure"] != string(client.Unreachable) || f["status"] != 0 {
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
	before := log.Count()
	if _, err := c.GetConnector(context.Background(), testWS, "c-1"); err != nil || log.Count()-before != 1 {
		t.Fatalf("the service back: %d attempts, err %v; want one, which succeeds", log.Count()-before, err)
	}

	srv.Close()
	before = log.Count()
	start := time.Now()
	_, err = c.GetConnector(context.Background(), testWS, "c-1")
	if _ = unreachable(t, err); log.Count()-before < 3 || time.Since(start) < budget/2 {
		t.Errorf("gone again: %d attempts over %v; want retries for a new budget (%v)", log.Count()-before, time.Since(start), budget)
	}
}

// TestPacing_waitPastLimitFailsUnsent: a request the count would hold past
// its time limit fails at once, unsent, naming the header and the wait.
func TestPacing_waitPastLimitFailsUnsent(t *testing.T) {
	rec, url := clienttest.HoldingServer(t)
	c := testclient.New(t, url)
	if err := c.CancelJob(context.Background(), testWS, "j"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := client.WithLimit(context.Background(), "timeouts.read", 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := listJobs(c, ctx)
	took := time.Since(start)
	var e *client.Error
	var rle *client.RateLimitError
	if !errors.As(err, &e) || !errors.As(err, &rle) || rec.Count() != 1 || took > 500*time.Millisecond {
		t.Fatalf("after %v, %d requests: %v", took, rec.Count(), err)
	}
	if e.Sent || e.MayHaveTakenEffect() || rle.By != "X-RateLimit-Remaining" || rle.Wait < 11*time.Second || rle.Limit != "timeouts.read (2s)" {
		t.Errorf("%#v, %#v", e, rle)
	}
	want := `^list jobs: rate-limited by the service's X-RateLimit-Remaining header: the request would wait 1[12](\.[0-9])?s to be sent, past the end of timeouts.read \(2s\), [12](\.[0-9])?s away, so it was not sent$`
	if !regexp.MustCompile(want).MatchString(err.Error()) {
		t.Errorf("error %q does not match %s", err, want)
	}
}

// TestPacing_heldHonoursCancel: a request held ends as soon as Terraform
// interrupts it.
func TestPacing_heldHonoursCancel(t *testing.T) {
	rec, url := clienttest.HoldingServer(t)
	c := testclient.New(t, url)
	if err := c.CancelJob(context.Background(), testWS, "j"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err := c.CancelJob(ctx, testWS, "j")
	if took := time.Since(start); !errors.Is(err, context.Canceled) || took > time.Second || rec.Count() != 1 {
		t.Errorf("after %v, %d requests: %v", took, rec.Count(), err)
	}
}

// TestPacing_troubled: a client is troubled from a 5xx answer until
// pacing.TroubleAnswers answers without one, and not before any answer.
func TestPacing_troubled(t *testing.T) {
	c, err := client.New(client.Config{BaseURL: "http://troubled.test", APIKey: "key"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Troubled() {
		t.Fatal("troubled before any answer")
	}
	now := time.Now()
	for i, status := range []int{http.StatusOK, http.StatusTooManyRequests, http.StatusBadGateway} {
		c.Pacer().Observe(uint64(i+1), now, now, status, nil)
	}
	for i := range pacing.TroubleAnswers {
		if !c.Troubled() {
			t.Fatalf("not troubled %d answers after a 502", i)
		}
		c.Pacer().Observe(uint64(i+4), now, now, http.StatusOK, nil)
	}
	if c.Troubled() {
		t.Errorf("still troubled %d answers after a 502", pacing.TroubleAnswers)
	}
}
