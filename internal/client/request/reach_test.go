package request_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest/testclient"
)

// silentService answers nothing until answer is set, then each after delay.
type silentService struct {
	url      string
	answer   atomic.Int64 // a delay in nanoseconds; 0: never answer
	requests atomic.Int32
	mu       sync.Mutex
	held     int
	maxHeld  int
}

func newSilentService(t *testing.T) *silentService {
	t.Helper()
	s := &silentService{}
	gone := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.mu.Lock()
		s.held++
		s.maxHeld = max(s.maxHeld, s.held)
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.held--; s.mu.Unlock() }()
		if d := time.Duration(s.answer.Load()); d > 0 {
			time.Sleep(d)
			_, _ = w.Write([]byte(`{"_id": "c-1", "name": "slow"}`))
			return
		}
		select {
		case <-r.Context().Done():
		case <-gone:
		}
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(gone) })
	s.url = ts.URL
	return s
}

func (s *silentService) resetHeld(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		if s.held == 0 {
			s.maxHeld = 0
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the service still holds requests the client gave up")
		}
	}
}

func (s *silentService) mostHeld() int { s.mu.Lock(); defer s.mu.Unlock(); return s.maxHeld }

func noAnswer(t *testing.T, err error) (*client.ConnectError, *client.Error) {
	t.Helper()
	var ce *client.ConnectError
	var e *client.Error
	if !errors.As(err, &ce) || !errors.As(err, &e) || ce.Failure != client.NoAnswer {
		t.Fatalf("want a NoAnswer ConnectError, got %T: %v", err, err)
	}
	return ce, e
}

// TestClient_noAnswerSharesOneBudget: 50 reads of a silent service fail
// within one retry budget and one request timeout; then one probe at a time.
func TestClient_noAnswerSharesOneBudget(t *testing.T) {
	const budget, timeout = 600 * time.Millisecond, 200 * time.Millisecond
	s := newSilentService(t)
	var log attemptLog
	c := budgetClient(t, s.url, budget, &log, func(c *client.Config) { c.RequestTimeout = timeout })
	host := strings.TrimPrefix(s.url, "http://")

	start := time.Now()
	errs := make([]error, 50)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { _, errs[i] = c.GetConnector(context.Background(), testWS, "c-1") })
	}
	wg.Wait()
	if took := time.Since(start); took > budget+timeout+150*time.Millisecond {
		t.Errorf("50 reads of a service that never answers took %v: more than the budget and one request timeout (%v)", took, budget+timeout)
	}
	for _, err := range errs {
		ce, _ := noAnswer(t, err)
		if ce.StoppedBy != "the retry budget (600ms)" {
			t.Errorf("stopped by %q, want the retry budget: %v", ce.StoppedBy, err)
		}
		if want := "nothing answered at " + host + " within request_timeout (200ms)"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if f := log.last(); f["failure"] != string(client.NoAnswer) || f["status"] != 0 {
		t.Errorf("the last attempt's log fields %v do not name the failure", f)
	}

	// After the budget: one request at a time goes to the service, once
	// the longest backoff has passed since the last one.
	s.resetHeld(t)
	time.Sleep(c.MaxBackoff())
	before := s.requests.Load()
	start = time.Now()
	for i := range errs {
		wg.Go(func() { _, errs[i] = c.GetConnector(context.Background(), testWS, "c-1") })
	}
	wg.Wait()
	sent := 0
	for _, err := range errs {
		if _, e := noAnswer(t, err); e.Sent {
			sent++
		} else if strings.Contains(err.Error(), "gave up after") {
			t.Errorf("a request refused unsent says it was tried: %v", err)
		}
	}
	if n := s.requests.Load() - before; n < 1 || n != int32(sent) || s.mostHeld() != 1 {
		t.Errorf("after the budget: %d requests sent (%d errors say so), at most %d at once; want one at a time", n, sent, s.mostHeld())
	}
	if took := time.Since(start); took > timeout+timeout/2 {
		t.Errorf("after the budget, 50 reads took %v: more than one request timeout", took)
	}
}

// TestClient_noAnswerOneAfterAnother: requests in a row do not each probe a
// silent service: one probe per longest backoff.
func TestClient_noAnswerOneAfterAnother(t *testing.T) {
	const budget, timeout, backoff = 400 * time.Millisecond, 200 * time.Millisecond, time.Second
	s := newSilentService(t)
	var log attemptLog
	c := budgetClient(t, s.url, budget, &log, func(c *client.Config) { c.RequestTimeout, c.MaxBackoff = timeout, backoff })
	start := time.Now()
	for range 30 {
		if _, err := c.GetConnector(context.Background(), testWS, "c-1"); err == nil {
			t.Fatal("a read of a service that never answers succeeded")
		} else {
			_, _ = noAnswer(t, err)
		}
	}
	if took := time.Since(start); took > budget+2*timeout+150*time.Millisecond {
		t.Errorf("30 reads one after another took %v: more than the budget and a request timeout or two (%v)", took, budget+timeout)
	}
	before := s.requests.Load()
	time.Sleep(backoff)
	_, err := c.GetConnector(context.Background(), testWS, "c-1")
	if _, e := noAnswer(t, err); !e.Sent || s.requests.Load() != before+1 {
		t.Errorf("once the backoff passed, the next read was not sent as a probe: sent %v, %d requests", e.Sent, s.requests.Load()-before)
	}
}

// TestClient_noAnswerEndedByAnAnswer: an answer ends the streak.
func TestClient_noAnswerEndedByAnAnswer(t *testing.T) {
	const budget, timeout = 300 * time.Millisecond, 150 * time.Millisecond
	s := newSilentService(t)
	var log attemptLog
	c := budgetClient(t, s.url, budget, &log, func(c *client.Config) { c.RequestTimeout = timeout })
	if _, err := c.GetConnector(context.Background(), testWS, "c-1"); func() string { ce, _ := noAnswer(t, err); return ce.StoppedBy }() == "" {
		t.Fatalf("the budget was not spent: %v", err)
	}

	s.answer.Store(int64(timeout * 2 / 3))
	time.Sleep(c.MaxBackoff()) // the next probe waits that long after the last silence
	before := s.requests.Load()
	errs := make([]error, 20)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { _, errs[i] = c.GetConnector(context.Background(), testWS, "c-1") })
	}
	wg.Wait()
	// The probe's answer ends the streak; the requests refused meanwhile
	// fail, and every later one is sent.
	for range 3 {
		if _, err := c.GetConnector(context.Background(), testWS, "c-1"); err != nil {
			t.Fatalf("a read once the service answers: %v", err)
		}
	}
	for i := range errs {
		wg.Go(func() { _, errs[i] = c.GetConnector(context.Background(), testWS, "c-1") })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("a slow service that answers within the request timeout: %v", err)
		}
	}
	if n := s.requests.Load() - before; n < 3+20+1 {
		t.Errorf("%d requests sent once the service answers; want every one", n)
	}
}

// TestClient_noAnswerToAWrite: a trigger that gets no answer may have been
// carried out: it is not sent again, and says so; it counts toward the
// streak all the same.
func TestClient_noAnswerToAWrite(t *testing.T) {
	s := newSilentService(t)
	var log attemptLog
	c := budgetClient(t, s.url, time.Minute, &log, func(c *client.Config) { c.RequestTimeout = 100 * time.Millisecond; c.MaxRetries = 2 })
	err := c.TriggerJob(context.Background(), testWS, "j", false)
	ce, e := noAnswer(t, err)
	if !e.Sent || !e.MayHaveTakenEffect() || s.requests.Load() != 1 {
		t.Errorf("a trigger that got no answer: sent %v, may have taken effect %v, %d requests; want a lost answer, sent once", e.Sent, e.MayHaveTakenEffect(), s.requests.Load())
	}
	if ce.StoppedBy != "" || !strings.Contains(err.Error(), "within request_timeout (100ms)") {
		t.Errorf("the trigger's error: %v (stopped by %q)", err, ce.StoppedBy)
	}
	// Two reads that get no answer reach max_retries: the streak, the
	// trigger's included, stops the retries.
	_, err = c.GetConnector(context.Background(), testWS, "c-1")
	if ce, _ := noAnswer(t, err); ce.StoppedBy != "max_retries (2)" || s.requests.Load() != 1+3 {
		t.Errorf("a read after it: %d requests in all, %v", s.requests.Load(), err)
	}
}

func stallingService(t *testing.T) (url string, requests *atomic.Int32) {
	t.Helper()
	requests = new(atomic.Int32)
	gone := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"_id": `))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-gone:
		}
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(gone) })
	return ts.URL, requests
}

// TestClient_stalledBodiesShareOneBudget: stalled bodies are out of reach
// too: 40 reads fail within one budget and one request timeout.
func TestClient_stalledBodiesShareOneBudget(t *testing.T) {
	const budget, timeout = 600 * time.Millisecond, 200 * time.Millisecond
	url, _ := stallingService(t)
	var log attemptLog
	c := budgetClient(t, url, budget, &log, func(c *client.Config) { c.RequestTimeout = timeout })
	start := time.Now()
	errs := make([]error, 40)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { _, errs[i] = c.GetConnector(context.Background(), testWS, "c-1") })
	}
	wg.Wait()
	if took := time.Since(start); took > budget+timeout+150*time.Millisecond {
		t.Errorf("40 reads of stalled answers took %v: more than the budget and one request timeout (%v)", took, budget+timeout)
	}
	for _, err := range errs {
		ce, _ := noAnswer(t, err)
		if ce.Stalled != http.StatusOK || ce.StoppedBy != "the retry budget (600ms)" ||
			!strings.Contains(err.Error(), "sent the status (HTTP 200) and headers of its answer, but not the whole body within request_timeout (200ms)") {
			t.Errorf("stalled %d, stopped by %q: %v", ce.Stalled, ce.StoppedBy, err)
		}
	}
}

// TestClient_stalledBodyOfACreate: a create whose answer stalls is sent once
// and may have taken effect: a lost answer.
func TestClient_stalledBodyOfACreate(t *testing.T) {
	url, requests := stallingService(t)
	c := testclient.New(t, url, func(c *client.Config) { c.RequestTimeout = 100 * time.Millisecond })
	_, err := c.CreateConnector(context.Background(), testWS, client.ConnectorSpec{Name: "n"})
	if _, e := noAnswer(t, err); !e.MayHaveTakenEffect() || requests.Load() != 1 {
		t.Errorf("%d requests, may have taken effect %v: %v", requests.Load(), e.MayHaveTakenEffect(), err)
	}
}
