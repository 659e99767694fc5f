package request

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

// errnoOf gives the system's words when it has them, such as "connection
// refused".
func errnoOf(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
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
