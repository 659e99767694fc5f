package request

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Do retries r as README.md, "Rate limits and retries", says.
func (c *Client) Do(ctx context.Context, r Call) error {
	var payload []byte
	if r.Body != nil {
		var err error
		if payload, err = json.Marshal(r.Body); err != nil {
			return c.failure(&r, 0, "", err, false)
		}
	}
	if ctx.Err() != nil {
		return c.failure(&r, 0, "", ctxErr(ctx), false)
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
			// Held past the limit: not begun, and the last answer tells why.
			last = gaveUp(last, attempt, start, budget)
			last.Wait = held.Wait
			return last
		case !retryable && attempt > 0 && !err.Sent && unreachedError(err) != nil:
			// The retries of reaching the service stopped while it waited.
			return gaveUp(err, attempt, start, "")
		case !retryable:
			return err
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return gaveUp(err, attempt+1, start, budget)
		case ctx.Err() != nil:
			return err
		}
		wait, final := c.retryWait(&r, err, attempt, retryAfter, start, !ok)
		if final != nil {
			return final
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

// retryWait is the wait before the next retry, or the error to give up
// with; shared: the limit is the retry budget, not the operation's.
func (c *Client) retryWait(r *Call, err *Error, attempt int, retryAfter time.Duration, start time.Time, shared bool) (time.Duration, *Error) {
	limit, budget := r.end, r.budget
	unreached := unreachedError(err)
	if unreached != nil {
		if by := c.reach.stoppedReaching(); by != "" {
			unreached.StoppedBy = by
			return 0, gaveUp(err, attempt+1, start, "")
		}
		// Not reaching the service is the Client's to retry: its budget runs
		// from the streak's first failure.
		if e := c.reach.streakEnd(); !e.IsZero() && e.Before(limit) {
			limit, shared = e, true
		}
	}
	wait := c.backoff(attempt, retryAfter)
	switch {
	case attempt == c.maxRetries:
		err.Capped = true
		if unreached != nil {
			c.reach.stopReaching(unreached, fmt.Sprintf("max_retries (%d)", c.maxRetries))
		}
		return 0, gaveUp(err, attempt+1, start, "")
	case !time.Now().Add(wait).Before(limit):
		if shared {
			budget = fmt.Sprintf("the retry budget (%s)", c.budget)
			if unreached != nil {
				c.reach.stopReaching(unreached, budget)
			}
		}
		err = gaveUp(err, attempt+1, start, budget)
		err.Wait = wait
		return 0, err
	}
	return wait, nil
}

func gaveUp(err *Error, attempts int, start time.Time, limit string) *Error {
	err.Attempts, err.Tried, err.Limit = attempts, time.Since(start), limit
	return err
}

func unreachedError(err *Error) *ConnectError {
	var ce *ConnectError
	if errors.As(err.Err, &ce) && !ce.Permanent() {
		return ce
	}
	return nil
}

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
