// Package client is a thin client of the data-integration service's HTTP API:
// jobs (list, trigger, cancel) and the customer-service connector. It knows
// nothing of Terraform.
package client

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

	// maxBodyBytes bounds what is read of a successful answer; maxErrorBytes
	// what is read of a failed one; maxMessageRunes what of it is shown.
	maxBodyBytes    = 16 << 20
	maxErrorBytes   = 64 << 10
	maxMessageRunes = 300
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

// Error is a failed request: the service's answer, or the reason none came.
type Error struct {
	// Operation names what was attempted, such as "list jobs".
	Operation string
	// Method and Path identify the request: Path is the whole path asked,
	// the base URL's included (it holds no secret).
	Method, Path string
	// StatusCode is the HTTP status, or 0 when no answer came.
	StatusCode int
	// Message is the service's own message, cut to a readable length.
	Message string
	// Err is the underlying error when no usable answer came.
	Err error
	// Sent is whether the request reached the service: a connection was
	// made for it.
	Sent bool
	// Attempts is how many times the request was sent, and Tried how long
	// from the first attempt to giving up, when it was retried and gave up
	// with a failure it could have retried.
	Attempts int
	Tried    time.Duration
	// Limit is the time limit that ended the retries: a limit named by
	// WithLimit, or the retry budget; empty when MaxRetries did. A limit
	// that cut off an attempt is Err.
	Limit string
	// Capped is whether MaxRetries ended the retries.
	Capped bool
}

// Retries says how long a request was retried before it gave up, and what
// ended it; empty when it was not retried.
func (e *Error) Retries() string {
	if e.Attempts < 1 || e.Attempts == 1 && e.Limit == "" && !e.Capped {
		return ""
	}
	s := fmt.Sprintf(" (gave up after %d attempts over %s", e.Attempts, e.Tried.Round(100*time.Millisecond))
	if e.Attempts == 1 {
		s = fmt.Sprintf(" (gave up after 1 attempt over %s", e.Tried.Round(100*time.Millisecond))
	}
	switch {
	case e.Limit != "":
		s += ", at the end of " + e.Limit
	case e.Capped:
		// The provider's setting of MaxRetries.
		s += fmt.Sprintf(", at max_retries (%d)", e.Attempts-1)
	}
	return s + ")"
}

// OutOfTime tells whether err is a request that gave up its retries
// because its time limit (its context's deadline, or the retry budget)
// would end before the next attempt, or ended.
func OutOfTime(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Limit != "" || errors.Is(err, context.DeadlineExceeded)
}

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

// LimitError is a request cut off by a limit of WithLimit. It is a
// context.DeadlineExceeded.
type LimitError struct{ Limit string }

func (e *LimitError) Error() string { return e.Limit + " ran out" }
func (e *LimitError) Unwrap() error { return context.DeadlineExceeded }

// stopped is why ctx ended: the limit that ended it, when WithLimit named
// it.
func stopped(ctx context.Context) error {
	err := ctx.Err()
	if name := limitOf(ctx); errors.Is(err, context.DeadlineExceeded) && name != "" {
		return &LimitError{Limit: name}
	}
	return err
}

// limitOf is the name of ctx's limit; empty when WithLimit did not set it.
func limitOf(ctx context.Context) string {
	name, _ := ctx.Value(limitKey{}).(string)
	return name
}

// MayHaveTakenEffect tells whether the service may have carried out the
// request although it failed: the request reached it, and the answer was
// lost or is one given after the work may have been done (500, 502, 504,
// or a success that could not be read). Never for a 4xx, a 429 or a 503.
func (e *Error) MayHaveTakenEffect() bool {
	switch e.StatusCode {
	case 0:
		return e.Sent
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return true
	default:
		return e.StatusCode >= 200 && e.StatusCode < 300
	}
}

func (e *Error) Error() string {
	var s string
	switch {
	case e.StatusCode != 0 && e.Message != "":
		s = fmt.Sprintf("%s: HTTP %d: %s", e.Operation, e.StatusCode, e.Message)
	case e.StatusCode != 0 && e.Err != nil:
		s = fmt.Sprintf("%s: HTTP %d: %v", e.Operation, e.StatusCode, e.Err)
	case e.StatusCode != 0:
		s = fmt.Sprintf("%s: HTTP %d", e.Operation, e.StatusCode)
	default:
		s = fmt.Sprintf("%s: %v", e.Operation, e.Err)
	}
	return s + e.Retries()
}

func (e *Error) Unwrap() error { return e.Err }

// StatusCode returns the HTTP status of err, or 0 when err carries none.
func StatusCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// IsNotFound tells whether err is the service answering 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// MayHaveTakenEffect tells whether err is a failed request that the service
// may have carried out all the same (see Error.MayHaveTakenEffect).
func MayHaveTakenEffect(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.MayHaveTakenEffect()
}

// fullPath is the path a request is sent to: the base URL's path, such as
// "/api/v1/", then the request's own, so that a message names what was
// really asked.
func (c *Client) fullPath(p string) string { return c.base.Path + p }

// failure is the Error of request r, the one constructor of an Error: status
// is 0 when no answer came, and connected tells whether a connection was made
// for the request (an answer implies one).
func (c *Client) failure(r *request, status int, msg string, err error, connected bool) *Error {
	return &Error{
		Operation: r.op, Method: r.method, Path: c.fullPath(r.path), StatusCode: status, Message: msg, Err: err,
		Sent: status != 0 || connected,
	}
}

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
	req.Header.Set("Authorization", c.apiKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
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
	v := strings.TrimSpace(h.Get("Retry-After"))
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

// readMessage returns the service's message from an error body: its "detail"
// when it is JSON with one, else the text itself, since the API publishes
// no shape of an error body (README.md, "Open points"). The caller masks
// secrets in it before cutting it to a readable length.
func readMessage(body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, maxErrorBytes))
	var e struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Detail) > 0 && string(e.Detail) != "null" {
		var s string
		if json.Unmarshal(e.Detail, &s) == nil {
			return s
		}
		return string(e.Detail)
	}
	return string(b)
}

// redact masks the API key and the request's other secrets wherever a
// message of the service repeats them.
func (c *Client) redact(msg string, secrets []string) string {
	for _, s := range append([]string{c.apiKey}, secrets...) {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}

// cut folds white space and control characters and shortens s to
// maxMessageRunes.
func cut(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r == ' ' || r == 0xfffd
	}), " ")
	if r := []rune(s); len(r) > maxMessageRunes {
		return string(r[:maxMessageRunes]) + "…"
	}
	return s
}

// drainClose reads a little of what is left so the connection can be reused.
func drainClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	_ = body.Close()
}
