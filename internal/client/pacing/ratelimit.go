package pacing

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"
)

// The headers read (README.md, "Rate limits"), and Retry-After.
const (
	headerRateLimit           = "RateLimit"
	headerRateLimitPolicy     = "RateLimit-Policy"
	headerRateLimitLimit      = "RateLimit-Limit"
	headerRateLimitRemaining  = "RateLimit-Remaining"
	headerRateLimitReset      = "RateLimit-Reset"
	headerXRateLimitLimit     = "X-RateLimit-Limit"
	headerXRateLimitRemaining = "X-RateLimit-Remaining"
	headerXRateLimitReset     = "X-RateLimit-Reset"
	headerRetryAfter          = "Retry-After"
)

const (
	// No rate limit resets further off; a wrong one would hold every request.
	maxReset = time.Hour
	maxQuota = 1e9
)

// MaxRetryAfterSeconds keeps a Duration from overflowing.
const MaxRetryAfterSeconds = 1 << 20

// RetryAfter is negative when the header is absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get(headerRetryAfter))
	if v == "" {
		return -1
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) && v[0] != '-' {
		// Too many digits for an int64 is far away all the same: capped.
		s, err = MaxRetryAfterSeconds, nil
	}
	if err == nil {
		if s < 0 {
			return -1
		}
		return time.Duration(min(s, MaxRetryAfterSeconds)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// quota is what an answer's rate-limit headers say.
type quota struct {
	limit     int64
	remaining int64
	reset     time.Duration
	window    time.Duration
	by        string
}

// readQuota reads the first header style whose values a service could send.
func readQuota(h http.Header, now time.Time) (quota, bool) {
	if h == nil {
		return quota{}, false
	}
	if v := h.Values(headerRateLimit); len(v) > 0 {
		if q, ok := structuredQuota(v, h.Values(headerRateLimitPolicy), now); ok {
			return q, true
		}
	}
	for _, s := range [][3]string{
		{headerRateLimitLimit, headerRateLimitRemaining, headerRateLimitReset},
		{headerXRateLimitLimit, headerXRateLimitRemaining, headerXRateLimitReset},
	} {
		rem, reset := h.Get(s[1]), h.Get(s[2])
		if rem == "" || reset == "" {
			continue
		}
		limit := int64(-1)
		if l := h.Get(s[0]); l != "" {
			// An earlier draft lists policies after the limit: "10, 10;w=1".
			l, _, _ = strings.Cut(l, ",")
			l, _, _ = strings.Cut(l, ";")
			n, ok := count(l)
			if !ok {
				continue
			}
			limit = n
		}
		q, ok := checkQuota(limit, rem, reset, s[1], now)
		if ok {
			return q, true
		}
	}
	return quota{}, false
}

func checkQuota(limit int64, remaining, reset, by string, now time.Time) (quota, bool) {
	r, ok := count(remaining)
	if !ok || limit == 0 || limit > 0 && r > limit {
		return quota{}, false
	}
	d, ok := resetIn(reset, now)
	if !ok {
		return quota{}, false
	}
	return quota{limit: limit, remaining: r, reset: d, by: by}, true
}

func count(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 15 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n <= maxQuota
}

// resetIn: seconds, or past 1e9 a Unix time; beyond maxReset, not trusted.
func resetIn(s string, now time.Time) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 15 || len(frac) > 6 || strings.Trim(whole+frac, "0123456789") != "" || strings.HasSuffix(s, ".") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	d := time.Duration(f * float64(time.Second))
	if f > 1e9 {
		d = time.Unix(0, int64(f*1e9)).Sub(now)
		if d < -maxReset {
			return 0, false
		}
		d = max(d, 0)
	}
	return d, d <= maxReset
}

// structuredQuota reads the draft's list of policies, limits from
// RateLimit-Policy, or its earlier dictionary; the policy with the fewest left counts.
func structuredQuota(rl, policy []string, now time.Time) (quota, bool) {
	if dict, ok := sfDictionary(rl); ok {
		limit := int64(-1)
		if l, ok := dict["limit"]; ok {
			n, ok := count(l)
			if !ok {
				return quota{}, false
			}
			limit = n
		}
		return checkQuota(limit, dict["remaining"], dict["reset"], headerRateLimit, now)
	}
	members, err := httpsfv.UnmarshalList(rl)
	if err != nil || len(members) == 0 {
		return quota{}, false
	}
	limits := map[string]string{}
	windows := map[string]time.Duration{}
	policies, _ := httpsfv.UnmarshalList(policy)
	for _, m := range policies {
		name, params := sfItem(m)
		limits[name] = params["q"]
		if w, ok := count(params["w"]); ok && w > 0 {
			windows[name] = time.Duration(min(w, int64(maxReset/time.Second))) * time.Second
		}
	}
	var best quota
	found := false
	for _, m := range members {
		name, params := sfItem(m)
		limit := int64(-1)
		if l, ok := limits[name]; ok && l != "" {
			n, ok := count(l)
			if !ok {
				return quota{}, false
			}
			limit = n
		}
		q, ok := checkQuota(limit, params["r"], params["t"], headerRateLimit, now)
		if !ok {
			return quota{}, false
		}
		if limit > 0 {
			q.window = windows[name]
		}
		if !found || q.remaining < best.remaining || q.remaining == best.remaining && q.reset > best.reset {
			best, found = q, true
		}
	}
	return best, found
}

// sfDictionary: a member without a value is a policy of the list form.
func sfDictionary(v []string) (map[string]string, bool) {
	d, err := httpsfv.UnmarshalDictionary(v)
	if err != nil || len(d.Names()) == 0 {
		return nil, false
	}
	out := map[string]string{}
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		it, ok := m.(httpsfv.Item)
		if !ok || it.Value == true {
			return nil, false
		}
		out[k] = sfText(it.Value)
	}
	return out, true
}

func sfItem(m httpsfv.Member) (string, map[string]string) {
	params := map[string]string{}
	it, ok := m.(httpsfv.Item)
	if !ok {
		return "", params
	}
	for _, k := range it.Params.Names() {
		v, _ := it.Params.Get(k)
		params[k] = sfText(v)
	}
	return sfText(it.Value), params
}

func sfText(v any) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	case httpsfv.Token:
		return string(v)
	}
	return ""
}
