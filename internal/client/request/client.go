// Package request sends the calls of package client to the service, as
// internal/client/README.md ("Rate limits and retries", "Errors") says:
// Do retries a Call until it succeeds, fails for good or runs out of its
// time limit; each attempt waits for its turn (a pause, the pacing of
// package pacing, a slot) and the streak of failures to reach the service,
// which one budget per Client ends. Every error type is in errors.go.
// README.md in comments here means internal/client/README.md.
package request

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
)

const (
	NoRetryLimit = -1
	// DefaultRetryBudget rides out a restart, yet fails a run against a down service in minutes.
	DefaultRetryBudget           = 5 * time.Minute
	DefaultMaxConcurrentRequests = 8
	DefaultRequestTimeout        = 30 * time.Second
	defaultMinBackoff            = 500 * time.Millisecond
	defaultMaxBackoff            = 15 * time.Second
	defaultMaxRetryAfter         = 30 * time.Second
)

// Config configures a Client; a zero field takes its default.
type Config struct {
	BaseURL                          string
	APIKey                           string
	KeyFrom                          string
	Version, Engine, AppendUserAgent string
	CACertificate                    string
	MaxRetries                       int
	RetryBudget                      time.Duration
	MaxConcurrentRequests            int
	RequestTimeout                   time.Duration
	HTTPClient                       *http.Client
	// Log is never given headers, bodies or query values.
	Log func(ctx context.Context, msg string, fields map[string]any)
	// Getenv reads the proxy variables; nil reads the process's environment.
	Getenv func(string) string

	MinBackoff, MaxBackoff, MaxRetryAfter time.Duration
}

// Client calls the service. It is safe for concurrent use.
type Client struct {
	base        *url.URL
	apiKey      string
	keyFrom     string
	userAgent   string
	maxRetries  int
	budget      time.Duration
	timeout     time.Duration
	http        *http.Client
	proxyFor    func(*url.URL) (*url.URL, error)
	log         func(ctx context.Context, msg string, fields map[string]any)
	bound       int
	slots       chan struct{}
	pausedUntil atomic.Int64
	reach       reach
	// pacer is shared with every Client of the same service and key.
	pacer      *pacing.Pacer
	keyRefused atomic.Pointer[string]

	minBackoff, maxBackoff, maxRetryAfter time.Duration
}

// Call is one call of the API: what is sent, the answer wanted, and until when.
type Call struct {
	Op      string
	Method  string
	Path    string
	Query   url.Values
	Body    any
	Want    int
	Read    func(io.Reader) error
	Secrets []string
	end     time.Time
	budget  string
}

func (r *Call) idempotent() bool { return r.Method != http.MethodPost }

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
		keyFrom:       cfg.KeyFrom,
		userAgent:     UserAgent(cfg.Engine, cfg.Version, cfg.AppendUserAgent),
		maxRetries:    max(cfg.MaxRetries, NoRetryLimit),
		budget:        orDefault(cfg.RetryBudget, DefaultRetryBudget),
		timeout:       orDefault(cfg.RequestTimeout, DefaultRequestTimeout),
		log:           cfg.Log,
		minBackoff:    orDefault(cfg.MinBackoff, defaultMinBackoff),
		maxBackoff:    orDefault(cfg.MaxBackoff, defaultMaxBackoff),
		maxRetryAfter: orDefault(cfg.MaxRetryAfter, defaultMaxRetryAfter),
	}
	c.reach.stop = make(chan struct{})
	c.reach.budget, c.reach.maxBackoff = c.budget, c.maxBackoff
	c.pacer = pacing.For(base.String(), cfg.APIKey)
	t, proxyFor, err := newTransport(cfg.CACertificate, bound, cfg.Getenv)
	if err != nil {
		return nil, err
	}
	c.proxyFor = proxyFor
	if _, err := proxyFor(base); err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: t}
	if cfg.HTTPClient != nil {
		copied := *cfg.HTTPClient
		hc = &copied
	}
	// A redirect is an error, never followed: README.md, "Redirects".
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.http = hc
	return c, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func (c *Client) fullPath(p string) string { return c.base.Path + p }

func (c *Client) RetryBudget() time.Duration { return c.budget }

func (c *Client) MaxRetries() int { return c.maxRetries }

type limitKey struct{}

// WithLimit names the setting that sets d, for the error of a request it cuts off.
func WithLimit(ctx context.Context, setting string, d time.Duration) (context.Context, context.CancelFunc) {
	ctx = context.WithValue(ctx, limitKey{}, fmt.Sprintf("%s (%s)", setting, d))
	return context.WithTimeout(ctx, d)
}

func limitOf(ctx context.Context) string {
	name, _ := ctx.Value(limitKey{}).(string)
	return name
}

func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if name := limitOf(ctx); errors.Is(err, context.DeadlineExceeded) && name != "" {
		return &LimitError{Limit: name}
	}
	return err
}

type sendKey struct{}

// OnSend calls f as each attempt is about to be sent, once its turn has come.
func OnSend(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, sendKey{}, f)
}

func (c *Client) Bound() int { return c.bound }
