// Package client is the data-integration service's HTTP client; README.md
// states its contract.
package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
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
)

// Config configures a Client; a zero field takes its default. README.md,
// "Rate limits and retries", says how the retry settings combine.
type Config struct {
	BaseURL string
	APIKey  string
	// KeyFrom says where APIKey was read from, for a refusal's message.
	KeyFrom string
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
	// Getenv reads the proxy variables; nil reads the process's environment.
	Getenv func(string) string

	MinBackoff, MaxBackoff, MaxRetryAfter time.Duration
}

// Client calls the service. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	apiKey     string
	keyFrom    string
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

// reach is the Client's streak of failures to reach the service, which
// only an answer ends (README.md, "Rate limits and retries"). It is a
// field of the Client; turns.go keeps it.
type reach struct {
	mu        sync.Mutex
	since     time.Time     // the streak's first failed attempt; zero when none
	cause     *ConnectError // its latest failure
	stoppedBy string        // what stopped its retries; empty while they go on
	stop      chan struct{} // closed when stoppedBy is set
	probing   bool          // a request checks whether the service is back
	silent    time.Time     // when the latest attempt that got no answer ended
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
	c.pacer = pacerFor(base.String(), cfg.APIKey)
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
	// A redirect is answered as an error, never followed: README.md, "Redirects".
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

// fullPath includes the base URL's path: a message names what was asked.
func (c *Client) fullPath(p string) string { return c.base.Path + p }
