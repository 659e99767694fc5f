package request

// One attempt of a request: its turn, what is sent, and what its answer, or
// the lack of one, means.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
)

const (
	headerAuthorization = "Authorization"
	headerAccept        = "Accept"
	headerUserAgent     = "User-Agent"
	headerContentType   = "Content-Type"
	headerLocation      = "Location"
	mediaJSON           = "application/json"
)

// attempt sends r once. It returns the answer's Retry-After (negative when
// absent) and whether another attempt is allowed.
func (c *Client) attempt(ctx context.Context, r *Call, payload []byte, n int) (time.Duration, bool, *Error) {
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
	defer func() { c.pacer.Observe(seq, sent, time.Now(), status, header) }()
	if probe {
		defer c.reach.endProbe()
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
	u := c.base.ResolveReference(&url.URL{Path: r.Path, RawQuery: r.Query.Encode()})
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
		c.reach.reached()
		return c.redirected(ctx, r, n, u, start, resp)
	}
	if resp.StatusCode != r.Want {
		return c.unwanted(ctx, actx, r, n, u, start, resp)
	}
	return c.readAnswer(ctx, actx, r, n, u, start, resp)
}

// admit waits for r's turn (see acquire), unless r fails unsent: the key
// was refused, the rate limit would hold r past its time limit, or the
// retries of reaching the service have stopped.
func (c *Client) admit(ctx context.Context, r *Call) (probe bool, seq uint64, e *Error) {
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
func (c *Client) newRequest(ctx context.Context, r *Call, u *url.URL, payload []byte) (*http.Request, error) {
	var body io.Reader
	if payload != nil {
		body = strings.NewReader(string(payload))
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
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

// attemptContext lets a create or a trigger already sent finish when
// Terraform is interrupted: cut off, the service could still carry it out
// and its answer be lost. Deadlines still end it.
func (c *Client) attemptContext(ctx context.Context, r *Call) (context.Context, context.CancelFunc) {
	if r.idempotent() {
		return context.WithTimeout(ctx, c.timeout)
	}
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return context.WithDeadline(context.WithoutCancel(ctx), deadline)
}

// keyRefusal is the error of a request not sent because the service
// refused the API key before: sending it again would only be refused.
func (c *Client) keyRefusal(r *Call) *Error {
	msg := c.keyRefused.Load()
	if msg == nil {
		return nil
	}
	e := c.failure(r, http.StatusUnauthorized, *msg, nil, false)
	e.Sent, e.KeyRefused = false, true
	return e
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
func (c *Client) noAnswer(ctx, actx context.Context, r *Call, n int, u *url.URL, start time.Time, err error, connected *atomic.Bool) (time.Duration, bool, *Error) {
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
			c.reach.failedToReach(start, ce)
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
func (c *Client) unwanted(ctx, actx context.Context, r *Call, n int, u *url.URL, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	msg, raw := readMessage(resp.Body, resp.Header.Get(headerContentType))
	if bodyStalled(ctx, actx) {
		return c.stalled(ctx, r, n, u, start, resp.StatusCode)
	}
	c.reach.reached()
	if u.Scheme == "http" && speaksTLS(resp.StatusCode, raw) {
		ce := &ConnectError{Failure: ServiceSpeaksTLS, Host: hostPort(u), Err: fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimRight(cut(raw), "."))}
		c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), ce)
		return -1, false, c.failure(r, 0, "", ce, false)
	}
	msg = cut(c.redact(msg, r.Secrets))
	if resp.StatusCode == http.StatusUnauthorized {
		c.keyRefused.CompareAndSwap(nil, &msg)
	}
	c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), nil)
	ra := pacing.RetryAfter(resp.Header, time.Now())
	if ra >= 0 && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		c.pause(ctx, resp.StatusCode, min(ra, c.maxRetryAfter))
	}
	return ra, c.retryableStatus(r, resp.StatusCode), c.failure(r, resp.StatusCode, msg, nil, true)
}

// retryableStatus: 429 and 503 come before any work is done; after a 500,
// 502 or 504 a POST may have taken effect, so only idempotent requests go again.
func (c *Client) retryableStatus(r *Call, status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return r.idempotent()
	}
	return false
}

// redirected is the outcome of a 3xx: an error, never retried, never
// followed, since following could carry the key and the body elsewhere.
func (c *Client) redirected(ctx context.Context, r *Call, n int, u *url.URL, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	re := &RedirectError{Status: resp.StatusCode, Location: "(none)"}
	if loc := resp.Header.Get(headerLocation); loc != "" {
		re.Location = c.redact(location(u, loc), r.Secrets)
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
func (c *Client) readAnswer(ctx, actx context.Context, r *Call, n int, u *url.URL, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	fail := func(err error) *Error { return c.failure(r, resp.StatusCode, "", err, true) }
	rb := &bodyReader{r: resp.Body}
	var err error
	if ct := resp.Header.Get(headerContentType); r.Read != nil && notJSON(ct) {
		msg, _ := readMessage(rb, ct)
		media, _, _ := strings.Cut(ct, ";")
		err = fmt.Errorf("the answer is not the JSON expected: it is %s: %q", strings.TrimSpace(media), cut(msg))
	} else if r.Read != nil {
		err = r.Read(rb)
	}
	if err != nil && bodyStalled(ctx, actx) {
		return c.stalled(ctx, r, n, u, start, resp.StatusCode)
	}
	c.reach.reached()
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
		if msg := c.redact(err.Error(), r.Secrets); msg != err.Error() {
			err = errors.New(msg)
		}
		return -1, false, fail(err)
	}
}

// stalled is the outcome of an answer whose body did not arrive whole within
// the request timeout: no answer, like silence before the headers, so that
// a service that stalls its bodies spends the one budget of a service out
// of reach (README.md, "Rate limits and retries").
func (c *Client) stalled(ctx context.Context, r *Call, n int, u *url.URL, start time.Time, status int) (time.Duration, bool, *Error) {
	ce := &ConnectError{Failure: NoAnswer, Host: hostPort(u), Timeout: c.timeout, Stalled: status, Err: context.DeadlineExceeded}
	c.reach.failedToReach(start, ce)
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

// failure is the one constructor of an Error.
func (c *Client) failure(r *Call, status int, msg string, err error, connected bool) *Error {
	return &Error{
		Operation: r.Op, Method: r.Method, Path: c.fullPath(r.Path), Host: c.base.Host, KeyFrom: c.keyFrom, StatusCode: status, Message: msg, Err: err,
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

func (c *Client) logAttempt(ctx context.Context, r *Call, n, status int, d time.Duration, err error) {
	if c.log == nil {
		return
	}
	fields := map[string]any{
		"operation":   r.Op,
		"method":      r.Method,
		"path":        c.fullPath(r.Path),
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

// Unreadable is the error of a success whose answer does not make sense,
// such as a list whose pages do not add up.
func (c *Client) Unreadable(r Call, err error) *Error {
	return c.failure(&r, http.StatusOK, "", err, true)
}
