// Package client is a thin client of the data-integration service's HTTP API:
// jobs (list, trigger, cancel) and the customer-service connector. It knows
// nothing of Terraform.
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
	// NoRetryLimit is a MaxRetries that leaves the retries of a request to
	// its retry budget alone.
	NoRetryLimit = -1
	// DefaultRetryBudget is how long a request is retried when its context
	// has no deadline (an operation without timeouts), and how long a
	// Client, all its requests together, retries failing to reach the
	// service: long enough to ride out a partial outage or a restart,
	// short enough that a service that is down fails the run within
	// minutes, however many requests the run makes.
	DefaultRetryBudget = 5 * time.Minute
	// DefaultMaxConcurrentRequests is how many requests a Client has in
	// flight at most, all lists and operations together.
	DefaultMaxConcurrentRequests = 8
	DefaultRequestTimeout        = 30 * time.Second
	defaultMinBackoff            = 500 * time.Millisecond
	defaultMaxBackoff            = 15 * time.Second
	defaultMaxRetryAfter         = 30 * time.Second

	// maxBodyBytes bounds what is read of a successful answer.
	maxBodyBytes = 16 << 20
)

// Config configures a Client.
type Config struct {
	// BaseURL is the service's base address, with or without a trailing slash.
	BaseURL string
	// APIKey is sent as the Authorization header, exactly as given.
	APIKey string
	// Version goes into the User-Agent, after Engine and before
	// AppendUserAgent (see UserAgent).
	Version, Engine, AppendUserAgent string
	// CACertificate is PEM certificates trusted besides the system's roots.
	CACertificate string
	// MaxRetries is how many times at most a retryable request is
	// retried within its retry budget; NoRetryLimit (any negative number)
	// leaves it to the budget alone, and 0 means no retry. A request that
	// reaches it failing to reach the service ends the Client's retries of
	// reaching it, as the retry budget does.
	MaxRetries int
	// RetryBudget is how long a request is retried, from its first attempt,
	// when its context has no deadline (with one, the deadline is the
	// budget); zero means DefaultRetryBudget. Failures to reach the
	// service (Unreachable) share one budget, from the first failure of a
	// streak that any answer ends: once it is spent, every request makes
	// one attempt until one reaches the service.
	RetryBudget time.Duration
	// MaxConcurrentRequests bounds the requests in flight at once, every
	// attempt of every call counted; zero means
	// DefaultMaxConcurrentRequests, and 1 reads a list one page after
	// another.
	MaxConcurrentRequests int
	// RequestTimeout bounds each attempt; zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// HTTPClient, if set, is used instead of the client's own.
	HTTPClient *http.Client
	// Log, if set, is called once per attempt with its method, path, status
	// and duration. It is never given headers, bodies or query values.
	Log func(ctx context.Context, msg string, fields map[string]any)

	// MinBackoff and MaxBackoff bound the exponential backoff between
	// retries, and MaxRetryAfter caps a Retry-After; zero means the default.
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
	// proxyFor is the proxy of a request's URL, nil for none.
	proxyFor func(*url.URL) (*url.URL, error)
	log      func(ctx context.Context, msg string, fields map[string]any)
	// bound is MaxConcurrentRequests; slots holds a token for each attempt
	// in flight.
	bound int
	slots chan struct{}
	// pausedUntil is when requests may be sent again after a 429 or a 503
	// with Retry-After (Unix nanoseconds; 0 when not paused).
	pausedUntil atomic.Int64
	// unreachedSince is when the current streak of failures to reach the
	// service began (Unix nanoseconds; 0 while it answers), and stoppedBy,
	// once set, what ended the retries of reaching it: the shared budget
	// or MaxRetries. Any answer, or any connection made, clears both.
	unreachedSince atomic.Int64
	stoppedBy      atomic.Pointer[string]

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

// fullPath is the path a request is sent to: the base URL's path, such as
// "/api/v1/", then the request's own, so that a message names what was
// really asked.
func (c *Client) fullPath(p string) string { return c.base.Path + p }

// request is one call to the service.
type request struct {
	op     string
	method string
	path   string
	query  url.Values
	body   any
	want   int
	// read decodes a successful answer; nil when its body is not read.
	read func(io.Reader) error
	// secrets the body carries (a connector's token), masked like the API
	// key if the service repeats them in an error message.
	secrets []string
}

// idempotent requests are retried on more answers than the others.
func (r *request) idempotent() bool { return r.method != http.MethodPost }

// attemptContext is the context one attempt is sent with: ctx, ended by
// the request timeout. A create or a trigger, once sent, is not cancelled
// when Terraform is interrupted: cut off half-way, it could be carried out
// by the service and its answer lost, leaving a connector or an execution
// that Terraform does not know of. It still ends at ctx's deadline (the
// operation's timeout) and at the request timeout, and no further attempt
// starts once ctx is cancelled.
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

// attempt sends r once. It returns the Retry-After of the answer (negative
// when absent), whether another attempt is allowed, and the error.
func (c *Client) attempt(ctx context.Context, r *request, payload []byte, n int) (time.Duration, bool, *Error) {
	var connected atomic.Bool
	fail := func(status int, msg string, err error) *Error {
		return c.failure(r, status, msg, err, connected.Load())
	}
	if c.acquire(ctx) != nil {
		return -1, false, fail(0, "", stopped(ctx))
	}
	defer func() { <-c.slots }()
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
	resp, err := c.http.Do(req) //nolint:bodyclose // drainClose below reads what is left and closes it.
	if err != nil {
		if connected.Load() {
			c.reached()
		}
		if ctx.Err() != nil {
			c.logAttempt(ctx, r, n, 0, time.Since(start), err)
			return -1, false, fail(0, "", stopped(ctx))
		}
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			// The operation's deadline ended the attempt of a create or a
			// trigger (see attemptContext) a moment before it ends ctx.
			c.logAttempt(ctx, r, n, 0, time.Since(start), err)
			<-ctx.Done()
			return -1, false, fail(0, "", stopped(ctx))
		}
		ce := c.connectError(err, u)
		if ce == nil && !connected.Load() && unreached(err) {
			ce = &ConnectError{Failure: Unreachable, Host: hostPort(u), Err: transportError(err, c.timeout)}
		}
		if ce != nil {
			// A certificate, a host, a proxy or a service that refuses: no
			// request reached the service, and only a proxy that timed out
			// or a service out of reach may change.
			if !ce.Permanent() {
				c.failedToReach(start)
			}
			c.logAttempt(ctx, r, n, 0, time.Since(start), ce)
			return -1, !ce.Permanent(), fail(0, "", ce)
		}
		// A connection error: an idempotent request may go again; a POST only
		// when it never reached the service.
		err = transportError(err, c.timeout)
		c.logAttempt(ctx, r, n, 0, time.Since(start), err)
		return -1, r.idempotent() || !connected.Load(), fail(0, "", err)
	}
	defer drainClose(resp.Body)
	c.reached()

	if resp.StatusCode != r.want {
		raw := readMessage(resp.Body)
		if u.Scheme == "http" && speaksTLS(resp.StatusCode, raw) {
			// The TLS port's own answer: the request never reached the service.
			ce := &ConnectError{Failure: ServiceSpeaksTLS, Host: hostPort(u), Err: fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimRight(cut(raw), "."))}
			c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), ce)
			return -1, false, c.failure(r, 0, "", ce, false)
		}
		msg := cut(c.redact(raw, r.secrets))
		c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), nil)
		ra := retryAfter(resp.Header, time.Now())
		if ra >= 0 && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
			c.pause(ctx, resp.StatusCode, min(ra, c.maxRetryAfter))
		}
		return ra, c.retryableStatus(r, resp.StatusCode), fail(resp.StatusCode, msg, nil)
	}
	if r.read != nil {
		err = r.read(resp.Body)
	}
	c.logAttempt(ctx, r, n, resp.StatusCode, time.Since(start), err)
	switch {
	case err == nil:
		return -1, false, nil
	case ctx.Err() != nil:
		return -1, false, fail(resp.StatusCode, "", stopped(ctx))
	case actx.Err() != nil:
		// The answer stalled past the request timeout: like a connection
		// that broke, an idempotent request may go again.
		return -1, r.idempotent(), fail(resp.StatusCode, "", fmt.Errorf("the answer did not arrive within the request timeout (%v)", c.timeout))
	default:
		return -1, false, fail(resp.StatusCode, "", err)
	}
}

// logAttempt logs one attempt; err, when the attempt failed without a
// status that says why, names the cause.
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
		// The system's words when it has them, such as "connection refused".
		fields["error"] = errnoOf(err).Error()
	}
	c.log(ctx, "API request", fields)
}

// hostPort is u's host and port, the scheme's port when u names none.
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

// transportError drops the URL that net/http wraps around a transport error:
// the Error already names the operation and path.
func transportError(err error, timeout time.Duration) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var nerr net.Error
	if errors.As(err, &nerr) && nerr.Timeout() {
		return fmt.Errorf("no answer within the request timeout (%v): %w", timeout, err)
	}
	return err
}

// decode reads one JSON value from body into out, reading at most
// maxBodyBytes.
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

// into is a request's read that decodes the answer into out.
func into(out any) func(io.Reader) error {
	return func(body io.Reader) error { return decode(body, out) }
}

// drainClose reads a little of what is left so the connection can be reused.
func drainClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	_ = body.Close()
}
