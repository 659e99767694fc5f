// Package validate holds the provider's checks of user input, as plain
// functions that the schema's validators and the fuzz tests share.
package validate

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// UUID accepts a UUID in its canonical hexadecimal form.
func UUID(s string) error {
	if !uuidRE.MatchString(s) {
		return fmt.Errorf("%q is not a UUID: expected the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx in hexadecimal digits", s)
	}
	return nil
}

// BaseURL accepts an absolute https URL, or http on a loopback host.
func BaseURL(s string) error {
	u, err := url.Parse(s)
	shown := redactQuery(s)
	switch {
	case err != nil:
		// The text is not echoed: it may hold credentials that did not parse.
		return errors.New("the value is not a URL: expected the form https://host[/path]")
	case u.User != nil:
		return fmt.Errorf("%q must not carry user information: the API key goes in api_key", redactUser(u))
	case u.Scheme == "" || u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%q is not an absolute URL: expected the form https://host[/path]", shown)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return fmt.Errorf("%q must not have a query or fragment", shown)
	}
	if err := Host(u.Host); err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%q uses http on a host that is not loopback: use https, or http only on 127.x.x.x, ::1 or localhost", shown)
	default:
		return fmt.Errorf("%q has scheme %q: use https, or http only on a loopback host", shown, u.Scheme)
	}
}

// Host accepts the host part of a URL as url.Parse leaves it.
func Host(hostport string) error {
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.HasSuffix(hostport, "]") {
		host, port = hostport[:i], hostport[i+1:]
		if port == "" {
			return errors.New("the port after the colon is empty: give a port from 1 to 65535, or no colon")
		}
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("the port %s is not from 1 to 65535", printable(port))
		}
	}
	if inner, ok := strings.CutPrefix(host, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		if ip := net.ParseIP(inner); !ok || ip == nil || !strings.Contains(inner, ":") {
			return fmt.Errorf("[%s] is not an IPv6 address", printable(strings.Trim(inner, "[]")))
		}
		return nil
	}
	if net.ParseIP(host) != nil && !strings.Contains(host, ":") {
		return nil // IPv4; IPv6 only in brackets
	}
	return HostName(host)
}

// HostName accepts an RFC 1123 host name whose last label is not all
// digits, so that a mistyped IPv4 address is not taken for a name.
func HostName(h string) error {
	shown := printable(h)
	if h == "" || len(h) > 253 {
		return fmt.Errorf("the host name %q is not 1 to 253 characters long", shown)
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return fmt.Errorf("the host name %q has a label (a part between dots) that is empty or longer than 63 characters", shown)
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("the host name %q has a label that begins or ends with a hyphen", shown)
		}
		for _, r := range l {
			if !isLDH(r) {
				return fmt.Errorf("the host name %q may hold only ASCII letters, digits, hyphens and dots (write an international name in its xn-- form)", shown)
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return fmt.Errorf("%q is neither an IP address nor a host name: a host name's last label is not all digits", shown)
	}
	return nil
}

// redactQuery hides what follows a ? or #: a token may ride there.
func redactQuery(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		return s[:i+1] + "REDACTED"
	}
	return s
}

func redactUser(u *url.URL) string {
	c := *u
	c.User = url.User("REDACTED")
	return redactQuery(c.String())
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func Duration(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: expected a number with a unit, such as \"30s\" or \"2m\"", s)
	}
	if d <= 0 {
		return errors.New("the duration must be positive")
	}
	return nil
}

// The values of if_running.
const (
	IfRunningFail = "fail"
	IfRunningWait = "wait"
)

func IfRunning(s string) error {
	if s != IfRunningFail && s != IfRunningWait {
		return fmt.Errorf("%q is not %q or %q", printable(s), IfRunningFail, IfRunningWait)
	}
	return nil
}

// AccountURL accepts https://<account_host>, as the service's form asks.
func AccountURL(s string) error {
	u, err := url.Parse(s)
	shown := redactQuery(s)
	switch {
	case err != nil:
		return errors.New("the value is not a URL: expected the form https://<account_host>")
	case u.User != nil:
		return fmt.Errorf("%q must not carry user information: the platform's API key goes in the token", redactUser(u))
	case u.Scheme == "" || u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%q is not an absolute URL: expected the form https://<account_host>", shown)
	case u.Scheme != "https":
		return fmt.Errorf("%q must use https", shown)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return fmt.Errorf("%q must not have a query or fragment", shown)
	case u.Path != "" && u.Path != "/":
		return fmt.Errorf("%q must not have a path: give the account's address only, such as https://acme.example.com", shown)
	}
	if err := Host(u.Host); err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	return nil
}

func isLDH(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-'
}

// Email accepts a bare e-mail address within RFC 5321's limits.
func Email(s string) error {
	a, err := mail.ParseAddress(s)
	at := strings.LastIndexByte(s, '@')
	if err != nil || a.Name != "" || a.Address != s || at < 0 {
		return fmt.Errorf("%q is not an e-mail address: expected the form name@example.com", printable(s))
	}
	local, domain := s[:at], s[at+1:]
	switch {
	case len(local) > 64:
		return fmt.Errorf("%q is not an e-mail address: the part before the @ is longer than 64 characters", printable(s))
	case len(s) > 254:
		return fmt.Errorf("%q is not an e-mail address: it is longer than 254 characters", printable(s))
	case !strings.Contains(domain, "."):
		return fmt.Errorf("%q is not an e-mail address: the domain after the @ needs a dot, such as example.com", printable(s))
	}
	if err := HostName(domain); err != nil {
		return fmt.Errorf("%q is not an e-mail address: %w", printable(s), err)
	}
	return nil
}

// Name refuses control characters: the service derives the job's schema
// from the name.
func Name(s string) error {
	if err := NotBlank(s); err != nil {
		return err
	}
	if strings.IndexFunc(s, lineBreaking) >= 0 {
		return fmt.Errorf("%q holds a control character or a line break (such as a newline, a tab or U+2028)", printable(s))
	}
	return nil
}

// NotBlank accepts a string with at least one character that shows.
func NotBlank(s string) error {
	if strings.IndexFunc(s, visible) < 0 {
		return errors.New("the value is blank: it has no character that shows, only spaces or invisible characters, or none")
	}
	return nil
}

// visible also refuses what renders as nothing, such as U+200B or U+3164.
func visible(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsControl(r) &&
		!unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) && r != '\u2800'
}

func lineBreaking(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// APIKey accepts a key a header carries as is: file() keeps a trailing
// newline, and a header's ends are trimmed. Its error never shows the key.
func APIKey(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return errors.New("the API key is empty")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return errors.New("the API key holds a control character, such as the newline that file() keeps at the end of a file: " +
			"it cannot be sent in a header (trimspace() removes one at either end)")
	case strings.TrimSpace(s) != s:
		return errors.New("the API key begins or ends with a space, which a header would drop: remove it (trimspace() does)")
	}
	return nil
}

// Token accepts a secret that is not blank, and never shows it.
func Token(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("the token is empty")
	}
	return nil
}

// WholeNumber accepts a whole number from lo to hi; Terraform's numbers
// are arbitrary-precision decimals.
func WholeNumber(f *big.Float, lo, hi int64) error {
	switch {
	case f == nil || f.IsInf():
		return errors.New("the value is not a number")
	case !f.IsInt():
		return fmt.Errorf("%s is not a whole number", f.Text('g', -1))
	case f.Cmp(new(big.Float).SetInt64(lo)) < 0 || f.Cmp(new(big.Float).SetInt64(hi)) > 0:
		return fmt.Errorf("%s is not between %d and %d", f.Text('g', 20), lo, hi)
	}
	return nil
}

// CustomerServiceStreams are the connector's streams, in the service's order.
var CustomerServiceStreams = []string{
	"chats", "messages", "events", "contacts", "tickets",
	"ticket_interactions", "ticket_tags", "ticket_groups", "ticket_forms",
	"ticket_priorities", "ticket_types", "ticket_channels", "ticket_status",
	"organizations", "survey_submissions",
}

// Streams accepts distinct names of CustomerServiceStreams.
func Streams(names []string) error {
	if len(names) == 0 {
		return errors.New("at least one stream is needed: leave streams out for all of them")
	}
	for i, n := range names {
		if !slices.Contains(CustomerServiceStreams, n) {
			return fmt.Errorf("%q is not a stream of the customer-service connector", printable(n))
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%q is listed twice: each stream may appear once", n)
		}
	}
	return nil
}

func printable(s string) string {
	s = strings.ToValidUTF8(s, "\ufffd")
	if utf8.RuneCountInString(s) > 64 {
		return string([]rune(s)[:64]) + "…"
	}
	return s
}

// NormalizePEM trims each line: a heredoc indents lines, and $(cat file)
// keeps a Windows file's last carriage return.
func NormalizePEM(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n") + "\n"
}

// CACertificate accepts PEM certificates as NormalizePEM leaves them, and
// refuses a private key without echoing any of it.
func CACertificate(s string) error {
	rest := []byte(NormalizePEM(s))
	n := 0
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		n++
		if b.Type != "CERTIFICATE" {
			if strings.Contains(b.Type, "PRIVATE KEY") {
				return fmt.Errorf("PEM block %d is a private key (%s): give the CA's certificate alone, and keep every key out of the configuration", n, b.Type)
			}
			return fmt.Errorf("PEM block %d is a %s, not a CERTIFICATE", n, b.Type)
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return fmt.Errorf("PEM block %d is not a certificate that parses: %w", n, err)
		}
	}
	switch {
	case n > 0:
		return nil
	case strings.Contains(s, "-----BEGIN"):
		return errors.New("the PEM block is cut or damaged: it needs its -----BEGIN CERTIFICATE----- and -----END CERTIFICATE----- lines, each on a line of its own")
	case strings.TrimSpace(s) == "":
		return errors.New("the value is empty")
	case !strings.ContainsAny(strings.TrimSpace(s), "\n"):
		return errors.New("the value is one line, without a PEM certificate: give the certificate's text, such as file(\"ca.pem\"), not a file's path or name")
	default:
		return errors.New("the value holds no PEM certificate (a block from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----)")
	}
}
