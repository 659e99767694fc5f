package request

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
)

// Error is a failed request: the service's answer, or the reason none came.
type Error struct {
	Operation          string
	Method, Path, Host string
	KeyFrom            string
	// StatusCode is 0 when no answer came; Sent, when no connection was made.
	StatusCode int
	Message    string
	Err        error
	Sent       bool
	Attempts   int
	Tried      time.Duration
	// Limit ended the retries (empty when Capped); Wait is the wait that would
	// have passed it.
	Limit  string
	Wait   time.Duration
	Capped bool
	// KeyRefused: not sent, as the service refused the key (401) before.
	KeyRefused bool
}

func (e *Error) Retries() string {
	if e.Attempts < 1 || e.Attempts == 1 && e.Limit == "" && !e.Capped {
		return ""
	}
	s := fmt.Sprintf(" (gave up after %d attempts over %s", e.Attempts, e.Tried.Round(100*time.Millisecond))
	if e.Attempts == 1 {
		s = fmt.Sprintf(" (gave up after 1 attempt over %s", e.Tried.Round(100*time.Millisecond))
	}
	switch {
	case e.Limit != "" && e.Wait > 0:
		s += fmt.Sprintf(": the next attempt would wait %s, past the end of %s", roundWait(e.Wait), e.Limit)
	case e.Limit != "":
		s += ", at the end of " + e.Limit
	case e.Capped:
		s += fmt.Sprintf(", at max_retries (%d)", e.Attempts-1)
	}
	return s + ")"
}

func (e *Error) Error() string {
	var s string
	switch {
	case e.StatusCode != 0 && e.Message != "":
		s = fmt.Sprintf("%s: HTTP %d: %s", e.Operation, e.StatusCode, e.Message)
	case e.StatusCode != 0 && e.Err != nil:
		s = fmt.Sprintf("%s: HTTP %d: %v", e.Operation, e.StatusCode, e.Err)
	case e.StatusCode != 0:
		s = fmt.Sprintf("%s: HTTP %d", e.Operation, e.StatusCode)
	default:
		s = fmt.Sprintf("%s: %v", e.Operation, e.Err)
	}
	return s + e.Retries()
}

func (e *Error) Unwrap() error { return e.Err }

// MayHaveTakenEffect: a lost answer, a 500, 502 or 504, or an unreadable success.
func (e *Error) MayHaveTakenEffect() bool {
	switch e.StatusCode {
	case 0:
		return e.Sent
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return true
	default:
		return e.StatusCode >= 200 && e.StatusCode < 300
	}
}

func StatusCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

func MayHaveTakenEffect(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.MayHaveTakenEffect()
}

func OutOfTime(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Limit != "" || errors.Is(err, context.DeadlineExceeded)
}

// RedirectError is a 3xx answer, which the client does not follow.
type RedirectError struct {
	Status   int
	Location string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the service redirected the request to %s (HTTP %d); redirects are not followed", e.Location, e.Status)
}

// UnexpectedAnswerError is an answer about another object than the one asked.
type UnexpectedAnswerError struct {
	Asked, Answered string
}

func (e *UnexpectedAnswerError) Error() string {
	return fmt.Sprintf("the service answered with %s to a request for %s", e.Answered, e.Asked)
}

// LimitError is a request cut off by a limit of WithLimit.
type LimitError struct{ Limit string }

func (e *LimitError) Error() string { return e.Limit + " ran out" }

func (e *LimitError) Unwrap() error { return context.DeadlineExceeded }

// RateLimitError: the rate limit would hold a request past its time limit.
type RateLimitError struct {
	By    string
	Wait  time.Duration
	Left  time.Duration
	Limit string
}

func (e *RateLimitError) Error() string {
	by := "the service's " + e.By + " header"
	if e.By == pacing.ByRefusals {
		by = "the service's " + pacing.ByRefusals
	}
	limit := e.Limit
	if limit == "" {
		limit = "the operation's time limit"
	}
	return fmt.Sprintf("rate-limited by %s: the request would wait %s to be sent, past the end of %s, %s away, so it was not sent",
		by, roundWait(e.Wait), limit, roundWait(max(e.Left, 0)))
}

// ConnectFailure is why no connection to the service could be made.
type ConnectFailure string

const (
	UntrustedCertificate    ConnectFailure = "untrusted certificate"
	CertificateNameMismatch ConnectFailure = "certificate name mismatch"
	CertificateExpired      ConnectFailure = "certificate expired"
	ProxyRefused            ConnectFailure = "proxy refused"
	ProxyAuthRequired       ConnectFailure = "proxy authentication required"
	UnknownHost             ConnectFailure = "unknown host"
	ServiceSpeaksHTTP       ConnectFailure = "service speaks http"
	ServiceSpeaksTLS        ConnectFailure = "service speaks https"
	// Unreachable, NoAnswer and ProxyNotAnswering may change: they are retried.
	Unreachable       ConnectFailure = "unreachable"
	NoAnswer          ConnectFailure = "no answer"
	ProxyNotAnswering ConnectFailure = "proxy not answering"
)

// ConnectError: no connection, or no answer. It never holds proxy credentials.
type ConnectError struct {
	Failure          ConnectFailure
	Host             string
	Proxy            string
	ProxyCredentials bool
	ProxyStatus      int
	Cert             *x509.Certificate
	Err              error
	Timeout          time.Duration
	// Stalled is the status of a NoAnswer whose body did not come whole.
	Stalled int
	// StoppedBy ended the Client's retries of reaching the service.
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

// Permanent: a proxy that refuses a tunnel is a wrong setting, unless it timed out.
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

func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
