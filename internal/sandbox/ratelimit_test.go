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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// quotaHeaders are every header of every style.
var quotaHeaders = []string{"RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}

// expectQuota sends a list of jobs with key and checks its status and its
// quota headers: want, by name, and no other header of quotaHeaders.
func (h *harness) expectQuota(status int, want map[string]string) {
	h.t.Helper()
	st, hdr, out := h.call("GET", jobsPath(""), key, nil)
	if st != status {
		h.t.Fatalf("status %d (%v), want %d", st, out, status)
	}
	for _, name := range quotaHeaders {
		if got := hdr.Values(name); want[name] != strings.Join(got, ",") {
			h.t.Errorf("answer %d: %s %q, want %q", st, name, got, want[name])
		}
	}
}

// TestRateLimit_headerStyles: each style tells every answer under the
// limit, 200 and 429 alike, the whole tokens left and the seconds until a
// token (none left) or a full bucket (some left); "none" sends no such
// header, and neither does a sandbox without a limit.
func TestRateLimit_headerStyles(t *testing.T) {
	t.Parallel()
	ietf := func(r, t string) map[string]string {
		return map[string]string{"RateLimit-Policy": `"default";q=3;w=1`, "RateLimit": `"default";r=` + r + ";t=" + t}
	}
	x := func(r, t string) map[string]string {
		return map[string]string{"X-RateLimit-Limit": "3", "X-RateLimit-Remaining": r, "X-RateLimit-Reset": t}
	}
	none := func(string, string) map[string]string { return nil }
	for style, want := range map[string]func(r, t string) map[string]string{
		"": none, RateLimitHeadersNone: none, RateLimitHeadersIETF: ietf, RateLimitHeadersX: x, "X-RateLimit": x,
	} {
		t.Run(style, func(t *testing.T) {
			clock := &fakeClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
			h := newHarness(t, Config{Jobs: 1, Now: clock.Now, RateLimit: 3, RateLimitHeaders: style})
			h.expectQuota(200, want("2", "1"))
			h.expectQuota(200, want("1", "1"))
			h.expectQuota(200, want("0", "1"))
			h.expectQuota(429, want("0", "1"))
			// 0.4 s refills 1.2 tokens: one is spent, and the next is
			// 0.27 s away, which rounds up.
			clock.Add(400 * time.Millisecond)
			h.expectQuota(200, want("0", "1"))
			clock.Add(time.Hour)
			h.expectQuota(200, want("2", "1"))
			if err := h.srv.SetRateLimit(0); err != nil {
				t.Fatal(err)
			}
			h.expectQuota(200, nil)
		})
	}
}

// TestRateLimit_headersOnEveryAnswer: a fault, an error of the API and the
// 429 carry the quota too; the side door and an unknown key, under no
// bucket, do not.
// It runs serially: the quota refills by the real clock between requests.
func TestRateLimit_headersOnEveryAnswer(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1, RateLimit: 5, RateLimitHeaders: RateLimitHeadersX})
	if st, hdr, _ := h.call("GET", "/developers/workspaces/"+ws+"/connectors/"+ws+"/", key, nil); st != 404 || hdr.Get("X-RateLimit-Remaining") != "4" {
		t.Errorf("a 404 of the API: %d, X-RateLimit-Remaining %q", st, hdr.Get("X-RateLimit-Remaining"))
	}
	if err := h.srv.SetFaults(Faults{Rate: 1, Statuses: []int{503}}); err != nil {
		t.Fatal(err)
	}
	if st, hdr, _ := h.call("GET", jobsPath(""), key, nil); st != 503 || hdr.Get("X-RateLimit-Remaining") != "3" || hdr.Get("Retry-After") != "1" {
		t.Errorf("a fault: %d, X-RateLimit-Remaining %q", st, hdr.Get("X-RateLimit-Remaining"))
	}
	for _, c := range []struct{ path, key string }{{"/_sandbox/rate_limit", key}, {jobsPath(""), "unknown-key"}} {
		_, hdr, _ := h.call("GET", c.path, c.key, nil)
		for _, name := range quotaHeaders {
			if v := hdr.Get(name); v != "" {
				t.Errorf("GET %s with key %s: %s %q, want none", c.path, c.key, name, v)
			}
		}
	}
}

// TestRateLimit_headersSideDoor: the side door shows the style and sets it
// with the rate, "none" when left out, in any letter case, answering it as
// kept; a style it does not know is refused, naming those allowed, and
// changes nothing.
func TestRateLimit_headersSideDoor(t *testing.T) {
	t.Parallel()
	h, _ := limitedHarness(t, 2)
	if out := h.expect("GET", "/_sandbox/rate_limit", nil, 200, "").(map[string]any); out["headers"] != "none" {
		t.Errorf("GET rate_limit: %v", out)
	}
	h.expectQuota(200, nil)
	if out := h.expect("PUT", "/_sandbox/rate_limit", map[string]any{"requests_per_second": 2, "headers": "IETF"}, 200, "").(map[string]any); out["headers"] != "ietf" {
		t.Errorf("PUT rate_limit answered %v", out)
	}
	if out := h.expect("GET", "/_sandbox/rate_limit", nil, 200, "").(map[string]any); out["headers"] != "ietf" || out["requests_per_second"] != 2.0 {
		t.Errorf("GET rate_limit after the PUT: %v", out)
	}
	h.expectQuota(200, map[string]string{"RateLimit-Policy": `"default";q=2;w=1`, "RateLimit": `"default";r=1;t=1`})
	h.expect("PUT", "/_sandbox/rate_limit", map[string]any{"requests_per_second": 2, "headers": "x-ratelimit"}, 200, "")
	h.expectQuota(200, map[string]string{"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "1", "X-RateLimit-Reset": "1"})
	h.expect("PUT", "/_sandbox/rate_limit", map[string]any{"requests_per_second": 5, "headers": "draft"}, 400, `headers must be "none", "ietf" or "x-ratelimit", got "draft"`)
	if r, style := h.srv.RateLimit(), h.srv.RateLimitHeaders(); r != 2 || style != RateLimitHeadersX {
		t.Errorf("after a refused PUT: %d, %q; want 2, x-ratelimit", r, style)
	}
	if out := h.expect("PUT", "/_sandbox/rate_limit", map[string]any{"requests_per_second": 2}, 200, "").(map[string]any); out["headers"] != "none" {
		t.Errorf("PUT rate_limit without headers answered %v", out)
	}
	h.expectQuota(200, nil)
}

// TestRateLimit_headersSetter: SetRateLimitHeaders switches the style and
// leaves the buckets as they are; a style it does not know is refused.
func TestRateLimit_headersSetter(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{RateLimitHeaders: "draft-07"}); err == nil || !strings.Contains(err.Error(), `"none", "ietf" or "x-ratelimit"`) {
		t.Errorf("New with headers draft-07: %v", err)
	}
	h, _ := limitedHarness(t, 3)
	h.expectQuota(200, nil)
	if err := h.srv.SetRateLimitHeaders("X-RATELIMIT"); err != nil {
		t.Fatal(err)
	}
	h.expectQuota(200, map[string]string{"X-RateLimit-Limit": "3", "X-RateLimit-Remaining": "1", "X-RateLimit-Reset": "1"})
	if err := h.srv.SetRateLimitHeaders("ietf-draft"); err == nil || !strings.Contains(err.Error(), `got "ietf-draft"`) || h.srv.RateLimitHeaders() != RateLimitHeadersX {
		t.Errorf("SetRateLimitHeaders(ietf-draft): %v, style now %q", err, h.srv.RateLimitHeaders())
	}
	if err := h.srv.SetRateLimitHeaders(""); err != nil || h.srv.RateLimitHeaders() != RateLimitHeadersNone {
		t.Errorf("SetRateLimitHeaders(\"\"): %v, style now %q", err, h.srv.RateLimitHeaders())
	}
	h.expectQuota(200, nil)
	h.expectLimited(key)
}
