package sandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// RateLimit is the side door's view of the rate limit.
type RateLimit struct {
	RequestsPerSecond int `json:"requests_per_second"`
}

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

// SetRateLimit sets the requests a second for each API key (0: none) and
// fills every bucket.
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

// limit gives buckets to known keys only, so that unknown ones, refused
// later anyway, cannot grow the map.
func (s *Server) limit(key string) (time.Duration, bool) {
	if _, known := s.keys[key]; !known {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := int64(s.rateLimit)
	if r == 0 {
		return 0, false
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
	if b.nanoTokens >= tokenUnit {
		b.nanoTokens -= tokenUnit
		return 0, false
	}
	s.stats.RateLimited++
	return time.Duration((tokenUnit - b.nanoTokens + r - 1) / r), true
}

// writeRateLimited rounds up: Retry-After takes whole seconds.
func writeRateLimited(w http.ResponseWriter, wait time.Duration) {
	secs := max(int64((wait+time.Second-1)/time.Second), 1)
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
	writeJSON(w, http.StatusOK, RateLimit{RequestsPerSecond: s.RateLimit()})
}

func (s *Server) sidePutRateLimit(w http.ResponseWriter, r *http.Request, _ *workspace) {
	sidePut(w, r, `a rate limit object, {"requests_per_second": 20} (0: no limit)`, func(l RateLimit) error {
		return s.SetRateLimit(l.RequestsPerSecond)
	})
}
