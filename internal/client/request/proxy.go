package request

// The proxy variables: how they are read, and what of them is secret.

import (
	"cmp"
	"errors"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

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

// ErrProxyURL does not echo the value, which may hold a password.
var ErrProxyURL = errors.New("HTTPS_PROXY (or https_proxy) is not a proxy URL such as http://user:password@proxy.example.com:3128: " +
	"in the user name and password, percent-encode @, :, / and % (as %40, %3A, %2F and %25)")
