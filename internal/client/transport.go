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

// UserAgent is the User-Agent of every request: the engine's product
// token first, as HashiCorp's providers send it (such as "Terraform/1.16.4
// (+https://www.terraform.io)"), then the provider's, then what the user
// appends; empty parts are left out.
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

// oneLine is s without control characters and surrounding spaces: a header
// cannot carry them.
func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s))
}

// newTransport is the client's own transport: Go's default one (its dial
// and idle timeouts, HTTP/2), with the proxy that the environment names as
// it is when the client is made, the system's roots plus caPEM, and a
// proxy's refusal of a CONNECT as a ConnectError.
func newTransport(caPEM string, bound int) (*http.Transport, func(*url.URL) (*url.URL, error), error) {
	t := &http.Transport{}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	}
	// httpproxy reads the environment each time, where http's own
	// ProxyFromEnvironment keeps the first reading for the process's life.
	env := httpproxy.FromEnvironment()
	envProxy := env.ProxyFunc()
	// Whether each variable is a proxy's URL, read once: Go reads a value
	// that is not as a proxy on a host named after the scheme.
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
	// Keep a connection alive for each request that may be in flight.
	t.MaxIdleConnsPerHost = max(bound, 2)
	return t, proxyFor, nil
}

// proxyURL tells whether v is a proxy's URL as Go reads a proxy variable:
// http, https or socks5, with a host; without a scheme, http. Go's own
// reading takes more, such as a value that does not parse as a URL, and
// makes a host of its scheme.
func proxyURL(v string) bool {
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	u, err := url.Parse(v)
	return err == nil && u.Hostname() != "" && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "socks5" || u.Scheme == "socks5h")
}

// ProxyCredentials are the forms in which a proxy variable's value v holds
// its password: as written, decoded, and with the user name; none when it
// holds no password. It reads values that are not URLs too, such as a
// password with a / left as it is.
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

// ErrProxyURL is a proxy variable that is not a proxy's URL. It does not
// echo the value, which may hold the proxy's password.
var ErrProxyURL = errors.New("HTTPS_PROXY (or HTTP_PROXY) is not a proxy URL such as http://user:password@proxy.example.com:3128: " +
	"in the user name and password, percent-encode @, :, / and % (as %40, %3A, %2F and %25)")

// ErrNoCertificate is a CACertificate without a PEM certificate.
var ErrNoCertificate = errors.New("the CA certificate holds no PEM certificate")

// ConnectFailure is why no connection to the service could be made, where
// a setting of the user's can fix it.
type ConnectFailure string

// The failures a ConnectError names.
const (
	UntrustedCertificate    ConnectFailure = "untrusted certificate"
	CertificateNameMismatch ConnectFailure = "certificate name mismatch"
	CertificateExpired      ConnectFailure = "certificate expired"
	ProxyRefused            ConnectFailure = "proxy refused"
	ProxyAuthRequired       ConnectFailure = "proxy authentication required"
	// UnknownHost is a host name the resolver says does not exist: a typo
	// in base_url, or a network whose names only its proxy resolves.
	UnknownHost ConnectFailure = "unknown host"
	// ServiceSpeaksHTTP is an https base URL whose service does not speak
	// TLS, most often one that answers in plain http.
	ServiceSpeaksHTTP ConnectFailure = "service speaks http"
	// ServiceSpeaksTLS is an http base URL whose service speaks TLS.
	ServiceSpeaksTLS ConnectFailure = "service speaks https"
	// Unreachable is a service that no connection reaches: refused, reset
	// before the request went out, no route, a resolver that cannot
	// answer, a connection that times out. Unlike the others it may change,
	// so it is retried, within one retry budget for the whole Client.
	Unreachable ConnectFailure = "unreachable"
)

// ConnectError is a connection to the service that failed at its TLS
// handshake or at the proxy. It never holds the proxy's credentials.
type ConnectError struct {
	Failure ConnectFailure
	// Host is the service's host, as base_url names it.
	Host string
	// Proxy is the proxy's host:port; empty when none was used.
	Proxy string
	// ProxyCredentials is whether the proxy's URL carried credentials.
	ProxyCredentials bool
	// ProxyStatus is the proxy's answer to CONNECT when it refused the
	// tunnel; 0 when it gave none.
	ProxyStatus int
	// Cert is the service's certificate, for a TLS failure.
	Cert *x509.Certificate
	// Err is the underlying error, in Go's words.
	Err error
	// StoppedBy is, for a failure to reach the service, what ended the
	// Client's retries of it, such as "the retry budget (5m0s)": every
	// later request makes one attempt. Empty while it still retries.
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

// Permanent tells whether another attempt would fail the same way: all but
// Unreachable and a proxy that timed out, the service out of reach, which
// the Client's shared retry budget bounds. A proxy that nothing answers for
// is most often a wrong HTTPS_PROXY, and one that refuses the tunnel (403,
// or 502 and 503 for a host it cannot resolve) most often a wrong base_url.
func (e *ConnectError) Permanent() bool {
	switch e.Failure {
	case Unreachable:
		return false
	case ProxyRefused:
		return !isTimeout(e.Err)
	}
	return true
}

// unreachableCause says in plain words why nothing reached hostport.
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

// errnoOf is the system's word for err, such as "connection refused",
// when it carries one; else err itself.
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

// unreachableErrno is err's system error when it is one of not reaching
// the service: refused, reset, or no route to it.
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

// unreached tells whether err, a transport error before any connection
// to the service was made, is one of not reaching it (see Unreachable).
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
		// A name that does not exist is UnknownHost, found before.
		return !dns.IsNotFound
	case errors.As(err, &op):
		return op.Op == "dial"
	}
	return false
}

// speaksTLS tells whether an answer of status with body is a TLS port's
// answer to a plain http request (Go's, nginx's and Apache's words).
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

// connectError is err as a ConnectError when it is a failure of the TLS
// handshake with the service or of the proxy; nil otherwise.
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
		// A resolver that could not answer (IsTemporary, IsTimeout) is
		// Unreachable, retried.
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
