package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

type limitKey struct{}

// WithLimit is ctx ended after d, named for the setting that sets d (such
// as "timeouts.create") so that a request it cuts off says which limit ended it.
func WithLimit(ctx context.Context, setting string, d time.Duration) (context.Context, context.CancelFunc) {
	ctx = context.WithValue(ctx, limitKey{}, fmt.Sprintf("%s (%s)", setting, d))
	return context.WithTimeout(ctx, d)
}

func limitOf(ctx context.Context) string {
	name, _ := ctx.Value(limitKey{}).(string)
	return name
}

// do retries r as README.md, "Rate limits and retries", says.
func (c *Client) do(ctx context.Context, r request) error {
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return c.failure(&r, 0, "", err, false)
		}
	}
	if ctx.Err() != nil {
		return c.failure(&r, 0, "", stopped(ctx), false)
	}
	start := time.Now()
	end, ok := ctx.Deadline()
	budget := cmp.Or(limitOf(ctx), "the operation's time limit")
	if !ok {
		end, budget = start.Add(c.budget), fmt.Sprintf("the retry budget (%s)", c.budget)
	}
	r.end, r.budget = end, budget
	var (
		last *Error
		held *RateLimitError
	)
	for attempt := 0; ; attempt++ {
		retryAfter, retryable, err := c.attempt(ctx, &r, payload, attempt)
		if err == nil {
			return nil
		}
		switch {
		case last != nil && errors.As(err.Err, &held):
			// The retry would be held past the limit: like a backoff that
			// would, it is not begun, and the last answer tells why.
			last = gaveUp(last, attempt, start, budget)
			last.Wait = held.Wait
			return last
		case !retryable && attempt > 0 && !err.Sent && unreachedError(err) != nil:
			// Refused without sending: the retries of reaching the service
			// stopped while this request waited for its next attempt.
			return gaveUp(err, attempt, start, "")
		case !retryable:
			return err
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return gaveUp(err, attempt+1, start, budget)
		case ctx.Err() != nil:
			return err
		}
		limit, shared := end, !ok
		unreached := unreachedError(err)
		if unreached != nil {
			if by := c.stoppedReaching(); by != "" {
				unreached.StoppedBy = by
				return gaveUp(err, attempt+1, start, "")
			}
			// Not reaching the service is the Client's to retry, not each
			// request's: its budget runs from the streak's first failure.
			if e := c.streakEnd(); !e.IsZero() && e.Before(limit) {
				limit, shared = e, true
			}
		}
		wait := c.backoff(attempt, retryAfter)
		switch {
		case attempt == c.maxRetries:
			err.Capped = true
			if unreached != nil {
				c.stopReaching(unreached, fmt.Sprintf("max_retries (%d)", c.maxRetries))
			}
			return gaveUp(err, attempt+1, start, "")
		case !time.Now().Add(wait).Before(limit):
			// A wait that would end past the budget is not begun.
			if shared {
				budget = fmt.Sprintf("the retry budget (%s)", c.budget)
				if unreached != nil {
					c.stopReaching(unreached, budget)
				}
			}
			err = gaveUp(err, attempt+1, start, budget)
			err.Wait = wait
			return err
		}
		last = err
		if Sleep(ctx, wait) != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return gaveUp(err, attempt+1, start, budget)
			}
			return err
		}
	}
}

func unreachedError(err *Error) *ConnectError {
	var ce *ConnectError
	if errors.As(err.Err, &ce) && !ce.Permanent() {
		return ce
	}
	return nil
}

// reach is the Client's streak of failures to reach the service, which
// only an answer ends (README.md, "Rate limits and retries").
type reach struct {
	mu        sync.Mutex
	since     time.Time     // the streak's first failed attempt; zero when none
	cause     *ConnectError // its latest failure
	stoppedBy string        // what stopped its retries; empty while they go on
	stop      chan struct{} // closed when stoppedBy is set
	probing   bool          // a request checks whether the service is back
	silent    time.Time     // when the latest attempt that got no answer ended
}

func (c *Client) failedToReach(t time.Time, ce *ConnectError) {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	if c.reach.since.IsZero() {
		c.reach.since = t
	}
	cause := *ce // the request's own may change
	c.reach.cause = &cause
	if ce.Failure == NoAnswer {
		c.reach.silent = time.Now()
	}
}

// streakEnd is when the streak's budget ends; zero when there is no streak.
func (c *Client) streakEnd() time.Time {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	if c.reach.since.IsZero() {
		return time.Time{}
	}
	return c.reach.since.Add(c.budget)
}

func (c *Client) stopReaching(ce *ConnectError, limit string) {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	c.stopLocked(limit)
	ce.StoppedBy = c.reach.stoppedBy
}

func (c *Client) stopLocked(limit string) {
	if c.reach.stoppedBy == "" {
		c.reach.stoppedBy = limit
		close(c.reach.stop)
	}
}

// stoppedReaching is what stopped the retries of reaching the service, or
// "" while they go on.
func (c *Client) stoppedReaching() string {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	return c.reach.stoppedBy
}

// reachStopped tells whether the retries of reaching the service have
// stopped; a streak past its budget stops them here too, so that requests
// waiting for a slot do not each wait out a request timeout. Else it gives
// the channel closed when they stop, and the end of the streak's budget
// (zero when there is no streak).
func (c *Client) reachStopped() (stop <-chan struct{}, end time.Time, stopped bool) {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	r := &c.reach
	if !r.since.IsZero() {
		end = r.since.Add(c.budget)
	}
	if r.stoppedBy == "" && !end.IsZero() && !time.Now().Before(end) {
		c.stopLocked(fmt.Sprintf("the retry budget (%s)", c.budget))
	}
	return r.stop, end, r.stoppedBy != ""
}

// takeProbe makes the caller the one request that checks whether the
// service is back, if none does, the retries have stopped, and no attempt
// waited out a request timeout within the longest backoff: requests that
// follow one another (a chain of dependent resources, plans that wait on
// one check), or that come as the attempts begun before the stop end,
// would otherwise each wait out one more request timeout.
func (c *Client) takeProbe() bool {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	if c.reach.probing || c.reach.stoppedBy == "" || time.Since(c.reach.silent) < c.maxBackoff {
		return false
	}
	c.reach.probing = true
	return true
}

func (c *Client) endProbe() {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	c.reach.probing = false
}

// refusal is the streak's cause, for a request that fails without being
// sent; nil once the streak has ended.
func (c *Client) refusal() *ConnectError {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	if c.reach.stoppedBy == "" || c.reach.cause == nil {
		return nil
	}
	ce := *c.reach.cause
	ce.StoppedBy = c.reach.stoppedBy
	return &ce
}

// reached: an answer, whatever its status, ends a streak of failures to
// reach; a connection alone does not, since a service may take requests
// and never answer.
func (c *Client) reached() {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	c.reach.since, c.reach.cause = time.Time{}, nil
	if c.reach.stoppedBy != "" {
		c.reach.stoppedBy = ""
		c.reach.stop = make(chan struct{})
	}
}

func gaveUp(err *Error, attempts int, start time.Time, limit string) *Error {
	err.Attempts, err.Tried, err.Limit = attempts, time.Since(start), limit
	return err
}

// acquire takes a slot once no pause holds and the pacing lets r go (see
// pace); the caller gives it back. Once the retries of reaching the service
// have stopped, one request at a time goes on, as a probe, when a slot is
// free (attempts in flight already tell whether the service is back), and
// the others get the cause, unsent. seq numbers the request for the pacing.
func (c *Client) acquire(ctx context.Context, r *request) (probe bool, seq uint64, refused *ConnectError, err error) {
	for {
		for {
			d := time.Until(time.Unix(0, c.pausedUntil.Load()))
			if d <= 0 {
				break
			}
			if err := Sleep(ctx, d); err != nil {
				return false, 0, nil, err
			}
		}
		// After the pause, so that the later of the two holds.
		if err := c.pace(ctx, r); err != nil {
			return false, 0, nil, err
		}
		stop, end, stopped := c.reachStopped()
		if stopped {
			if c.takeProbe() {
				select {
				case c.slots <- struct{}{}:
					seq, _ := c.pacer.take(time.Now(), true)
					return true, seq, nil, nil
				default:
					c.endProbe()
				}
			}
			if ce := c.refusal(); ce != nil {
				return false, 0, ce, nil
			}
			continue
		}
		took, err := c.waitForSlot(ctx, stop, end)
		if err != nil {
			return false, 0, nil, err
		}
		if !took {
			continue
		}
		switch {
		case ctx.Err() != nil:
			// Both were ready, and select took the slot.
			<-c.slots
			return false, 0, nil, ctx.Err()
		case time.Now().UnixNano() < c.pausedUntil.Load():
			// A pause began while this request waited: it holds this one too.
			<-c.slots
			continue
		}
		if _, _, stopped := c.reachStopped(); stopped {
			<-c.slots
			continue
		}
		seq, ok := c.pacer.take(time.Now(), false)
		if !ok {
			// The service's count ran out while this request waited.
			<-c.slots
			continue
		}
		return false, seq, nil, nil
	}
}

// waitForSlot takes a slot, or tells that the retries of reaching the
// service stopped meanwhile: the end of the streak's budget stops them even
// while every slot is held.
func (c *Client) waitForSlot(ctx context.Context, stop <-chan struct{}, end time.Time) (bool, error) {
	var expire <-chan time.Time
	if !end.IsZero() {
		t := time.NewTimer(time.Until(end))
		defer t.Stop()
		expire = t.C
	}
	select {
	case c.slots <- struct{}{}:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	case <-stop:
	case <-expire:
	}
	return false, nil
}

// pause: a Retry-After on a 429 or 503 pauses the client, not one request.
func (c *Client) pause(ctx context.Context, status int, d time.Duration) {
	until := time.Now().Add(d).UnixNano()
	for {
		cur := c.pausedUntil.Load()
		if cur >= until {
			return
		}
		if c.pausedUntil.CompareAndSwap(cur, until) {
			break
		}
	}
	if c.log != nil {
		c.log(ctx, "API requests paused", map[string]any{"status": status, "pause_ms": d.Milliseconds()})
	}
}

// retryableStatus: 429 and 503 come before any work is done; after a 500,
// 502 or 504 a POST may have taken effect, so only idempotent requests go again.
func (c *Client) retryableStatus(r *request, status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return r.idempotent()
	}
	return false
}

// RetryBudget is how long a request is retried when its operation sets no
// time limit.
func (c *Client) RetryBudget() time.Duration { return c.budget }

// MaxRetries caps the retries of a request; NoRetryLimit leaves them to the
// time limit.
func (c *Client) MaxRetries() int { return c.maxRetries }

// Backoff is the wait before the retry after attempt (from 0) when the
// service names none.
func (c *Client) Backoff(attempt int) time.Duration { return c.backoff(attempt, -1) }

func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter >= 0 {
		return min(retryAfter, c.maxRetryAfter)
	}
	d := c.minBackoff << min(attempt, 20)
	if d <= 0 || d > c.maxBackoff {
		d = c.maxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter is negative when the header is absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get(headerRetryAfter))
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return -1
		}
		return time.Duration(min(s, 1<<20)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// Sleep waits for d, or returns ctx's error if ctx ends first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
