package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RateLimit is the side door's view of the rate limit.
type RateLimit struct {
	RequestsPerSecond int `json:"requests_per_second"`
	// Headers is of RateLimitHeaderStyles; empty means none.
	Headers string `json:"headers,omitempty"`
}

// The styles of headers that tell a client its quota on every answer under
// the rate limit (README.md, "Rate limit").
const (
	RateLimitHeadersNone = "none"
	// RateLimitHeadersIETF: draft-ietf-httpapi-ratelimit-headers.
	RateLimitHeadersIETF = "ietf"
	// RateLimitHeadersX: X-RateLimit-Limit, -Remaining and -Reset.
	RateLimitHeadersX = "x-ratelimit"
)

var RateLimitHeaderStyles = []string{RateLimitHeadersNone, RateLimitHeadersIETF, RateLimitHeadersX}

// bucket is one API key's token bucket. Tokens are counted in billionths
// of a request, so that the refill of any span of nanoseconds is exact.
type bucket struct {
	nanoTokens int64
	last       time.Time
}

const tokenUnit = int64(time.Second)

func checkRateLimit(r int) error {
	if r < 0 {
		return fmt.Errorf("requests_per_second must not be negative, got %d", r)
	}
	return nil
}

// rateLimitHeaders is style in lower case, or an error naming the styles.
func rateLimitHeaders(style string) (string, error) {
	style = strings.ToLower(style)
	if style == "" {
		return RateLimitHeadersNone, nil
	}
	if !slices.Contains(RateLimitHeaderStyles, style) {
		return "", fmt.Errorf(`headers must be "none", "ietf" or "x-ratelimit", got %q`, style)
	}
	return style, nil
}

// SetRateLimitHeaders sets the style of the quota headers, in any letter case
// (empty: none); the buckets stay as they are.
func (s *Server) SetRateLimitHeaders(style string) error {
	style, err := rateLimitHeaders(style)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimitHeaders = style
	return nil
}

func (s *Server) RateLimitHeaders() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rateLimitHeaders
}

// SetRateLimit sets each key's requests a second (0: none), buckets full.
func (s *Server) SetRateLimit(r int) error {
	if err := checkRateLimit(r); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimit = r
	s.buckets = map[string]*bucket{}
	return nil
}

// RateLimit returns the rate limit in requests a second; 0 means none.
func (s *Server) RateLimit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rateLimit
}

// quota is a key's bucket as an answer tells it.
type quota struct {
	style string
	// limit is the requests a second and the bucket's size; 0: no limit.
	limit     int64
	remaining int64 // whole tokens left
	// reset is the whole seconds, rounded up and at least 1, until a token
	// when none is left, else until the bucket is full.
	reset int64
	wait  time.Duration // until the next token, when refused
}

// limit gives buckets to known keys only, so that unknown ones, refused
// later anyway, cannot grow the map.
func (s *Server) limit(key string) (q quota, limited bool) {
	if _, known := s.keys[key]; !known {
		return quota{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := int64(s.rateLimit)
	if r == 0 {
		return quota{}, false
	}
	capacity := r * tokenUnit
	now := s.cfg.Now()
	b := s.buckets[key]
	if b == nil {
		b = &bucket{nanoTokens: capacity, last: now}
		s.buckets[key] = b
	}
	// A clock that steps back refills nothing; a second refills a full
	// bucket, which keeps the product below overflow.
	elapsed := min(max(now.Sub(b.last), 0), time.Second)
	b.nanoTokens = min(capacity, b.nanoTokens+int64(elapsed)*r)
	b.last = now
	if limited = b.nanoTokens < tokenUnit; limited {
		s.stats.RateLimited++
	} else {
		b.nanoTokens -= tokenUnit
	}
	q = quota{style: s.rateLimitHeaders, limit: r, remaining: b.nanoTokens / tokenUnit}
	// The bucket fills at r tokens a second: a nanosecond of refill is r
	// billionths of a token.
	short := capacity - b.nanoTokens
	if q.remaining == 0 {
		short = tokenUnit - b.nanoTokens
		q.wait = time.Duration((short + r - 1) / r)
	}
	q.reset = wholeSeconds(time.Duration((short + r - 1) / r))
	return q, limited
}

// wholeSeconds rounds up, and is at least 1: the headers take whole
// seconds, and a client told 0 would send again at once.
func wholeSeconds(d time.Duration) int64 {
	return max(int64((d+time.Second-1)/time.Second), 1)
}

// writeQuota sets the headers of q's style, if any and q is under a limit.
func writeQuota(w http.ResponseWriter, q quota) {
	if q.limit == 0 {
		return
	}
	h := w.Header()
	switch q.style {
	case RateLimitHeadersIETF:
		// The bucket holds a second's requests: the policy's window is 1.
		h.Set("RateLimit-Policy", fmt.Sprintf(`"default";q=%d;w=1`, q.limit))
		h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, q.remaining, q.reset))
	case RateLimitHeadersX:
		h.Set("X-RateLimit-Limit", strconv.FormatInt(q.limit, 10))
		h.Set("X-RateLimit-Remaining", strconv.FormatInt(q.remaining, 10))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(q.reset, 10))
	}
}

// writeRateLimited rounds up: Retry-After takes whole seconds.
func writeRateLimited(w http.ResponseWriter, wait time.Duration) {
	secs := wholeSeconds(wait)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	writeError(w, http.StatusTooManyRequests, "Request was throttled. Expected available in "+strconv.FormatInt(secs, 10)+" second"+plural(secs)+".")
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (s *Server) sideGetRateLimit(w http.ResponseWriter, _ *http.Request, _ *workspace) {
	s.mu.Lock()
	l := RateLimit{RequestsPerSecond: s.rateLimit, Headers: s.rateLimitHeaders}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, l)
}

// sidePutRateLimit sets the whole rate limit: headers left out means none.
// Either value refused, nothing changes. It answers the style as kept, in
// lower case, as GET shows it.
func (s *Server) sidePutRateLimit(w http.ResponseWriter, r *http.Request, _ *workspace) {
	sidePut(w, r, `a rate limit object, {"requests_per_second": 20, "headers": "ietf"} (0: no limit; headers "none", "ietf" or "x-ratelimit", none when left out)`, func(l *RateLimit) error {
		if err := checkRateLimit(l.RequestsPerSecond); err != nil {
			return err
		}
		style, err := rateLimitHeaders(l.Headers)
		if err != nil {
			return err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.rateLimit, s.rateLimitHeaders = l.RequestsPerSecond, style
		l.Headers = style
		s.buckets = map[string]*bucket{}
		return nil
	})
}
