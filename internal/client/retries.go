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

func unreachedError(err *Error) *ConnectError {
	var ce *ConnectError
	if errors.As(err.Err, &ce) && !ce.Permanent() {
		return ce
	}
	return nil
}

func (c *Client) failedToReach(t time.Time) {
	c.unreachedSince.CompareAndSwap(0, t.UnixNano())
}

func (c *Client) stopReaching(ce *ConnectError, limit string) {
	c.stoppedBy.CompareAndSwap(nil, &limit)
	if by := c.stoppedBy.Load(); by != nil {
		ce.StoppedBy = *by
	}
}

// reached: any answer or connection ends a streak of failures to reach.
func (c *Client) reached() {
	if c.unreachedSince.Load() != 0 {
		c.unreachedSince.Store(0)
	}
	if c.stoppedBy.Load() != nil {
		c.stoppedBy.Store(nil)
	}
}

func gaveUp(err *Error, attempts int, start time.Time, limit string) *Error {
	err.Attempts, err.Tried, err.Limit = attempts, time.Since(start), limit
	return err
}

// acquire takes a slot once no pause holds; the caller gives it back.
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
		// A pause began while this request waited: it holds this one too.
		<-c.slots
	}
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
