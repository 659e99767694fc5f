package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// UserAgent puts the engine's product token first, as HashiCorp's
// providers do, then the provider's, then what the user appends.
func UserAgent(engine, version, appended string) string {
	parts := []string{product + "/" + orDefault(version, "dev")}
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
func newTransport(caPEM string, bound int) (*http.Transport, func(*url.URL) (*url.URL, error), error) {
	t := &http.Transport{}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	}
	// httpproxy reads the environment each time, where http's own
	// ProxyFromEnvironment keeps the first reading for the process's life.
	env := httpproxy.FromEnvironment()
	envProxy := env.ProxyFunc()
	// Go reads a value that is not a URL as a proxy on a host named after
	// the scheme.
	valid := map[string]bool{"http": proxyURL(env.HTTPProxy), "https": proxyURL(env.HTTPSProxy)}
	proxyFor := func(u *url.URL) (*url.URL, error) {
		p, err := envProxy(u)
		if err != nil || p != nil && !valid[u.Scheme] {
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

// ErrProxyURL does not echo the value, which may hold a password.
var ErrProxyURL = errors.New("HTTPS_PROXY (or HTTP_PROXY) is not a proxy URL such as http://user:password@proxy.example.com:3128: " +
	"in the user name and password, percent-encode @, :, / and % (as %40, %3A, %2F and %25)")

// ErrNoCertificate is a CACertificate without a PEM certificate.
var ErrNoCertificate = errors.New("the CA certificate holds no PEM certificate")

// ConnectFailure is why no connection to the service could be made.
type ConnectFailure string

// The failures a ConnectError names.
const (
	UntrustedCertificate    ConnectFailure = "untrusted certificate"
	CertificateNameMismatch ConnectFailure = "certificate name mismatch"
	CertificateExpired      ConnectFailure = "certificate expired"
	ProxyRefused            ConnectFailure = "proxy refused"
	ProxyAuthRequired       ConnectFailure = "proxy authentication required"
	UnknownHost             ConnectFailure = "unknown host"
	ServiceSpeaksHTTP       ConnectFailure = "service speaks http"
	ServiceSpeaksTLS        ConnectFailure = "service speaks https"
	// Unreachable and NoAnswer, unlike the others, may change: they are
	// retried, by the budget of a service out of reach.
	Unreachable ConnectFailure = "unreachable"
	// NoAnswer is a request that got no answer within the request timeout;
	// unlike the others, it may have been sent (Error.Sent).
	NoAnswer ConnectFailure = "no answer"
)

// ConnectError is a request that never reached the service, or (NoAnswer)
// got no answer from it. It never holds the proxy's credentials.
type ConnectError struct {
	Failure          ConnectFailure
	Host             string
	Proxy            string // host:port; empty when none was used
	ProxyCredentials bool
	ProxyStatus      int // the proxy's answer to CONNECT; 0 for none
	Cert             *x509.Certificate
	Err              error
	// Timeout is the request timeout that NoAnswer waited out.
	Timeout time.Duration
	// StoppedBy is what ended the Client's retries of reaching the service,
	// such as "the retry budget (5m0s)"; empty while it still retries.
	StoppedBy string
}

func (e *ConnectError) Error() string {
	switch e.Failure {
	case UntrustedCertificate:
		return fmt.Sprintf("the certificate of %s is signed by an authority this machine does not trust (issuer %q)", e.Host, issuer(e.Cert))
	case CertificateNameMismatch:
		return fmt.Sprintf("the certificate of %s is for %s, not for %s", e.Host, certNames(e.Cert), hostOnly(e.Host))
	case CertificateExpired:
		now := time.Now()
		if e.Cert != nil && now.Before(e.Cert.NotBefore) {
			return fmt.Sprintf("the certificate of %s is not valid before %s (this machine's clock says %s)", e.Host, stampUTC(e.Cert.NotBefore), stampUTC(now))
		}
		if e.Cert != nil {
			return fmt.Sprintf("the certificate of %s expired at %s (this machine's clock says %s)", e.Host, stampUTC(e.Cert.NotAfter), stampUTC(now))
		}
		return fmt.Sprintf("the certificate of %s has expired or is not yet valid: %v", e.Host, e.Err)
	case UnknownHost:
		return fmt.Sprintf("this machine's resolver does not know the host %s (%v)", hostOnly(e.Host), e.Err)
	case ServiceSpeaksHTTP:
		if errors.Is(e.Err, http.ErrSchemeMismatch) {
			return fmt.Sprintf("base_url says https://, but the service at %s answers in plain http", e.Host)
		}
		return fmt.Sprintf("base_url says https://, but the service at %s does not speak TLS (%v)", e.Host, e.Err)
	case ServiceSpeaksTLS:
		return fmt.Sprintf("base_url says http://, but the service at %s speaks TLS (https): its TLS server refused the plain http request (%v)", e.Host, e.Err)
	case Unreachable:
		return unreachableCause(e.Host, e.Err)
	case NoAnswer:
		return fmt.Sprintf("nothing answered at %s within request_timeout (%s)", e.Host, e.Timeout)
	case ProxyAuthRequired:
		if e.ProxyCredentials {
			return fmt.Sprintf("the proxy at %s refused the credentials given (407 Proxy Authentication Required)", e.Proxy)
		}
		return fmt.Sprintf("the proxy at %s asks for credentials (407 Proxy Authentication Required)", e.Proxy)
	default:
		var rec tls.RecordHeaderError
		switch {
		case e.ProxyStatus != 0:
			return fmt.Sprintf("the proxy at %s would not open a tunnel to %s: %v", e.Proxy, e.Host, e.Err)
		case errors.As(e.Err, &rec):
			return fmt.Sprintf("the proxy at %s does not speak TLS, though its URL begins with https:// (%v)", e.Proxy, e.Err)
		}
		return fmt.Sprintf("the proxy at %s could not be used: %v", e.Proxy, e.Err)
	}
}

func (e *ConnectError) Unwrap() error { return e.Err }

// Permanent tells whether another attempt would fail the same way. A proxy
// that nothing answers for is most often a wrong HTTPS_PROXY, and one that
// refuses the tunnel a wrong base_url; only one that timed out may change.
func (e *ConnectError) Permanent() bool {
	switch e.Failure {
	case Unreachable, NoAnswer:
		return false
	case ProxyRefused:
		return !isTimeout(e.Err)
	}
	return true
}

func unreachableCause(hostport string, err error) string {
	var dns *net.DNSError
	errno, _ := unreachableErrno(err)
	switch {
	case errno == syscall.ECONNREFUSED:
		return fmt.Sprintf("nothing accepts connections at %s (connection refused)", hostport)
	case errno == syscall.ECONNRESET:
		return fmt.Sprintf("%s reset the connection before the request was sent (connection reset)", hostport)
	case errno != 0:
		return fmt.Sprintf("this machine has no route to %s (%v)", hostport, errno)
	case errors.As(err, &dns):
		return fmt.Sprintf("this machine's resolver could not look up %s (%v)", hostOnly(hostport), dns.Err)
	case isTimeout(err):
		return fmt.Sprintf("nothing answered a connection to %s in time (%v)", hostport, err)
	}
	return fmt.Sprintf("no connection could be made to %s (%v)", hostport, err)
}

// errnoOf gives the system's words when it has them, such as "connection
// refused".
func errnoOf(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func unreachableErrno(err error) (syscall.Errno, bool) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return 0, false
	}
	switch errno {
	case syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.EHOSTDOWN, syscall.ENETDOWN:
		return errno, true
	}
	return 0, false
}

// unreached is for an error before any connection was made.
func unreached(err error) bool {
	var (
		dns *net.DNSError
		op  *net.OpError
	)
	if _, ok := unreachableErrno(err); ok {
		return true
	}
	switch {
	case errors.As(err, &dns):
		return !dns.IsNotFound
	case errors.As(err, &op):
		return op.Op == "dial"
	}
	return false
}

// speaksTLS knows the words of Go's, nginx's and Apache's TLS ports.
func speaksTLS(status int, body string) bool {
	if status != http.StatusBadRequest {
		return false
	}
	b := strings.ToLower(body)
	for _, s := range []string{"http request to an https server", "plain http request was sent to https port", "speaking plain http to an ssl-enabled server"} {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

func issuer(c *x509.Certificate) string {
	if c == nil {
		return "unknown"
	}
	if c.Issuer.CommonName != "" {
		return c.Issuer.CommonName
	}
	return c.Issuer.String()
}

func certNames(c *x509.Certificate) string {
	if c == nil {
		return "other names"
	}
	names := append([]string(nil), c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return "no host name"
	}
	return strings.Join(names, ", ")
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func stampUTC(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// connectError is nil unless err is a failure of the TLS handshake, the
// resolver or the proxy.
func (c *Client) connectError(err error, target *url.URL) *ConnectError {
	var ce *ConnectError
	if errors.As(err, &ce) {
		ce.Host = target.Host
		return ce
	}
	out := &ConnectError{Host: target.Host, Err: err}
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		op       *net.OpError
		dns      *net.DNSError
		rec      tls.RecordHeaderError
	)
	// A failure on the way to the proxy (its dial, or its own TLS) is the
	// proxy's, whatever it is.
	switch {
	case errors.As(err, &op) && op.Op == "proxyconnect":
		out.Failure, out.Err = ProxyRefused, op.Err
		if p, perr := c.proxyFor(target); perr == nil && p != nil {
			out.Proxy = p.Host
		}
	case errors.As(err, &unknown):
		out.Failure, out.Cert = UntrustedCertificate, unknown.Cert
	case errors.As(err, &hostname):
		out.Failure, out.Cert = CertificateNameMismatch, hostname.Certificate
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		out.Failure, out.Cert = CertificateExpired, invalid.Cert
	case errors.As(err, &dns) && dns.IsNotFound:
		// A resolver that could not answer is Unreachable, retried.
		out.Failure, out.Err = UnknownHost, dns
	case errors.Is(err, http.ErrSchemeMismatch):
		out.Failure, out.Err = ServiceSpeaksHTTP, http.ErrSchemeMismatch
	case errors.As(err, &rec):
		out.Failure, out.Err = ServiceSpeaksHTTP, rec
	default:
		return nil
	}
	return out
}
