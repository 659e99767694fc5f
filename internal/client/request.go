package client

// The request path: do sends a request again until it succeeds, fails for
// good or runs out of its time limit (the budget); attempt sends it once.

import (
	"bytes"
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
	var dialed, handshakes atomic.Int32
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { connected.Store(true) },
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				dialed.Add(1)
			}
		},
		TLSHandshakeStart: func() { handshakes.Add(1) },
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
		if ce := c.proxySilent(actx, u, dialed.Load(), handshakes.Load(), connected.Load()); ce != nil {
			err = ce
		}
		return c.noAnswer(ctx, actx, r, n, u, start, err, &connected)
	}
	defer drainClose(resp.Body)
	status, header = resp.StatusCode, resp.Header
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		c.reached()
		return c.redirected(ctx, r, n, u, start, resp)
	}
	if resp.StatusCode != r.want {
		return c.unwanted(ctx, actx, r, n, u, start, resp)
	}
	return c.readAnswer(ctx, actx, r, n, u, start, resp)
}

// stalled is the outcome of an answer whose body did not arrive whole within
// the request timeout: no answer, like silence before the headers, so that
// a service that stalls its bodies spends the one budget of a service out
// of reach (README.md, "Rate limits and retries").
func (c *Client) stalled(ctx context.Context, r *request, n int, u *url.URL, start time.Time, status int) (time.Duration, bool, *Error) {
	ce := &ConnectError{Failure: NoAnswer, Host: hostPort(u), Timeout: c.timeout, Stalled: status, Err: context.DeadlineExceeded}
	c.failedToReach(start, ce)
	c.logAttempt(ctx, r, n, status, time.Since(start), ce)
	// A POST whose answer stalled may have been carried out: a lost answer.
	return -1, r.idempotent(), c.failure(r, 0, "", ce, true)
}

// bodyStalled tells that the attempt's own timeout, not ctx, cut its body off.
func bodyStalled(ctx, actx context.Context) bool {
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return false
	}
	return ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded)
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

// proxySilent is the failure of an attempt that timed out waiting for the
// proxy's answer to CONNECT: connected to the proxy (and through its own
// TLS, for an https proxy), never to the service. nil otherwise.
func (c *Client) proxySilent(actx context.Context, u *url.URL, dialed, handshakes int32, connected bool) *ConnectError {
	if connected || dialed == 0 || !errors.Is(actx.Err(), context.DeadlineExceeded) {
		return nil
	}
	// A proxy setting in error was refused by New.
	p, _ := c.proxyFor(u)
	if p == nil {
		return nil
	}
	own := int32(0)
	if p.Scheme == "https" {
		own = 1
	}
	if handshakes > own {
		return nil
	}
	return &ConnectError{Failure: ProxyNotAnswering, Proxy: p.Host, Host: hostPort(u), Timeout: c.timeout, Err: context.DeadlineExceeded}
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
func (c *Client) unwanted(ctx, actx context.Context, r *request, n int, u *url.URL, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	msg, raw := readMessage(resp.Body, resp.Header.Get(headerContentType))
	if bodyStalled(ctx, actx) {
		return c.stalled(ctx, r, n, u, start, resp.StatusCode)
	}
	c.reached()
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

// redirected is the outcome of a 3xx: an error, never retried, never
// followed, since following could carry the key and the body elsewhere.
func (c *Client) redirected(ctx context.Context, r *request, n int, u *url.URL, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	re := &RedirectError{Status: resp.StatusCode, Location: "(none)"}
	if loc := resp.Header.Get(headerLocation); loc != "" {
		re.Location = c.redact(location(u, loc), r.secrets)
	}
	c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), re)
	return -1, false, c.failure(r, resp.StatusCode, "", re, true)
}

// location is loc resolved against u, without credentials, query or
// fragment, which may hold secrets.
func location(u *url.URL, loc string) string {
	l, err := u.Parse(loc)
	if err != nil {
		return strconv.Quote(cut(loc))
	}
	l.User, l.RawQuery, l.Fragment, l.RawFragment, l.ForceQuery = nil, "", "", "", false
	return cut(l.String())
}

// readAnswer reads the answer r wants. A body cut short fails the attempt.
func (c *Client) readAnswer(ctx, actx context.Context, r *request, n int, u *url.URL, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	fail := func(err error) *Error { return c.failure(r, resp.StatusCode, "", err, true) }
	rb := &bodyReader{r: resp.Body}
	var err error
	if ct := resp.Header.Get(headerContentType); r.read != nil && notJSON(ct) {
		msg, _ := readMessage(rb, ct)
		media, _, _ := strings.Cut(ct, ";")
		err = fmt.Errorf("the answer is not the JSON expected: it is %s: %q", strings.TrimSpace(media), cut(msg))
	} else if r.read != nil {
		err = r.read(rb)
	}
	if err != nil && bodyStalled(ctx, actx) {
		return c.stalled(ctx, r, n, u, start, resp.StatusCode)
	}
	c.reached()
	c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), err)
	switch {
	case err == nil:
		return -1, false, nil
	case ctx.Err() != nil:
		return -1, false, fail(ctxErr(ctx))
	case rb.err != nil || errors.Is(err, io.ErrUnexpectedEOF):
		// A body cut short is a failed attempt, as a 502 is: retried when
		// idempotent, a lost answer otherwise.
		cause := io.ErrUnexpectedEOF
		if rb.err != nil {
			cause = errnoOf(transportError(rb.err, c.timeout))
		}
		return -1, r.idempotent(), fail(fmt.Errorf("the answer was cut short (%w)", cause))
	default:
		if msg := c.redact(err.Error(), r.secrets); msg != err.Error() {
			err = errors.New(msg)
		}
		return -1, false, fail(err)
	}
}

// notJSON tells a content type that cannot be JSON, such as a gateway's
// HTML page; none, or text/plain, may still be.
func notJSON(contentType string) bool {
	ct := strings.ToLower(contentType)
	return strings.Contains(ct, "html") || strings.Contains(ct, "xml")
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
	b, err := io.ReadAll(io.LimitReader(body, maxBodyBytes+1))
	switch {
	case err != nil:
		return err
	case len(b) > maxBodyBytes:
		return fmt.Errorf("the answer is larger than %d MiB", maxBodyBytes>>20)
	case len(bytes.TrimSpace(b)) == 0:
		return errors.New("the service answered with an empty body where JSON was expected")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(out); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		return fmt.Errorf("the answer is not the JSON expected (%w): %q", err, brief(string(b), ""))
	}
	if rest := bytes.TrimSpace(b[dec.InputOffset():]); len(rest) > 0 {
		return fmt.Errorf("the answer is not the JSON expected: %d bytes follow its JSON: %q", len(rest), brief(string(rest), ""))
	}
	// Go's decoder keeps the last of a key given twice, such as a second _id.
	if k, ok := duplicateKey(b); ok {
		return fmt.Errorf("the answer is not the JSON expected: an object holds the key %q twice", k)
	}
	return nil
}

// duplicateKey is the first key that an object of b holds twice.
func duplicateKey(b []byte) (string, bool) {
	type level struct {
		keys    map[string]bool // nil in an array
		wantKey bool
	}
	var stack []*level
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.wantKey {
			if top.keys[k] {
				return k, true
			}
			top.keys[k], top.wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: an object's next token is a key.
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].wantKey = true
		}
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

// maxRetryAfterSeconds bounds a Retry-After before the cap, so that a
// Duration cannot overflow.
const maxRetryAfterSeconds = 1 << 20

// retryAfter is negative when the header is absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get(headerRetryAfter))
	if v == "" {
		return -1
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) && v[0] != '-' {
		// Too many digits for an int64 is far away all the same: capped.
		s, err = maxRetryAfterSeconds, nil
	}
	if err == nil {
		if s < 0 {
			return -1
		}
		return time.Duration(min(s, maxRetryAfterSeconds)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}
