package request

// Defaults of Config.

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
	pacer *pacing.Pacer
	// keyRefused is the message of the service's first 401, nil before.
	keyRefused atomic.Pointer[string]

	minBackoff, maxBackoff, maxRetryAfter time.Duration
}

// Call is one call of the API as the client makes it: what is sent,
// the answer it wants, and until when it may be sent again.
type Call struct {
	Op      string
	Method  string
	Path    string
	Query   url.Values
	Body    any
	Want    int
	Read    func(io.Reader) error // nil when the body is not read
	Secrets []string              // masked like the API key in a message
	// end is when r's time runs out, and budget names that limit.
	end    time.Time
	budget string
}

// idempotent: only a POST may not be sent twice.
func (r *Call) idempotent() bool { return r.Method != http.MethodPost }

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

// RetryBudget is how long a request is retried when its operation sets no
// time limit.
func (c *Client) RetryBudget() time.Duration { return c.budget }

// MaxRetries caps the retries of a request; NoRetryLimit leaves them to the
// time limit.
func (c *Client) MaxRetries() int { return c.maxRetries }

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

// ctxErr is ctx's error, a LimitError when a limit of WithLimit ended it.
func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if name := limitOf(ctx); errors.Is(err, context.DeadlineExceeded) && name != "" {
		return &LimitError{Limit: name}
	}
	return err
}

type sendKey struct{}

// OnSend is ctx with f called as each attempt of a request made with it is
// about to be sent, once its turn has come: what waits for the list to begin
// may still join it until then.
func OnSend(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, sendKey{}, f)
}

// Bound is how many attempts may be in flight at once.
func (c *Client) Bound() int { return c.bound }
