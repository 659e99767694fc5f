// Package pacing holds a process's requests to the service's rate limit
// (internal/client/README.md, "Rate limits"). It does no I/O: the request
// layer hands it each answer's status and headers, and asks it how long a
// request waits. While the service says none are left, requests wait for
// the reset; after 429 answers that say nothing, they keep to about the
// rate the service serves, learned by AIMD.
package pacing

import (
	"crypto/sha256"
	"math"
	"net/http"
	"sync"
	"time"
)

const (
	// PollHeld is how often a request held with no known end looks again.
	PollHeld = 50 * time.Millisecond

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
	// TroubleAnswers: 429s within this many answers of a 5xx slow nothing,
	// and a 5xx drops the rate learned from 429s. A service that also
	// answers 500, 502, 503 or 504 is in trouble, and refuses requests
	// whatever their rate: slowing on each of its 429s would halve the rate
	// down to minRate. Their Retry-After and the backoff still hold the
	// requests.
	TroubleAnswers = 32

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

	// ByRefusals is what holds a request paced at a rate learned from 429s.
	ByRefusals = "429 answers"
)

// pacers holds a Pacer per service and API key for the whole process, so
// that every Client of the same service and key (provider instances,
// aliases) keeps to one rate limit. The key is a hash: the API key is never
// kept here.
var pacers = struct {
	sync.Mutex
	by map[[sha256.Size]byte]*Pacer
}{by: map[[sha256.Size]byte]*Pacer{}}

// For is the Pacer of a service and API key.
func For(baseURL, apiKey string) *Pacer {
	k := sha256.Sum256([]byte(baseURL + "\x00" + apiKey))
	pacers.Lock()
	defer pacers.Unlock()
	p := pacers.by[k]
	if p == nil {
		p = &Pacer{tokens: -1, limit: -1, sinceTrouble: TroubleAnswers + 1}
		pacers.by[k] = p
	}
	return p
}

// Pacer is the pacing of one service and API key.
type Pacer struct {
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
	// TroubleAnswers when none came yet): 429s amid a service's 5xx tell of
	// its trouble rather than of its rate.
	sinceTrouble int
}

// rollover starts a new window once the one the service named has ended.
// A process counts on its share of the limit only: other processes of the
// same key start the window too.
func (p *Pacer) rollover(now time.Time) {
	if !p.until.IsZero() && !now.Before(p.until) {
		p.until, p.tokens, p.epoch = time.Time{}, p.limit, p.sends
		if p.limit > 0 {
			p.tokens = max(int64(math.Ceil(float64(p.limit)*p.shareNow(now))), 1)
		}
	}
}

// published is the rate the headers publish, limit/window, in requests a
// second; 0 when they tell no limit or no window short enough.
func (p *Pacer) published() float64 {
	if p.limit <= 0 || p.window <= 0 {
		return 0
	}
	return float64(p.limit) / p.window.Seconds()
}

// shareNow is the share of the published rate this process keeps to.
func (p *Pacer) shareNow(now time.Time) float64 {
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
func (p *Pacer) headerRate(now time.Time) float64 {
	pub := p.published()
	if pub == 0 || p.tokens < 0 || p.tokens > p.limit/2 {
		return 0
	}
	return max(pub*p.shareNow(now), min(pub, minRate))
}

// cutShare lowers this process's share of the published rate by f, once
// for the requests sent before the last cut.
func (p *Pacer) cutShare(seq uint64, now time.Time, f float64) {
	if seq <= p.cutSeq {
		return
	}
	p.share = max(p.shareNow(now)*f, minShare)
	p.cut, p.cutSeq = now, p.sends
}

// Reserve tells how long a request must wait to be sent, and what holds
// it. A wait for a rate's turn reserves the turn (reserved); a wait for a
// window to end reserves nothing, and the caller looks again after it.
// fits is false, with nothing reserved, when the wait would end past end;
// a hold of unknown end always fits, as it ends with the next answer.
func (p *Pacer) Reserve(now, end time.Time) (wait time.Duration, by string, reserved, fits bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rollover(now)
	if p.tokens == 0 {
		if p.until.IsZero() {
			return PollHeld, p.by, false, true
		}
		wait = p.until.Sub(now)
		return wait, p.by, false, !now.Add(wait).After(end)
	}
	rate, by := p.rate(now), ByRefusals
	if hr := p.headerRate(now); hr > 0 && (rate == 0 || hr < rate) {
		rate, by = hr, p.by
	}
	if rate == 0 {
		return 0, "", false, true
	}
	// Turns are kept as times, not as x/time/rate's tokens, whose debt a change of rate (rising each second) would re-price.
	turn := now
	if p.next.After(turn) {
		turn = p.next
	}
	wait = turn.Sub(now)
	if turn.After(end) {
		return wait, by, false, false
	}
	p.next = turn.Add(time.Duration(float64(time.Second) / rate))
	if wait > 0 && by == ByRefusals {
		p.held = now
	}
	return wait, by, true, true
}

// Take lets a request go once it holds a slot, unless a window's hold began
// meanwhile; force lets it go regardless. It numbers the request for Observe.
func (p *Pacer) Take(now time.Time, force bool) (uint64, bool) {
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

// Observe learns from the end of attempt seq, sent at sent: the answer's
// headers, or a 429 without them. status is 0 when no answer came. Every
// request take let go ends here, sent or not.
func (p *Pacer) Observe(seq uint64, sent, now time.Time, status int, h http.Header) {
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
		if p.sinceTrouble > TroubleAnswers {
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
func (p *Pacer) count(seq uint64, now time.Time, q quota) {
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
func (p *Pacer) compare(seq uint64, now time.Time, remaining int64) {
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
func (p *Pacer) rate(now time.Time) float64 {
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
func (p *Pacer) refused(sent, now time.Time) {
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

// Troubled tells whether the service answered 500, 502, 503 or 504 within
// its latest answers.
func (p *Pacer) Troubled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sinceTrouble < TroubleAnswers
}
