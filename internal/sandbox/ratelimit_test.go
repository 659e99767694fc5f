package sandbox

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const otherKey = "other-api-key"

// limitedHarness is a sandbox limited to rate requests a second, on a clock
// that moves only when the test moves it, with a second key on the default
// workspace.
func limitedHarness(t *testing.T, rate int) (*harness, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	h := newHarness(t, Config{Jobs: 1, Now: clock.Now, RateLimit: rate, Keys: []KeyBinding{
		{APIKey: key, WorkspaceID: ws}, {APIKey: otherKey, WorkspaceID: ws},
	}})
	return h, clock
}

// expectLimited checks that a list of jobs with apiKey is refused for the
// rate, with a body like the sandbox's other errors and Retry-After: 1, as
// a bucket of R that refills at R a second is never more than a second
// from its next token.
func (h *harness) expectLimited(apiKey string) {
	h.t.Helper()
	const retryAfter = "1"
	st, hdr, out := h.call("GET", jobsPath(""), apiKey, nil)
	if st != 429 || hdr.Get("Retry-After") != retryAfter || hdr.Get("Content-Type") != "application/json" {
		h.t.Fatalf("over the limit: %d, Retry-After %q, Content-Type %q (%v), want 429 and Retry-After %s", st, hdr.Get("Retry-After"), hdr.Get("Content-Type"), out, retryAfter)
	}
	if d, _ := out.(map[string]any)["detail"].(string); d != "Request was throttled. Expected available in "+retryAfter+" second." {
		h.t.Fatalf("over the limit: detail %q", d)
	}
}

func (h *harness) expectServed(n int, apiKey string) {
	h.t.Helper()
	for i := range n {
		if st, _, out := h.call("GET", jobsPath(""), apiKey, nil); st != 200 {
			h.t.Fatalf("request %d of %d: %d (%v), want 200", i+1, n, st, out)
		}
	}
}

// TestRateLimit_burstThenRefill: a key sends its burst of R at once, the
// next is refused with Retry-After: 1, and the bucket fills again at R a
// second, to at most R.
func TestRateLimit_burstThenRefill(t *testing.T) {
	h, clock := limitedHarness(t, 5)
	h.expectServed(5, key)
	h.expectLimited(key)
	clock.Add(199 * time.Millisecond)
	h.expectLimited(key)
	clock.Add(time.Millisecond)
	h.expectServed(1, key)
	h.expectLimited(key)
	clock.Add(400 * time.Millisecond)
	h.expectServed(2, key)
	clock.Add(time.Hour)
	h.expectServed(5, key)
	h.expectLimited(key)

	st := h.srv.Stats()
	if st.RateLimited != 4 || st.Requests != 17 || st.ByRoute["GET /developers/workspaces/{workspace_id}/jobs/"] != 17 {
		t.Errorf("stats: %d refused for the rate, %d requests, by route %v; want 4 of 17", st.RateLimited, st.Requests, st.ByRoute)
	}
	if st.MaxInFlight != 1 || st.Faults != 0 {
		t.Errorf("stats: %+v", st)
	}
}

// TestRateLimit_perKey: each key has a bucket of its own; a key the
// sandbox does not know is not limited but refused as before.
func TestRateLimit_perKey(t *testing.T) {
	h, _ := limitedHarness(t, 2)
	h.expectServed(2, key)
	h.expectLimited(key)
	h.expectServed(2, otherKey)
	h.expectLimited(otherKey)
	for range 3 {
		if st, _, _ := h.call("GET", jobsPath(""), "unknown-key", nil); st != 401 {
			t.Fatalf("an unknown key: %d, want 401", st)
		}
	}
}

// TestRateLimit_sideDoor: the side door is never limited, shows the limit
// and sets it; a new limit starts every bucket full, and 0 lifts it.
func TestRateLimit_sideDoor(t *testing.T) {
	h, _ := limitedHarness(t, 1)
	h.expectServed(1, key)
	h.expectLimited(key)
	for range 3 {
		if out := h.expect("GET", "/_sandbox/rate_limit", nil, 200, "").(map[string]any); out["requests_per_second"] != 1.0 {
			t.Fatalf("GET rate_limit: %v", out)
		}
	}
	if out := h.expect("PUT", "/_sandbox/rate_limit", map[string]any{"requests_per_second": 3}, 200, "").(map[string]any); out["requests_per_second"] != 3.0 {
		t.Errorf("PUT rate_limit answered %v", out)
	}
	if r := h.srv.RateLimit(); r != 3 {
		t.Errorf("RateLimit() after PUT: %d", r)
	}
	h.expectServed(3, key)
	h.expectLimited(key)
	h.expect("PUT", "/_sandbox/rate_limit", map[string]any{"requests_per_second": -1}, 400, "requests_per_second must not be negative, got -1")
	h.expect("PUT", "/_sandbox/rate_limit", map[string]any{"rps": 1}, 400, `unknown field "rps"`)
	h.expect("PUT", "/_sandbox/rate_limit", map[string]any{"requests_per_second": 0}, 200, "")
	h.expectServed(10, key)
	if st := h.srv.Stats(); st.RateLimited != 2 || st.ByRoute["GET /_sandbox/rate_limit"] != 3 {
		t.Errorf("stats: %+v", st)
	}
}

// TestRateLimit_retryAfter: Retry-After is the wait in whole seconds,
// rounded up, and at least 1.
func TestRateLimit_retryAfter(t *testing.T) {
	for _, c := range []struct {
		wait time.Duration
		want string
	}{{0, "1"}, {time.Nanosecond, "1"}, {time.Second, "1"}, {time.Second + time.Nanosecond, "2"}, {2500 * time.Millisecond, "3"}} {
		w := httptest.NewRecorder()
		writeRateLimited(w, c.wait)
		if got := w.Header().Get("Retry-After"); w.Code != 429 || got != c.want || !strings.Contains(w.Body.String(), `"detail":"Request was throttled.`) {
			t.Errorf("a wait of %v: %d, Retry-After %q, %s; want 429 and %s", c.wait, w.Code, got, w.Body, c.want)
		}
	}
}

func TestRateLimit_refusesNegative(t *testing.T) {
	if _, err := New(Config{RateLimit: -1}); err == nil {
		t.Error("New took a negative rate limit")
	}
	h := newHarness(t, Config{Jobs: 1})
	if err := h.srv.SetRateLimit(-5); err == nil || h.srv.RateLimit() != 0 {
		t.Errorf("SetRateLimit(-5): %v, limit now %d", err, h.srv.RateLimit())
	}
	if err := h.srv.SetRateLimit(2); err != nil {
		t.Fatal(err)
	}
	h.expectServed(2, key)
	h.expectLimited(key)
}

// TestRateLimit_beforeFaults: a request refused for the rate gets no fault
// and changes nothing.
func TestRateLimit_beforeFaults(t *testing.T) {
	h, _ := limitedHarness(t, 1)
	h.expectServed(1, key)
	if err := h.srv.SetFaults(Faults{Rate: 1, Statuses: []int{500}}); err != nil {
		t.Fatal(err)
	}
	before := len(h.srv.ConnectorIDs(ws))
	if st, hdr, _ := h.call("POST", "/developers/workspaces/"+ws+"/connectors/", key, connectorBody("limited")); st != 429 || hdr.Get("Retry-After") != "1" {
		t.Errorf("a create over the limit: %d", st)
	}
	if st := h.srv.Stats(); st.Faults != 0 || st.RateLimited != 1 || len(h.srv.ConnectorIDs(ws)) != before {
		t.Errorf("after a create refused for the rate: %+v", st)
	}
}
