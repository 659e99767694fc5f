package request

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
)

const product = "terraform-provider-dataintegration"

// UserAgent puts the engine's token first, as HashiCorp's providers do.
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

func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s))
}

func newTransport(caPEM string, bound int, getenv func(string) string) (*http.Transport, func(*url.URL) (*url.URL, error), error) {
	t := &http.Transport{}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	}
	// httpproxy reads the environment each time; http's own keeps the first reading.
	env := proxyConfig(getenv)
	// base_url is https, or http on loopback, which no proxy serves.
	env.HTTPProxy = ""
	// Go reads a value that is no URL as a host named after the scheme, or as
	// no proxy: either hides a typo.
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

var ErrNoCertificate = errors.New("the CA certificate holds no PEM certificate")
