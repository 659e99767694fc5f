package client

// The request path: do sends a request again until it succeeds, fails for
// good or runs out of its time limit (the budget); attempt sends it once.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
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

// retryWait is the wait before the retry that follows err, the failure of
// attempt, or the error to give up with: at max_retries, or when the wait
// would end past r's time limit. shared tells that the limit is the retry
// budget rather than the operation's own.
func (c *Client) retryWait(r *request, err *Error, attempt int, retryAfter time.Duration, start time.Time, shared bool) (time.Duration, *Error) {
	limit, budget := r.end, r.budget
	unreached := unreachedError(err)
	if unreached != nil {
		if by := c.stoppedReaching(); by != "" {
			unreached.StoppedBy = by
			return 0, gaveUp(err, attempt+1, start, "")
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
		return 0, gaveUp(err, attempt+1, start, "")
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

// attempt sends r once. It returns the answer's Retry-After (negative when
// absent) and whether another attempt is allowed.
func (c *Client) attempt(ctx context.Context, r *request, payload []byte, n int) (time.Duration, bool, *Error) {
	probe, seq, e := c.admit(ctx, r)
	if e != nil {
		return -1, false, e
	}
	defer func() { <-c.slots }()
	// What the pacing learns of this attempt: its answer's status and
	// headers, none when it got none or was not sent.
	var (
		sent   time.Time
		status int
		header http.Header
	)
	defer func() { c.pacer.observe(seq, sent, time.Now(), status, header) }()
	if probe {
		defer c.endProbe()
	}
	// The key may have been refused while this request waited for a slot.
	if e := c.keyRefusal(r); e != nil {
		return -1, false, e
	}
	if sending, ok := ctx.Value(sendKey{}).(func()); ok {
		sending()
	}
	actx, cancel := c.attemptContext(ctx, r)
	defer cancel()

	var connected atomic.Bool
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { connected.Store(true) },
	})
	u := c.base.ResolveReference(&url.URL{Path: r.path, RawQuery: r.query.Encode()})
	req, err := c.newRequest(actx, r, u, payload)
	if err != nil {
		return -1, false, c.failure(r, 0, "", err, connected.Load())
	}

	start := time.Now()
	sent = start
	resp, err := c.http.Do(req) //nolint:bodyclose // drainClose below reads what is left and closes it.
	if err != nil {
		return c.noAnswer(ctx, actx, r, n, u, start, err, &connected)
	}
	defer drainClose(resp.Body)
	c.reached()
	status, header = resp.StatusCode, resp.Header
	if resp.StatusCode != r.want {
		return c.unwanted(ctx, r, n, u, start, resp)
	}
	return c.readAnswer(ctx, actx, r, n, start, resp)
}

// admit waits for r's turn (see acquire), unless r fails unsent: the key
// was refused, the rate limit would hold r past its time limit, or the
// retries of reaching the service have stopped.
func (c *Client) admit(ctx context.Context, r *request) (probe bool, seq uint64, e *Error) {
	if e := c.keyRefusal(r); e != nil {
		return false, 0, e
	}
	probe, seq, refused, err := c.acquire(ctx, r)
	var rle *RateLimitError
	switch {
	case errors.As(err, &rle):
		return false, 0, c.failure(r, 0, "", rle, false)
	case err != nil:
		return false, 0, c.failure(r, 0, "", ctxErr(ctx), false)
	case refused != nil:
		return false, 0, c.failure(r, 0, "", refused, false)
	}
	return probe, seq, nil
}

// newRequest is r as an HTTP request to u, with the headers every request
// carries.
func (c *Client) newRequest(ctx context.Context, r *request, u *url.URL, payload []byte) (*http.Request, error) {
	var body io.Reader
	if payload != nil {
		body = strings.NewReader(string(payload))
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set(headerAuthorization, c.apiKey)
	req.Header.Set(headerAccept, mediaJSON)
	req.Header.Set(headerUserAgent, c.userAgent)
	if payload != nil {
		req.Header.Set(headerContentType, mediaJSON)
	}
	return req, nil
}

// noAnswer is the outcome of an attempt that got no answer: ctx ended, the
// service was out of reach, or the connection failed on the way.
func (c *Client) noAnswer(ctx, actx context.Context, r *request, n int, u *url.URL, start time.Time, err error, connected *atomic.Bool) (time.Duration, bool, *Error) {
	fail := func(err error) *Error { return c.failure(r, 0, "", err, connected.Load()) }
	if ctx.Err() != nil {
		c.logAttempt(ctx, r, n, 0, time.Since(start), err)
		return -1, false, fail(ctxErr(ctx))
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		// attemptContext's deadline fires a moment before ctx's.
		c.logAttempt(ctx, r, n, 0, time.Since(start), err)
		<-ctx.Done()
		return -1, false, fail(ctxErr(ctx))
	}
	ce := connectError(err, u, c.proxyFor)
	switch {
	case ce != nil:
	case !connected.Load() && unreached(err):
		ce = &ConnectError{Failure: Unreachable, Host: hostPort(u), Err: transportError(err, c.timeout)}
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		// A service that takes requests and never answers is out of
		// reach all the same.
		ce = &ConnectError{Failure: NoAnswer, Host: hostPort(u), Timeout: c.timeout, Err: context.DeadlineExceeded}
	}
	if ce != nil {
		if !ce.Permanent() {
			c.failedToReach(start, ce)
		}
		c.logAttempt(ctx, r, n, 0, time.Since(start), ce)
		// A POST that may have reached the service is not sent again.
		return -1, !ce.Permanent() && (r.idempotent() || !connected.Load()), fail(ce)
	}
	// A POST that may have reached the service is not sent again.
	err = transportError(err, c.timeout)
	c.logAttempt(ctx, r, n, 0, time.Since(start), err)
	return -1, r.idempotent() || !connected.Load(), fail(err)
}

// unwanted is the outcome of an answer whose status is not the one r
// wants: the service's message, and whether and when to retry.
func (c *Client) unwanted(ctx context.Context, r *request, n int, u *url.URL, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	msg, raw := readMessage(resp.Body, resp.Header.Get(headerContentType))
	if u.Scheme == "http" && speaksTLS(resp.StatusCode, raw) {
		ce := &ConnectError{Failure: ServiceSpeaksTLS, Host: hostPort(u), Err: fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimRight(cut(raw), "."))}
		c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), ce)
		return -1, false, c.failure(r, 0, "", ce, false)
	}
	msg = cut(c.redact(msg, r.secrets))
	if resp.StatusCode == http.StatusUnauthorized {
		c.keyRefused.CompareAndSwap(nil, &msg)
	}
	c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), nil)
	ra := retryAfter(resp.Header, time.Now())
	if ra >= 0 && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		c.pause(ctx, resp.StatusCode, min(ra, c.maxRetryAfter))
	}
	return ra, c.retryableStatus(r, resp.StatusCode), c.failure(r, resp.StatusCode, msg, nil, true)
}

// readAnswer reads the answer r wants. A body cut short fails the attempt.
func (c *Client) readAnswer(ctx, actx context.Context, r *request, n int, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	fail := func(err error) *Error { return c.failure(r, resp.StatusCode, "", err, true) }
	rb := &bodyReader{r: resp.Body}
	var err error
	if r.read != nil {
		err = r.read(rb)
	}
	c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), err)
	switch {
	case err == nil:
		return -1, false, nil
	case ctx.Err() != nil:
		return -1, false, fail(ctxErr(ctx))
	case actx.Err() != nil:
		return -1, r.idempotent(), fail(fmt.Errorf("the answer did not arrive within the request timeout (%v)", c.timeout))
	case rb.err != nil || errors.Is(err, io.ErrUnexpectedEOF):
		// A body cut short is a failed attempt, as a 502 is: retried when
		// idempotent, a lost answer otherwise.
		cause := io.ErrUnexpectedEOF
		if rb.err != nil {
			cause = errnoOf(transportError(rb.err, c.timeout))
		}
		return -1, r.idempotent(), fail(fmt.Errorf("the answer was cut short (%w)", cause))
	default:
		return -1, false, fail(err)
	}
}

// attemptContext lets a create or a trigger already sent finish when
// Terraform is interrupted: cut off, the service could still carry it out
// and its answer be lost. Deadlines still end it.
func (c *Client) attemptContext(ctx context.Context, r *request) (context.Context, context.CancelFunc) {
	if r.idempotent() {
		return context.WithTimeout(ctx, c.timeout)
	}
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return context.WithDeadline(context.WithoutCancel(ctx), deadline)
}

type sendKey struct{}

// OnSend is ctx with f called as each attempt of a request made with it is
// about to be sent, once its turn has come: what waits for the list to begin
// may still join it until then.
func OnSend(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, sendKey{}, f)
}

// keyRefusal is the error of a request not sent because the service
// refused the API key before: sending it again would only be refused.
func (c *Client) keyRefusal(r *request) *Error {
	msg := c.keyRefused.Load()
	if msg == nil {
		return nil
	}
	e := c.failure(r, http.StatusUnauthorized, *msg, nil, false)
	e.Sent, e.KeyRefused = false, true
	return e
}

// failure is the one constructor of an Error.
func (c *Client) failure(r *request, status int, msg string, err error, connected bool) *Error {
	return &Error{
		Operation: r.op, Method: r.method, Path: c.fullPath(r.path), Host: c.base.Host, KeyFrom: c.keyFrom, StatusCode: status, Message: msg, Err: err,
		Sent: status != 0 || connected,
	}
}

func (c *Client) redact(msg string, secrets []string) string {
	for _, s := range append([]string{c.apiKey}, secrets...) {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}

// ctxErr is ctx's error, a LimitError when a limit of WithLimit ended it.
func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if name := limitOf(ctx); errors.Is(err, context.DeadlineExceeded) && name != "" {
		return &LimitError{Limit: name}
	}
	return err
}

func (c *Client) logAttempt(ctx context.Context, r *request, n, status int, d time.Duration, err error) {
	if c.log == nil {
		return
	}
	fields := map[string]any{
		"operation":   r.op,
		"method":      r.method,
		"path":        c.fullPath(r.path),
		"status":      status,
		"attempt":     n + 1,
		"duration_ms": d.Milliseconds(),
	}
	if err != nil {
		var ce *ConnectError
		if errors.As(err, &ce) {
			fields["failure"] = string(ce.Failure)
		} else {
			err = transportError(err, c.timeout)
		}
		fields["error"] = errnoOf(err).Error()
	}
	c.log(ctx, "API request", fields)
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "443"
	if u.Scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// maxBodyBytes bounds an answer that is read.
const maxBodyBytes = 16 << 20

func decode(body io.Reader, out any) error {
	lr := &io.LimitedReader{R: body, N: maxBodyBytes + 1}
	err := json.NewDecoder(lr).Decode(out)
	switch {
	case err == nil:
		return nil
	case lr.N <= 0:
		return fmt.Errorf("the answer is larger than %d MiB", maxBodyBytes>>20)
	case errors.Is(err, io.EOF):
		return errors.New("the service answered with an empty body where JSON was expected")
	default:
		return fmt.Errorf("the answer is not the JSON expected: %w", err)
	}
}

func into(out any) func(io.Reader) error {
	return func(body io.Reader) error { return decode(body, out) }
}

// bodyReader keeps the error of a body that ended before its end, such as
// a connection closed before Content-Length was met.
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && b.err == nil {
		b.err = err
	}
	return n, err
}

// drainClose reads a little of what is left so the connection is reused.
func drainClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	_ = body.Close()
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
