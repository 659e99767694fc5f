package request

// A request's turn: it waits out a pause and the pacing, then takes one of
// the Client's slots, unless the retries of reaching the service have
// stopped, which only a probe may find ended.

import (
	"context"
	"net/http"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
)

// acquire waits out a pause and the pacing, then takes a slot. Once the
// retries of reaching the service stopped, a probe alone goes on; the others
// get the cause, unsent.
func (c *Client) acquire(ctx context.Context, r *Call) (probe bool, seq uint64, refused *ConnectError, err error) {
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
		stop, end, stopped := c.reach.reachStopped()
		if stopped {
			if c.reach.takeProbe() {
				select {
				case c.slots <- struct{}{}:
					seq, _ := c.pacer.Take(time.Now(), true)
					return true, seq, nil, nil
				default:
					c.reach.endProbe()
				}
			}
			if ce := c.reach.refusal(); ce != nil {
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
			<-c.slots
			return false, 0, nil, ctx.Err()
		case time.Now().UnixNano() < c.pausedUntil.Load():
			<-c.slots
			continue
		}
		if _, _, stopped := c.reach.reachStopped(); stopped {
			<-c.slots
			continue
		}
		seq, ok := c.pacer.Take(time.Now(), false)
		if !ok {
			<-c.slots
			continue
		}
		return false, seq, nil, nil
	}
}

// waitForSlot: the end of the streak's budget stops it even while every slot is held.
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

// pace waits before a slot is taken, so that requests held hold no slots.
func (c *Client) pace(ctx context.Context, r *Call) error {
	for {
		wait, by, reserved, fits := c.pacer.Reserve(time.Now(), r.end, r.Method != http.MethodGet)
		switch {
		case wait <= 0:
			return nil
		case !fits:
			return &RateLimitError{By: by, Wait: wait, Limit: r.budget, Left: time.Until(r.end)}
		}
		if c.log != nil && wait >= pacing.PollHeld {
			c.log(ctx, "API request held by the rate limit", map[string]any{"operation": r.Op, "by": by, "wait_ms": wait.Milliseconds()})
		}
		if err := Sleep(ctx, wait); err != nil {
			return err
		}
		if reserved && (by != pacing.ByBlind || !c.pacer.Knows(time.Now())) {
			return nil
		}
	}
}

// Paced tells whether the rate limit held a request within the last second:
// callers that can make one request serve many may then wait to.
func (c *Client) Paced() bool {
	return c.pacer.Holding(time.Now(), time.Second)
}

// Troubled tells whether the service answered 500, 502, 503 or 504 lately:
// callers that would make many requests may then prefer them apart.
func (c *Client) Troubled() bool {
	return c.pacer.Troubled()
}

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
