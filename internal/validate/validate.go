// Package validate holds the checks of user input that the provider makes
// before any request: each is a plain function, written once, so that the
// schema's validators and the fuzz tests share it.
package validate

import (
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// UUID accepts a UUID in its canonical 8-4-4-4-12 hexadecimal form.
func UUID(s string) error {
	if !uuidRE.MatchString(s) {
		return fmt.Errorf("%q is not a UUID: expected the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx in hexadecimal digits", s)
	}
	return nil
}

// BaseURL accepts an absolute https URL, or an http URL whose host is a
// loopback address or localhost. It may have a path; it may not carry user
// information, a query or a fragment.
func BaseURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		// The text is not echoed: it may hold credentials that did not parse.
		return errors.New("the value is not a URL: expected the form https://host[/path]")
	case u.User != nil:
		return fmt.Errorf("%q must not carry user information: the API key goes in api_key", redactUser(u))
	case u.Scheme == "" || u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%q is not an absolute URL: expected the form https://host[/path]", s)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return fmt.Errorf("%q must not have a query or fragment", s)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%q uses http on a host that is not loopback: use https, or http only on 127.0.0.1, ::1 or localhost", s)
	default:
		return fmt.Errorf("%q has scheme %q: use https, or http only on a loopback host", s, u.Scheme)
	}
}

func redactUser(u *url.URL) string {
	c := *u
	c.User = url.User("REDACTED")
	return c.String()
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Duration accepts a positive Go duration such as "30s" or "2m".
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

// AccountURL accepts the address of an account on the customer-service
// platform: an absolute https URL of a host (a port is allowed), with no path
// beyond "/", no query, no fragment and no user information.
func AccountURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("the value is not a URL: expected the form https://<account_host>")
	case u.User != nil:
		return fmt.Errorf("%q must not carry user information: the platform's API key goes in the token", redactUser(u))
	case u.Scheme == "" || u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%q is not an absolute URL: expected the form https://<account_host>", s)
	case u.Scheme != "https":
		return fmt.Errorf("%q must use https", s)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return fmt.Errorf("%q must not have a query or fragment", s)
	case u.Path != "" && u.Path != "/":
		return fmt.Errorf("%q must not have a path: give the account's address only, such as https://acme.example.com", s)
	}
	return nil
}

// Email accepts a bare e-mail address such as agent@example.com: no display
// name, no angle brackets, no surrounding spaces.
func Email(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || !strings.Contains(s, "@") {
		return fmt.Errorf("%q is not an e-mail address: expected the form name@example.com", s)
	}
	return nil
}

// Token accepts a secret that is not empty or blank. Its error never shows
// the value.
func Token(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("the token is empty")
	}
	return nil
}

// Streams accepts a non-empty list of distinct names of the customer-service
// connector's streams.
func Streams(names []string) error {
	if len(names) == 0 {
		return errors.New("at least one stream is needed: leave streams out for all of them")
	}
	for i, n := range names {
		if !slices.Contains(client.CustomerServiceStreams, n) {
			return fmt.Errorf("%q is not a stream of the customer-service connector", printable(n))
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%q is listed twice: each stream may appear once", n)
		}
	}
	return nil
}

// printable keeps an unknown value readable in a message: invalid UTF-8 and
// very long values are cut.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "\ufffd")
	if utf8.RuneCountInString(s) > 64 {
		return string([]rune(s)[:64]) + "…"
	}
	return s
}
