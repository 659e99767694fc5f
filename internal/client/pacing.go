package client

import (
	"crypto/sha256"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Pacing (README.md, "Rate limits"): a process holds its requests to a
// service and API key while the service says none are left, and after 429
// answers that say nothing, keeps to about the rate the service serves.
const (
	// maxReset is the furthest reset trusted: no rate limit a service
	// publishes resets further off, and a wrong one would hold every request.
	maxReset = time.Hour
	// maxQuota bounds the counts trusted.
	maxQuota = 1e9
	// pollHeld is how often a request held with no known end looks again.
	pollHeld = 50 * time.Millisecond

	minRate = 1.0 // requests a second; below, backoff and Retry-After serve
	// minStep is the least rise of a rate learned from 429s, in requests a
	// second each second.
	minStep = 0.1
	// firstCut is the share of the rate served lately that the first 429
	// without headers slows to.
	firstCut = 0.75
	maxRate  = 1000.0
	// servedSpan is how far back served answers are counted for a rate,
	// however young the pacer: a service's burst, spent in its first
	// moments, is no rate, and counted over less than this it would pace
	// every process of the key above the rate the service serves.
	servedSpan = time.Second
	// dropPacing: a learned rate that held no request for this long no
	// longer limits more than the slots do, and is dropped.
	dropPacing = 2 * time.Second
	maxServed  = 4096
	// troubleAnswers: 429s within this many answers of a 5xx slow nothing,
	// and a 5xx drops the rate learned from 429s. A service that also
	// answers 500, 502, 503 or 504 is in trouble, and refuses requests
	// whatever their rate: slowing on each of its 429s would halve the rate
	// down to minRate. Their Retry-After and the backoff still hold the
	// requests.
	troubleAnswers = 32

	// maxSmoothWindow is the longest window whose limit is paced as a rate:
	// a longer one is a quota for a whole run rather than a rate, and
	// spacing what is left of it evenly would slow a run that fits in it.
	maxSmoothWindow = 10 * time.Second
	// shareSpan is the least time between the answers compared to tell
	// whether other processes spend the same count.
	shareSpan = 100 * time.Millisecond
	// A process's share of a published rate: cut by shareCut when others
	// spend the count, by shareRefused on a 429, never below minShare,
	// and it rises by shareRise each second since.
	shareCut     = 0.75
	shareRefused = 0.5
	minShare     = 0.05
	shareRise    = 0.1

	byRefusals = "429 answers"
)

// RateLimitError is a request not sent: the service's rate limit would
// hold it past the end of its time limit.
type RateLimitError struct {
	// By is the header that holds the request, or "429 answers" for a rate
	// learned from refusals.
	By   string
	Wait time.Duration
	// Left is what was left of the time limit.
	Left time.Duration
	// Limit names the time limit, as Error.Limit does.
	Limit string
}

func (e *RateLimitError) Error() string {
	by := "the service's " + e.By + " header"
	if e.By == byRefusals {
		by = "the service's " + byRefusals
	}
	limit := e.Limit
	if limit == "" {
		limit = "the operation's time limit"
	}
	return fmt.Sprintf("rate-limited by %s: the request would wait %s to be sent, past the end of %s, %s away, so it was not sent",
		by, roundWait(e.Wait), limit, roundWait(max(e.Left, 0)))
}

// pacers holds a pacer per service and API key for the whole process, so
// that every Client of the same service and key (provider instances,
// aliases) keeps to one rate limit. The key is a hash: the API key is never
// kept here.
var pacers = struct {
	sync.Mutex
	by map[[sha256.Size]byte]*pacer
}{by: map[[sha256.Size]byte]*pacer{}}

func pacerFor(baseURL, apiKey string) *pacer {
	k := sha256.Sum256([]byte(baseURL + "\x00" + apiKey))
	pacers.Lock()
	defer pacers.Unlock()
	p := pacers.by[k]
	if p == nil {
		p = &pacer{tokens: -1, limit: -1, sinceTrouble: troubleAnswers + 1}
		pacers.by[k] = p
	}
	return p
}

// pacer is the pacing of one service and API key.
type pacer struct {
	mu sync.Mutex

	// What the service's headers say: tokens requests may still be sent
	// before until (negative when unknown; until zero when unknown).
	tokens int64
	limit  int64 // negative when unknown
	until  time.Time
	by     string
	sends  uint64 // requests let go, numbering each
	flying int64  // requests let go whose attempt has not ended
	epoch  uint64 // sends when the latest window began: answers to earlier ones describe an older window

	// What the headers say of the rate: the limit's window, when short
	// enough to pace by (0 when not), and the tokens it refilled since the
	// latest answer counted, less the whole ones added to tokens.
	window  time.Duration
	credit  float64
	counted time.Time
	// This process's share of limit/window: share (0 meaning whole) rising
	// by shareRise each second since cut, and cut at most once for the
	// requests sent before the last cut (cutSeq). ref is the answer the
	// next is compared with to tell whether others spend the count.
	share   float64
	cut     time.Time
	cutSeq  uint64
	refSeq  uint64
	refLeft int64
	refAt   time.Time

	// What 429 answers without headers taught: a rate in requests a second
	// that rises by step each second since decreased; base 0 when none.
	base, step float64
	decreased  time.Time
	next       time.Time // the next free turn at that rate
	held       time.Time // the latest request that rate held
	served     []time.Time
	// sinceTrouble counts the answers since the latest 5xx (more than
	// troubleAnswers when none came yet): 429s amid a service's 5xx tell of
	// its trouble rather than of its rate.
	sinceTrouble int
}

// rollover starts a new window once the one the service named has ended.
// A process counts on its share of the limit only: other processes of the
// same key start the window too.
func (p *pacer) rollover(now time.Time) {
	if !p.until.IsZero() && !now.Before(p.until) {
		p.until, p.tokens, p.epoch = time.Time{}, p.limit, p.sends
		if p.limit > 0 {
			p.tokens = max(int64(math.Ceil(float64(p.limit)*p.shareNow(now))), 1)
		}
	}
}

// published is the rate the headers publish, limit/window, in requests a
// second; 0 when they tell no limit or no window short enough.
func (p *pacer) published() float64 {
	if p.limit <= 0 || p.window <= 0 {
		return 0
	}
	return float64(p.limit) / p.window.Seconds()
}

// shareNow is the share of the published rate this process keeps to.
func (p *pacer) shareNow(now time.Time) float64 {
	if p.share == 0 {
		return 1
	}
	s := p.share + shareRise*now.Sub(p.cut).Seconds()
	if s >= 1 {
		p.share = 0
		return 1
	}
	return s
}

// headerRate is the rate the headers pace requests at, 0 when none: once
// half the limit or less is left, requests go evenly at this process's
// share of limit/window, which a token bucket refills as fast and a fixed
// window holds, instead of spending the rest at once and waiting for the
// reset.
func (p *pacer) headerRate(now time.Time) float64 {
	pub := p.published()
	if pub == 0 || p.tokens < 0 || p.tokens > p.limit/2 {
		return 0
	}
	return max(pub*p.shareNow(now), min(pub, minRate))
}

// cutShare lowers this process's share of the published rate by f, once
// for the requests sent before the last cut.
func (p *pacer) cutShare(seq uint64, now time.Time, f float64) {
	if seq <= p.cutSeq {
		return
	}
	p.share = max(p.shareNow(now)*f, minShare)
	p.cut, p.cutSeq = now, p.sends
}

// reserve tells how long a request must wait to be sent, and what holds
// it. A wait for a rate's turn reserves the turn (reserved); a wait for a
// window to end reserves nothing, and the caller looks again after it.
// fits is false, with nothing reserved, when the wait would end past end;
// a hold of unknown end always fits, as it ends with the next answer.
func (p *pacer) reserve(now, end time.Time) (wait time.Duration, by string, reserved, fits bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rollover(now)
	if p.tokens == 0 {
		if p.until.IsZero() {
			return pollHeld, p.by, false, true
		}
		wait = p.until.Sub(now)
		return wait, p.by, false, !now.Add(wait).After(end)
	}
	rate, by := p.rate(now), byRefusals
	if hr := p.headerRate(now); hr > 0 && (rate == 0 || hr < rate) {
		rate, by = hr, p.by
	}
	if rate == 0 {
		return 0, "", false, true
	}
	turn := now
	if p.next.After(turn) {
		turn = p.next
	}
	wait = turn.Sub(now)
	if turn.After(end) {
		return wait, by, false, false
	}
	p.next = turn.Add(time.Duration(float64(time.Second) / rate))
	if wait > 0 && by == byRefusals {
		p.held = now
	}
	return wait, by, true, true
}

// take lets a request go once it holds a slot, unless a window's hold began
// meanwhile; force lets it go regardless. It numbers the request for observe.
func (p *pacer) take(now time.Time, force bool) (uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rollover(now)
	if p.tokens == 0 && !force {
		return 0, false
	}
	if p.tokens > 0 {
		p.tokens--
	}
	p.sends++
	p.flying++
	return p.sends, true
}

// observe learns from the end of attempt seq, sent at sent: the answer's
// headers, or a 429 without them. status is 0 when no answer came. Every
// request take let go ends here, sent or not.
func (p *pacer) observe(seq uint64, sent, now time.Time, status int, h http.Header) {
	q, ok := readQuota(h, now)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flying--
	switch {
	case ok:
		p.count(seq, now, q)
		if status == http.StatusTooManyRequests {
			// The count did not keep this process from spending what
			// others spend too: it takes a smaller share.
			p.cutShare(seq, now, shareRefused)
		}
	case p.tokens == 0 && p.until.IsZero():
		// Held for an answer that would tell the count: this one does not,
		// so stop waiting for it.
		p.tokens = -1
	}
	switch {
	case status >= http.StatusInternalServerError:
		// What its 429s taught before is dropped too.
		p.sinceTrouble, p.base = 0, 0
	case status != 0:
		p.sinceTrouble++
	}
	switch {
	case status == http.StatusTooManyRequests && !ok:
		if p.sinceTrouble > troubleAnswers {
			p.refused(sent, now)
		}
	case status != 0 && status < http.StatusInternalServerError && status != http.StatusTooManyRequests:
		// Served: a 5xx tells of a service in trouble, not of its rate.
		p.served = append(p.served, now)
		if len(p.served) > maxServed {
			p.served = p.served[len(p.served)-maxServed:]
		}
	}
}

// count takes in what an answer says is left. The other requests in flight
// may not be counted in it yet, so they are taken off.
func (p *pacer) count(seq uint64, now time.Time, q quota) {
	resetAt := now.Add(q.reset)
	if !resetAt.After(now) {
		return // its window is over
	}
	p.rollover(now)
	if seq <= p.epoch {
		return // it tells of a window already over
	}
	left := max(q.remaining-p.flying, 0)
	// Since the latest answer counted, the count may have refilled at the
	// published rate, and no faster: an answer to a request the service
	// took earlier, arriving later, cannot raise it further.
	var add int64
	if pub := p.published(); pub > 0 && !p.counted.IsZero() && p.tokens >= 0 {
		p.credit = min(p.credit+pub*now.Sub(p.counted).Seconds(), float64(p.limit))
		add = int64(p.credit)
		p.credit -= float64(add)
	}
	p.counted = now
	if p.tokens < 0 || p.tokens+add >= left {
		p.tokens, p.credit = left, 0
	} else {
		p.tokens += add
	}
	if p.until.IsZero() || resetAt.After(p.until) {
		p.until = resetAt
	}
	if q.limit > 0 {
		p.limit = q.limit
	}
	p.window = 0
	switch {
	case q.window > 0 && q.window <= maxSmoothWindow:
		p.window = q.window
	case q.window == 0 && q.reset <= time.Second:
		// A reset a second away or less, with no window said, tells a
		// limit a second.
		p.window = time.Second
	}
	p.by = q.by
	p.compare(seq, now, q.remaining)
}

// compare tells whether other processes spend the count this one paces by:
// since the answer compared with (ref), the count fell by more than this
// process sent, less what its share of the published rate refilled. The
// requests sent after seq that the service took first are allowed for.
func (p *pacer) compare(seq uint64, now time.Time, remaining int64) {
	pub := p.published()
	if pub == 0 || seq <= p.refSeq {
		return
	}
	if !p.refAt.IsZero() {
		dt := now.Sub(p.refAt)
		if dt < shareSpan {
			return
		}
		mine := float64(seq - p.refSeq)
		expected := min(float64(p.refLeft)-mine+pub*p.shareNow(now)*dt.Seconds(), float64(p.limit))
		if float64(remaining+1+p.flying) < expected {
			p.cutShare(seq, now, shareCut)
		}
	}
	p.refSeq, p.refLeft, p.refAt = seq, remaining, now
}

// rate is the learned rate now, 0 when none: it rises by step each second
// since the last decrease, and is dropped once it holds nothing for a
// while (the slots then limit more than it does) or passes maxRate.
func (p *pacer) rate(now time.Time) float64 {
	if p.base == 0 {
		return 0
	}
	r := p.base + p.step*now.Sub(p.decreased).Seconds()
	last := p.decreased
	if p.held.After(last) {
		last = p.held
	}
	if r > maxRate || now.Sub(last) > dropPacing {
		p.base = 0
		return 0
	}
	return r
}

// refused slows to three quarters of the rate served lately, or halves the
// rate, once for the requests sent before the last decrease. What was served
// lately holds some of the service's burst, and other processes of the key
// each learn their own rate at once: their sum at the rate served would
// overshoot the service's rate as soon as the first pause ends.
func (p *pacer) refused(sent, now time.Time) {
	if sent.Before(p.decreased) {
		return
	}
	n := 0
	for i := len(p.served) - 1; i >= 0 && now.Sub(p.served[i]) <= servedSpan; i-- {
		n++
	}
	servedRate := float64(n) / servedSpan.Seconds()
	cur := p.rate(now)
	r := servedRate
	if cur > 0 {
		r = max(min(servedRate, cur/2), minRate)
	} else if n < 2 || r < minRate {
		return // nothing measured: backoff and Retry-After serve
	} else {
		r = max(r*firstCut, minRate)
	}
	// A slow rise, a twentieth of the rate a second: processes of one key
	// each rise, and the sum of their rises overshoots the service's rate
	// the sooner; in proportion to each one's rate, the sum rises as one
	// process at the service's rate would. A token bucket keeps what a
	// process alone leaves while it rises, and serves it after.
	p.base, p.step, p.decreased = r, max(r/20, minStep), now
	if p.next.Before(now) {
		p.next = now
	}
}

// quota is what an answer's rate-limit headers say.
type quota struct {
	limit     int64 // negative when not said
	remaining int64
	reset     time.Duration
	window    time.Duration // the limit's window; 0 when not said
	by        string        // the header that says remaining
}

// readQuota reads the first of the header styles an answer holds whose
// values a service could send; a style with any other is ignored.
func readQuota(h http.Header, now time.Time) (quota, bool) {
	if h == nil {
		return quota{}, false
	}
	if v := h.Values(headerRateLimit); len(v) > 0 {
		if q, ok := structuredQuota(strings.Join(v, ","), strings.Join(h.Values(headerRateLimitPolicy), ","), now); ok {
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

// count reads a whole number a service could send as a count.
func count(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 15 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n <= maxQuota
}

// resetIn reads a reset in seconds, whole or not: a delay, or past 1e9 a
// Unix time. One further than maxReset, or a Unix time that far past, is
// not trusted.
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

// structuredQuota reads RateLimit as draft-ietf-httpapi-ratelimit-headers
// writes it, a list of policies ("default";r=0;t=3) whose limits
// RateLimit-Policy gives ("default";q=20;w=1), or as its earlier drafts
// did, a dictionary (limit=20, remaining=0, reset=3). Of several policies,
// the one with the fewest left counts.
func structuredQuota(rl, policy string, now time.Time) (quota, bool) {
	members := sfMembers(rl)
	if len(members) == 0 {
		return quota{}, false
	}
	if dict := sfDictionary(members); dict != nil {
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
	limits := map[string]string{}
	windows := map[string]time.Duration{}
	for _, m := range sfMembers(policy) {
		name, params := sfItem(m)
		limits[name] = params["q"]
		// A window that is no count leaves the limit without one.
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

// sfMembers splits a structured field's list on commas outside strings.
func sfMembers(v string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			out = append(out, strings.TrimSpace(v[start:i]))
			start = i + 1
		}
	}
	if m := strings.TrimSpace(v[start:]); m != "" {
		out = append(out, m)
	}
	return out
}

// sfItem splits a list member into its name (a string or a token) and its
// parameters.
func sfItem(m string) (string, map[string]string) {
	parts := strings.Split(m, ";")
	name := strings.Trim(strings.TrimSpace(parts[0]), `"`)
	params := map[string]string{}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		params[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return name, params
}

// sfDictionary is the members as key=value, or nil when they are items.
func sfDictionary(members []string) map[string]string {
	out := map[string]string{}
	for _, m := range members {
		k, v, ok := strings.Cut(m, "=")
		if !ok || strings.ContainsAny(k, `";`) {
			return nil
		}
		v, _, _ = strings.Cut(v, ";")
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}
