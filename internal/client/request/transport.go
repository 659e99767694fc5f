package request

// product is the provider's token in the User-Agent.

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

const product = "terraform-provider-dataintegration"

// UserAgent puts the engine's product token first, as HashiCorp's
// providers do, then the provider's, then what the user appends.
func UserAgent(engine, version, appended string) string {
	parts := []string{product + "/" + cmp.Or(version, "dev")}
	if engine = oneLine(engine); engine != "" {
		parts = append([]string{engine}, parts...)
	}
	if appended = oneLine(appended); appended != "" {
		parts = append(parts, appended)
	}
	return strings.Join(parts, " ")
}

// oneLine drops what a header cannot carry.
func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s))
}

// newTransport reads the proxy when the client is made, and makes a
// proxy's refusal of a CONNECT a ConnectError.
func newTransport(caPEM string, bound int, getenv func(string) string) (*http.Transport, func(*url.URL) (*url.URL, error), error) {
	t := &http.Transport{}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	}
	// httpproxy reads the environment each time, where http's own
	// ProxyFromEnvironment keeps the first reading for the process's life.
	env := proxyConfig(getenv)
	// base_url is https, or http on loopback, which no proxy serves: one
	// rule, HTTP_PROXY plays no part.
	env.HTTPProxy = ""
	// Go reads a value that is not a URL as a proxy on a host named after
	// the scheme, or as no proxy at all; either hides a typo until a
	// request fails elsewhere.
	if env.HTTPSProxy != "" && !proxyURL(env.HTTPSProxy) {
		return nil, nil, ErrProxyURL
	}
	envProxy := env.ProxyFunc()
	proxyFor := func(u *url.URL) (*url.URL, error) {
		p, err := envProxy(u)
		if err != nil {
			return nil, ErrProxyURL
		}
		return p, nil
	}
	t.Proxy = func(r *http.Request) (*url.URL, error) { return proxyFor(r.URL) }
	t.OnProxyConnectResponse = func(_ context.Context, proxy *url.URL, _ *http.Request, resp *http.Response) error {
		if resp.StatusCode == http.StatusProxyAuthRequired {
			return &ConnectError{Failure: ProxyAuthRequired, Proxy: proxy.Host, ProxyCredentials: proxy.User != nil}
		}
		if resp.StatusCode != http.StatusOK {
			return &ConnectError{Failure: ProxyRefused, Proxy: proxy.Host, ProxyStatus: resp.StatusCode,
				Err: fmt.Errorf("the proxy answered %s to CONNECT", resp.Status)}
		}
		return nil
	}
	if caPEM != "" {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM([]byte(caPEM)) {
			return nil, nil, ErrNoCertificate
		}
		tc := t.TLSClientConfig.Clone()
		if tc == nil {
			tc = &tls.Config{}
		}
		tc.RootCAs = pool
		t.TLSClientConfig = tc
	}
	t.MaxIdleConnsPerHost = max(bound, 2)
	return t, proxyFor, nil
}

// proxyURL is stricter than Go, which makes a host of the scheme of a
// value that does not parse as a URL.
func proxyURL(v string) bool {
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	u, err := url.Parse(v)
	return err == nil && u.Hostname() != "" && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "socks5" || u.Scheme == "socks5h")
}

// ProxyCredentials are the forms of the password in proxy variable v (as
// written, decoded, with the user name), to mask; it reads non-URLs too.
func ProxyCredentials(v string) []string {
	if _, rest, ok := strings.Cut(v, "://"); ok {
		v = rest
	}
	at := strings.LastIndex(v, "@")
	if at < 0 {
		return nil
	}
	userinfo := v[:at]
	_, raw, ok := strings.Cut(userinfo, ":")
	if !ok || raw == "" {
		return nil
	}
	out := []string{raw, userinfo}
	if decoded, err := url.PathUnescape(raw); err == nil && decoded != raw {
		out = append(out, decoded)
	}
	return out
}

// proxyConfig is httpproxy.FromEnvironment read through getenv (nil: the process's).
func proxyConfig(getenv func(string) string) *httpproxy.Config {
	if getenv == nil {
		return httpproxy.FromEnvironment()
	}
	either := func(upper string) string { return cmp.Or(getenv(upper), getenv(strings.ToLower(upper))) }
	return &httpproxy.Config{
		HTTPProxy: either("HTTP_PROXY"), HTTPSProxy: either("HTTPS_PROXY"), NoProxy: either("NO_PROXY"),
		CGI: getenv("REQUEST_METHOD") != "",
	}
}

// ErrProxyURL does not echo the value, which may hold a password.
var ErrProxyURL = errors.New("HTTPS_PROXY (or https_proxy) is not a proxy URL such as http://user:password@proxy.example.com:3128: " +
	"in the user name and password, percent-encode @, :, / and % (as %40, %3A, %2F and %25)")

// ErrNoCertificate is a CACertificate without a PEM certificate.
var ErrNoCertificate = errors.New("the CA certificate holds no PEM certificate")
