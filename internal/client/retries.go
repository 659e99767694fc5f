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
	"time"
)

// limitKey holds the name of a context's deadline.
type limitKey struct{}

// WithLimit is ctx ended after d, a limit of the operation that a setting
// names (such as "timeouts.create"): a request that it cuts off, in flight
// or waiting to be retried, says which limit ended it, and it is the
// request's retry budget.
func WithLimit(ctx context.Context, setting string, d time.Duration) (context.Context, context.CancelFunc) {
	ctx = context.WithValue(ctx, limitKey{}, fmt.Sprintf("%s (%s)", setting, d))
	return context.WithTimeout(ctx, d)
}

// limitOf is the name of ctx's limit; empty when WithLimit did not set it.
func limitOf(ctx context.Context) string {
	name, _ := ctx.Value(limitKey{}).(string)
	return name
}

// do sends r, retrying as the rules allow, and reads the answer with r.read.
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
	for attempt := 0; ; attempt++ {
		retryAfter, retryable, err := c.attempt(ctx, &r, payload, attempt)
		if err == nil {
			return nil
		}
		switch {
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
			if by := c.stoppedBy.Load(); by != nil {
				unreached.StoppedBy = *by
				return gaveUp(err, attempt+1, start, "")
			}
			// Not reaching the service is the Client's to retry, not each
			// request's: its budget runs from the streak's first failure.
			if since := c.unreachedSince.Load(); since != 0 {
				if e := time.Unix(0, since).Add(c.budget); e.Before(limit) {
					limit, shared = e, true
				}
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
			return gaveUp(err, attempt+1, start, budget)
		}
		if Sleep(ctx, wait) != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return gaveUp(err, attempt+1, start, budget)
			}
			return err
		}
	}
}

// unreachedError is err's failure to reach the service that another
// attempt may overcome; nil when it is none.
func unreachedError(err *Error) *ConnectError {
	var ce *ConnectError
	if errors.As(err.Err, &ce) && !ce.Permanent() {
		return ce
	}
	return nil
}

// failedToReach records a failure to reach the service at t: the start of
// a streak, unless one is under way.
func (c *Client) failedToReach(t time.Time) {
	c.unreachedSince.CompareAndSwap(0, t.UnixNano())
}

// stopReaching ends the retries of reaching the service, by limit, unless
// something else ended them already; ce says what did.
func (c *Client) stopReaching(ce *ConnectError, limit string) {
	c.stoppedBy.CompareAndSwap(nil, &limit)
	if by := c.stoppedBy.Load(); by != nil {
		ce.StoppedBy = *by
	}
}

// reached records that the service answered, or that a connection to it
// was made: whatever kept it out of reach is over.
func (c *Client) reached() {
	if c.unreachedSince.Load() != 0 {
		c.unreachedSince.Store(0)
	}
	if c.stoppedBy.Load() != nil {
		c.stoppedBy.Store(nil)
	}
}

// gaveUp is err, the last failure of a request retried as long as it was
// allowed, with how many attempts were made since start, and the limit
// that ended them.
func gaveUp(err *Error, attempts int, start time.Time, limit string) *Error {
	err.Attempts, err.Tried, err.Limit = attempts, time.Since(start), limit
	return err
}

// acquire waits until no pause holds and fewer than the bound of requests
// are in flight, and takes a slot; the caller gives it back once the
// answer is read. It fails only when ctx ends first.
func (c *Client) acquire(ctx context.Context) error {
	for {
		for {
			d := time.Until(time.Unix(0, c.pausedUntil.Load()))
			if d <= 0 {
				break
			}
			if err := Sleep(ctx, d); err != nil {
				return err
			}
		}
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		switch {
		case ctx.Err() != nil:
			// Both were ready, and select took the slot.
			<-c.slots
			return ctx.Err()
		case time.Now().UnixNano() >= c.pausedUntil.Load():
			return nil
		}
		// A pause began while this request waited for its slot: it holds
		// this one too.
		<-c.slots
	}
}

// pause holds back every request of the client for d, the Retry-After of
// a 429 or a 503: the service asked for a pause, not this request alone.
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

// retryableStatus: every request is retried on 429 and 503, which the
// service answers before doing anything; idempotent ones also on 500, 502
// and 504, after which a POST may or may not have taken effect.
func (c *Client) retryableStatus(r *request, status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return r.idempotent()
	}
	return false
}

// backoff is the wait before retry number attempt+1: the answer's
// Retry-After when it gave one (capped), else exponential with jitter.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter >= 0 {
		return min(retryAfter, c.maxRetryAfter)
	}
	d := c.minBackoff << min(attempt, 20)
	if d <= 0 || d > c.maxBackoff {
		d = c.maxBackoff
	}
	// Equal jitter: half fixed, half random.
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads a Retry-After header in seconds or HTTP-date form; it is
// negative when absent or unreadable.
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

// Sleep waits for d, or until ctx ends if that comes first: then it
// returns ctx's error.
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
