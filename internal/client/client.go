// Package client is the data-integration service's HTTP client; README.md
// states its contract.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	// NoRetryLimit is a MaxRetries that leaves retries to the budget alone.
	NoRetryLimit = -1
	// DefaultRetryBudget rides out a restart, yet fails a run against a
	// service that is down within minutes, however many requests it makes.
	DefaultRetryBudget           = 5 * time.Minute
	DefaultMaxConcurrentRequests = 8
	DefaultRequestTimeout        = 30 * time.Second
	defaultMinBackoff            = 500 * time.Millisecond
	defaultMaxBackoff            = 15 * time.Second
	defaultMaxRetryAfter         = 30 * time.Second

	maxBodyBytes = 16 << 20
)

// Config configures a Client; a zero field takes its default. README.md,
// "Rate limits and retries", says how the retry settings combine.
type Config struct {
	BaseURL string
	APIKey  string
	// Version, Engine and AppendUserAgent make the User-Agent (UserAgent).
	Version, Engine, AppendUserAgent string
	CACertificate                    string
	MaxRetries                       int
	RetryBudget                      time.Duration
	MaxConcurrentRequests            int
	RequestTimeout                   time.Duration
	HTTPClient                       *http.Client
	// Log is never given headers, bodies or query values.
	Log func(ctx context.Context, msg string, fields map[string]any)

	MinBackoff, MaxBackoff, MaxRetryAfter time.Duration
}

// Client calls the service. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	apiKey     string
	userAgent  string
	maxRetries int // negative: no limit but the budget
	budget     time.Duration
	timeout    time.Duration
	http       *http.Client
	proxyFor   func(*url.URL) (*url.URL, error)
	log        func(ctx context.Context, msg string, fields map[string]any)
	bound      int
	slots      chan struct{} // a token per attempt in flight
	// pausedUntil is Unix nanoseconds, 0 when unset.
	pausedUntil atomic.Int64
	reach       reach
	// pacer is shared with every Client of the same service and key.
	pacer *pacer
	// keyRefused is the message of the service's first 401, nil before.
	keyRefused atomic.Pointer[string]

	minBackoff, maxBackoff, maxRetryAfter time.Duration

	reads connectorReads
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("base URL %q is not an absolute URL", cfg.BaseURL)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	base.RawPath = ""
	bound := orDefault(cfg.MaxConcurrentRequests, DefaultMaxConcurrentRequests)
	if bound < 1 {
		return nil, fmt.Errorf("at most %d requests at once: want at least 1", bound)
	}
	c := &Client{
		bound:         bound,
		slots:         make(chan struct{}, bound),
		base:          base,
		apiKey:        cfg.APIKey,
		userAgent:     UserAgent(cfg.Engine, cfg.Version, cfg.AppendUserAgent),
		maxRetries:    max(cfg.MaxRetries, NoRetryLimit),
		budget:        orDefault(cfg.RetryBudget, DefaultRetryBudget),
		timeout:       orDefault(cfg.RequestTimeout, DefaultRequestTimeout),
		http:          cfg.HTTPClient,
		log:           cfg.Log,
		minBackoff:    orDefault(cfg.MinBackoff, defaultMinBackoff),
		maxBackoff:    orDefault(cfg.MaxBackoff, defaultMaxBackoff),
		maxRetryAfter: orDefault(cfg.MaxRetryAfter, defaultMaxRetryAfter),
	}
	c.reach.stop = make(chan struct{})
	c.pacer = pacerFor(base.String(), cfg.APIKey)
	t, proxyFor, err := newTransport(cfg.CACertificate, bound)
	if err != nil {
		return nil, err
	}
	c.proxyFor = proxyFor
	if _, err := proxyFor(base); err != nil {
		return nil, err
	}
	if c.http == nil {
		c.http = &http.Client{Transport: t}
	}
	return c, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// fullPath includes the base URL's path: a message names what was asked.
func (c *Client) fullPath(p string) string { return c.base.Path + p }

type request struct {
	op      string
	method  string
	path    string
	query   url.Values
	body    any
	want    int
	read    func(io.Reader) error // nil when the body is not read
	secrets []string              // masked like the API key in a message
	// end is when r's time runs out, and budget names that limit.
	end    time.Time
	budget string
}

func (r *request) idempotent() bool { return r.method != http.MethodPost }

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

// attempt sends r once. It returns the answer's Retry-After (negative when
// absent) and whether another attempt is allowed.
func (c *Client) attempt(ctx context.Context, r *request, payload []byte, n int) (time.Duration, bool, *Error) {
	var connected atomic.Bool
	fail := func(status int, msg string, err error) *Error {
		return c.failure(r, status, msg, err, connected.Load())
	}
	if e := c.keyRefusal(r); e != nil {
		return -1, false, e
	}
	probe, seq, refused, err := c.acquire(ctx, r)
	var rle *RateLimitError
	switch {
	case errors.As(err, &rle):
		return -1, false, fail(0, "", rle)
	case err != nil:
		return -1, false, fail(0, "", stopped(ctx))
	case refused != nil:
		return -1, false, fail(0, "", refused)
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

	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { connected.Store(true) },
	})
	u := c.base.ResolveReference(&url.URL{Path: r.path, RawQuery: r.query.Encode()})
	var body io.Reader
	if payload != nil {
		body = strings.NewReader(string(payload))
	}
	req, err := http.NewRequestWithContext(actx, r.method, u.String(), body)
	if err != nil {
		return -1, false, fail(0, "", err)
	}
	req.Header.Set(headerAuthorization, c.apiKey)
	req.Header.Set(headerAccept, mediaJSON)
	req.Header.Set(headerUserAgent, c.userAgent)
	if payload != nil {
		req.Header.Set(headerContentType, mediaJSON)
	}

	start := time.Now()
	sent = start
	resp, err := c.http.Do(req) //nolint:bodyclose // drainClose below reads what is left and closes it.
	if err != nil {
		if ctx.Err() != nil {
			c.logAttempt(ctx, r, n, 0, time.Since(start), err)
			return -1, false, fail(0, "", stopped(ctx))
		}
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			// attemptContext's deadline fires a moment before ctx's.
			c.logAttempt(ctx, r, n, 0, time.Since(start), err)
			<-ctx.Done()
			return -1, false, fail(0, "", stopped(ctx))
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
			return -1, !ce.Permanent() && (r.idempotent() || !connected.Load()), fail(0, "", ce)
		}
		// A POST that may have reached the service is not sent again.
		err = transportError(err, c.timeout)
		c.logAttempt(ctx, r, n, 0, time.Since(start), err)
		return -1, r.idempotent() || !connected.Load(), fail(0, "", err)
	}
	defer drainClose(resp.Body)
	c.reached()
	status, header = resp.StatusCode, resp.Header

	if resp.StatusCode != r.want {
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
		return ra, c.retryableStatus(r, resp.StatusCode), fail(resp.StatusCode, msg, nil)
	}
	rb := &bodyReader{r: resp.Body}
	if r.read != nil {
		err = r.read(rb)
	}
	c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), err)
	switch {
	case err == nil:
		return -1, false, nil
	case ctx.Err() != nil:
		return -1, false, fail(resp.StatusCode, "", stopped(ctx))
	case actx.Err() != nil:
		return -1, r.idempotent(), fail(resp.StatusCode, "", fmt.Errorf("the answer did not arrive within the request timeout (%v)", c.timeout))
	case rb.err != nil || errors.Is(err, io.ErrUnexpectedEOF):
		// A body cut short is a failed attempt, as a 502 is: retried when
		// idempotent, a lost answer otherwise.
		cause := io.ErrUnexpectedEOF
		if rb.err != nil {
			cause = errnoOf(transportError(rb.err, c.timeout))
		}
		return -1, r.idempotent(), fail(resp.StatusCode, "", fmt.Errorf("the answer was cut short (%w)", cause))
	default:
		return -1, false, fail(resp.StatusCode, "", err)
	}
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

// drainClose reads a little of what is left so the connection is reused.
func drainClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	_ = body.Close()
}
