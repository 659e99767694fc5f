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

// attempt returns the answer's Retry-After (-1 when absent) and whether to retry.
func (c *Client) attempt(ctx context.Context, r *Call, payload []byte, n int) (time.Duration, bool, *Error) {
	probe, seq, e := c.admit(ctx, r)
	if e != nil {
		return -1, false, e
	}
	defer func() { <-c.slots }()
	var (
		sent   time.Time
		status int
		header http.Header
	)
	defer func() { c.pacer.Observe(seq, sent, time.Now(), status, header) }()
	if probe {
		defer c.reach.endProbe()
	}
	// The key may have been refused while this request waited.
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

// attemptContext lets a POST already sent finish when Terraform is
// interrupted: cut off, its answer would be lost.
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

func (c *Client) keyRefusal(r *Call) *Error {
	msg := c.keyRefused.Load()
	if msg == nil {
		return nil
	}
	e := c.failure(r, http.StatusUnauthorized, *msg, nil, false)
	e.Sent, e.KeyRefused = false, true
	return e
}

// proxySilent: connected to the proxy (and its TLS), never to the service.
func (c *Client) proxySilent(actx context.Context, u *url.URL, dialed, handshakes int32, connected bool) *ConnectError {
	if connected || dialed == 0 || !errors.Is(actx.Err(), context.DeadlineExceeded) {
		return nil
	}
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

func (c *Client) noAnswer(ctx, actx context.Context, r *Call, n int, u *url.URL, start time.Time, err error, connected *atomic.Bool) (time.Duration, bool, *Error) {
	fail := func(err error) *Error { return c.failure(r, 0, "", err, connected.Load()) }
	if ctx.Err() != nil {
		c.logAttempt(ctx, r, n, 0, time.Since(start), err)
		return -1, false, fail(ctxErr(ctx))
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
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
		// A service that takes requests and never answers is out of reach too.
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
	err = transportError(err, c.timeout)
	c.logAttempt(ctx, r, n, 0, time.Since(start), err)
	return -1, r.idempotent() || !connected.Load(), fail(err)
}

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

// retryableStatus: after a 500, 502 or 504 a POST may have taken effect.
func (c *Client) retryableStatus(r *Call, status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return r.idempotent()
	}
	return false
}

// redirected: following could carry the key and the body elsewhere.
func (c *Client) redirected(ctx context.Context, r *Call, n int, u *url.URL, start time.Time, resp *http.Response) (time.Duration, bool, *Error) {
	re := &RedirectError{Status: resp.StatusCode, Location: "(none)"}
	if loc := resp.Header.Get(headerLocation); loc != "" {
		re.Location = c.redact(location(u, loc), r.Secrets)
	}
	c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), re)
	return -1, false, c.failure(r, resp.StatusCode, "", re, true)
}

// location drops credentials, query and fragment, which may hold secrets.
func location(u *url.URL, loc string) string {
	l, err := u.Parse(loc)
	if err != nil {
		return strconv.Quote(cut(loc))
	}
	l.User, l.RawQuery, l.Fragment, l.RawFragment, l.ForceQuery = nil, "", "", "", false
	return cut(l.String())
}

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
		// Cut short, as a 502: retried when idempotent, a lost answer otherwise.
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

// stalled: a body not whole within the timeout is no answer, and spends
// the one budget of a service out of reach.
func (c *Client) stalled(ctx context.Context, r *Call, n int, u *url.URL, start time.Time, status int) (time.Duration, bool, *Error) {
	ce := &ConnectError{Failure: NoAnswer, Host: hostPort(u), Timeout: c.timeout, Stalled: status, Err: context.DeadlineExceeded}
	c.reach.failedToReach(start, ce)
	c.logAttempt(ctx, r, n, status, time.Since(start), ce)
	return -1, r.idempotent(), c.failure(r, 0, "", ce, true)
}

func bodyStalled(ctx, actx context.Context) bool {
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return false
	}
	return ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded)
}

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

// Unreadable is a success whose answer makes no sense, such as pages that do not add up.
func (c *Client) Unreadable(r Call, err error) *Error {
	return c.failure(&r, http.StatusOK, "", err, true)
}
