package client

import (
	"context"
	"errors"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
)

// attemptLog counts the attempts a client logs, and keeps their fields.
type attemptLog struct {
	mu     sync.Mutex
	fields []map[string]any
}

func (l *attemptLog) hook(c *Config) {
	c.Log = func(_ context.Context, msg string, f map[string]any) {
		if msg != "API request" {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.fields = append(l.fields, f)
	}
}

func (l *attemptLog) count() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.fields) }

func (l *attemptLog) last() map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.fields) == 0 {
		return nil
	}
	return l.fields[len(l.fields)-1]
}

// budgetClient is a client of base with a short retry budget, no cap on
// retries and quick backoff, whose attempts log counts.
func budgetClient(t *testing.T, base string, budget time.Duration, log *attemptLog, edit ...func(*Config)) *Client {
	t.Helper()
	return newTestClient(t, base, append([]func(*Config){func(c *Config) {
		c.MaxRetries = NoRetryLimit
		c.RetryBudget = budget
		c.MinBackoff, c.MaxBackoff = 20*time.Millisecond, 50*time.Millisecond
		log.hook(c)
	}}, edit...)...)
}

// unreachable is err's Unreachable failure; the test fails when there is
// none, or when the request is said to have reached the service.
func unreachable(t *testing.T, err error) *ConnectError {
	t.Helper()
	return connectFailure(t, err, Unreachable)
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

// TestTransport_schemeMismatch: https to a service that speaks plain http,
// and http to one that speaks TLS, fail at the first attempt, saying which
// it speaks.
func TestTransport_schemeMismatch(t *testing.T) {
	proxyEnv(t, "", "")
	var reached atomic.Int32
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) })
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	tlsSrv := httptest.NewUnstartedServer(h)
	tlsSrv.Config.ErrorLog = stdlog.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	for _, c := range []struct {
		base    string
		want    ConnectFailure
		phrases []string
	}{
		{"https://" + plain.Listener.Addr().String(), ServiceSpeaksHTTP, []string{"base_url says https://", "answers in plain http"}},
		{"http://" + tlsSrv.Listener.Addr().String(), ServiceSpeaksTLS, []string{"base_url says http://", "speaks TLS", "HTTP 400"}},
	} {
		var log attemptLog
		cl := budgetClient(t, c.base, time.Minute, &log)
		start := time.Now()
		err := getConnector(t, cl)
		_ = connectFailure(t, err, c.want)
		for _, p := range c.phrases {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: %q does not say %q", c.base, err, p)
			}
		}
		if log.count() != 1 || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %d attempts over %v; want one", c.base, log.count(), time.Since(start))
		}
		if f := log.last(); f["failure"] != string(c.want) || f["error"] == nil {
			t.Errorf("%s: log fields %v do not name the cause", c.base, f)
		}
	}
	if reached.Load() != 0 {
		t.Errorf("%d requests reached the handlers", reached.Load())
	}
}

// TestTransport_unreachedCauses: which transport errors are failures to
// reach the service, and how each is told.
func TestTransport_unreachedCauses(t *testing.T) {
	dial := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	for _, c := range []struct {
		err       error
		unreached bool
		says      string
	}{
		{dial(syscall.ECONNREFUSED), true, "nothing accepts connections at h:1 (connection refused)"},
		{dial(syscall.EHOSTUNREACH), true, "no route to h:1 (no route to host)"},
		{dial(syscall.ENETUNREACH), true, "no route to h:1 (network is unreachable)"},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, true, "h:1 reset the connection"},
		{&net.DNSError{Err: "server misbehaving", Name: "h", IsTemporary: true}, true, "resolver could not look up h (server misbehaving)"},
		{dial(&timeoutError{}), true, "nothing answered a connection to h:1 in time"},
		{errors.New("EOF"), false, ""},
		{&net.OpError{Op: "read", Err: errors.New("broken")}, false, ""},
	} {
		if got := unreached(c.err); got != c.unreached {
			t.Errorf("unreached(%v) = %v, want %v", c.err, got, c.unreached)
		}
		if c.says != "" {
			if got := (&ConnectError{Failure: Unreachable, Host: "h:1", Err: c.err}).Error(); !strings.Contains(got, c.says) {
				t.Errorf("%v: %q, want it to say %q", c.err, got, c.says)
			}
		}
	}
}

type timeoutError struct{}

func (*timeoutError) Error() string   { return "i/o timeout" }
func (*timeoutError) Timeout() bool   { return true }
func (*timeoutError) Temporary() bool { return true }
