// Package pacing holds a process's requests to the service's rate limit
// (internal/client/README.md, "Rate limits"), without I/O: answers and
// headers in, waits out.
package pacing

import (
	"crypto/sha256"
	"math"
	"net/http"
	"sync"
	"time"
)

const (
	PollHeld = 50 * time.Millisecond

	minRate  = 1.0
	minStep  = 0.5
	firstCut = 0.75
	maxRate  = 1000.0
	// servedSpan: a burst spent in a pacer's first moments is no rate.
	servedSpan = time.Second
	// dropPacing: a rate learned from refusals that held no request this
	// long is dropped. It outlasts the 2 s a create's name checks wait for
	// each other while requests are held, which would otherwise drop the
	// pace between every list and the creates it lets go.
	dropPacing = 5 * time.Second
	maxServed  = 4096
	// A process told nothing of the limit (no header, no rate learned)
	// spaces the writes of its first blindSpan by the time an answer takes,
	// within minGap and maxGap: where other processes of the key spend the
	// quota too, a first 429 then teaches the pacer before the rest of a
	// burst of creates go. Reads go side by side: a refused read is only
	// sent again.
	blindSpan = time.Second
	minGap    = 5 * time.Millisecond
	maxGap    = 10 * time.Millisecond
	// TroubleAnswers: a service answering 5xx refuses whatever the rate; its
	// 429s would halve the rate down to minRate.
	TroubleAnswers = 32

	// A longer window is a quota for a run, not a rate to pace by.
	maxSmoothWindow = 10 * time.Second
	shareSpan       = 100 * time.Millisecond
	shareCut        = 0.75
	shareRefused    = 0.5
	minShare        = 0.05
	shareRise       = 0.1

	ByRefusals = "429 answers"
	// ByBlind holds a write while nothing tells the limit.
	ByBlind = "writes spaced until the limit is known"
)

// One Pacer per service and key for the process; keyed by a hash.
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

// Pacer paces one service and API key.
type Pacer struct {
	mu sync.Mutex

	tokens int64
	limit  int64
	until  time.Time
	by     string
	sends  uint64
	flying int64
	epoch  uint64

	window  time.Duration
	credit  float64
	counted time.Time
	// share is 0 for whole; ref is the answer the next is compared with.
	share   float64
	cut     time.Time
	cutSeq  uint64
	refSeq  uint64
	refLeft int64
	refAt   time.Time

	// The rate learned from bare 429s; base 0 when none.
	base, step float64
	decreased  time.Time
	next       time.Time
	held       time.Time
	served     []time.Time
	// waited is when a request was last told to wait its turn.
	waited       time.Time
	sinceTrouble int
	// firstWrite, nextWrite and answerTime space blind writes.
	firstWrite, nextWrite time.Time
	answerTime            time.Duration
}

// rollover counts on this process's share of the limit: other processes
// start the window too.
func (p *Pacer) rollover(now time.Time) {
	if !p.until.IsZero() && !now.Before(p.until) {
		p.until, p.tokens, p.epoch = time.Time{}, p.limit, p.sends
		if p.limit > 0 {
			p.tokens = max(int64(math.Ceil(float64(p.limit)*p.shareNow(now))), 1)
		}
	}
}

func (p *Pacer) published() float64 {
	if p.limit <= 0 || p.window <= 0 {
		return 0
	}
	return float64(p.limit) / p.window.Seconds()
}

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

// headerRate spaces the last half of a window's count at this process's
// share, instead of spending it at once and waiting for the reset.
func (p *Pacer) headerRate(now time.Time) float64 {
	pub := p.published()
	if pub == 0 || p.tokens < 0 || p.tokens > p.limit/2 {
		return 0
	}
	return max(pub*p.shareNow(now), min(pub, minRate))
}

func (p *Pacer) cutShare(seq uint64, now time.Time, f float64) {
	if seq <= p.cutSeq {
		return
	}
	p.share = max(p.shareNow(now)*f, minShare)
	p.cut, p.cutSeq = now, p.sends
}

// Reserve: a rate's turn is reserved; a window's end is not, and the
// caller looks again. A hold of unknown end ends with the next answer. A
// write (a create, update or delete) is spaced while the pacer is blind.
func (p *Pacer) Reserve(now, end time.Time, write bool) (wait time.Duration, by string, reserved, fits bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rollover(now)
	if p.tokens == 0 {
		p.waited = now
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
		return p.blindWrite(now, end, write)
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
	if wait > 0 {
		p.waited = now
	}
	if wait > 0 && by == ByRefusals {
		p.held = now
	}
	return wait, by, true, true
}

// blindWrite spaces a write of the first blindSpan of a pacer that knows
// neither a rate from refusals nor a published limit.
func (p *Pacer) blindWrite(now, end time.Time, write bool) (time.Duration, string, bool, bool) {
	if !write || p.published() > 0 {
		return 0, "", false, true
	}
	if p.firstWrite.IsZero() {
		p.firstWrite = now
	}
	if now.Sub(p.firstWrite) >= blindSpan {
		return 0, "", false, true
	}
	turn := now
	if p.nextWrite.After(turn) {
		turn = p.nextWrite
	}
	if turn.After(end) {
		return 0, "", false, true
	}
	p.nextWrite = turn.Add(min(max(p.answerTime, minGap), maxGap))
	return turn.Sub(now), ByBlind, true, true
}

// Knows tells whether a rate or a limit holds the requests: a write whose
// blind turn came after that asks for a turn again.
func (p *Pacer) Knows(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rate(now) > 0 || p.published() > 0
}

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

// Observe: every request Take let go ends here, sent or not.
func (p *Pacer) Observe(seq uint64, sent, now time.Time, status int, h http.Header) {
	q, ok := readQuota(h, now)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flying--
	if status != 0 && !sent.IsZero() {
		p.answerTime = now.Sub(sent)
	}
	switch {
	case ok:
		p.count(seq, now, q)
		if status == http.StatusTooManyRequests {
			// Others spend the count too: take a smaller share.
			p.cutShare(seq, now, shareRefused)
		}
	case p.tokens == 0 && p.until.IsZero():
		p.tokens = -1
	}
	switch {
	case status >= http.StatusInternalServerError:
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
		p.served = append(p.served, now)
		if len(p.served) > maxServed {
			p.served = p.served[len(p.served)-maxServed:]
		}
	}
}

// count takes off the requests in flight, which the count may not hold yet.
func (p *Pacer) count(seq uint64, now time.Time, q quota) {
	resetAt := now.Add(q.reset)
	if !resetAt.After(now) {
		return
	}
	p.rollover(now)
	if seq <= p.epoch {
		return
	}
	left := max(q.remaining-p.flying, 0)
	// A late answer cannot raise the count faster than the published rate.
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
		p.window = time.Second
	}
	p.by = q.by
	p.compare(seq, now, q.remaining)
}

// compare: the count fell by more than this process sent, so others
// spend it too.
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

// refused slows to 3/4 of the rate served lately (or halves it): that
// holds some burst, and each process of the key learns its own rate.
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
		return
	} else {
		r = max(r*firstCut, minRate)
	}
	// A twentieth a second of the first rate learned: the rises of a key's
	// processes sum to one's, and one cut low regains as fast as the rest.
	if cur == 0 {
		p.step = max(r/20, minStep)
	}
	p.base, p.decreased = r, now
	if p.next.Before(now) {
		p.next = now
	}
}

// Holding tells whether a request was told to wait its turn within the last
// span: requests then queue, and what one of them saves, each gains.
func (p *Pacer) Holding(now time.Time, span time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.waited.IsZero() && now.Sub(p.waited) < span
}

func (p *Pacer) Troubled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sinceTrouble < TroubleAnswers
}
