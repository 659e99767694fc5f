package client

// The failures of a request that got no answer from the service: why no
// connection could be made, how each is told, and which are retried.

import (
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
)

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
	// ProxyNotAnswering is a proxy that took the connection but did not
	// answer CONNECT within the request timeout; retried as NoAnswer is.
	ProxyNotAnswering ConnectFailure = "proxy not answering"
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
	// Stalled is the status of a NoAnswer whose headers came but whose body
	// did not arrive whole; 0 when nothing came.
	Stalled int
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
	case ProxyNotAnswering:
		return fmt.Sprintf("the proxy at %s accepted the connection but did not answer the request for a tunnel to %s (CONNECT) within request_timeout (%s)", e.Proxy, e.Host, e.Timeout)
	case NoAnswer:
		if e.Stalled != 0 {
			return fmt.Sprintf("the service at %s sent the status (HTTP %d) and headers of its answer, but not the whole body within request_timeout (%s)", e.Host, e.Stalled, e.Timeout)
		}
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
	case Unreachable, NoAnswer, ProxyNotAnswering:
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
// resolver or the proxy; proxyFor names the proxy that refused.
func connectError(err error, target *url.URL, proxyFor func(*url.URL) (*url.URL, error)) *ConnectError {
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
		if p, perr := proxyFor(target); perr == nil && p != nil {
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

// transportError drops the URL net/http wraps around an error: the Error
// already names the path.
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
