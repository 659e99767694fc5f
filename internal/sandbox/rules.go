package sandbox

// These rules are written from the contract, not taken from the provider,
// so that a rule the provider gets wrong is not mirrored by the service its
// acceptance tests run against (README.md, "Connector rules").

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// AllStreams are the connector's streams, in the service's order.
var AllStreams = []string{
	"chats", "messages", "events", "contacts", "tickets",
	"ticket_interactions", "ticket_tags", "ticket_groups", "ticket_forms",
	"ticket_priorities", "ticket_types", "ticket_channels", "ticket_status",
	"organizations", "survey_submissions",
}

const maxNameRunes = 255

// checkName: "1 to 255 characters".
func checkName(s string) error {
	if n := utf8.RuneCountInString(s); n < 1 || n > maxNameRunes {
		return fmt.Errorf("must be 1 to %d characters, got %d", maxNameRunes, n)
	}
	return nil
}

// connectorKind is the only connector_name the contract knows.
const connectorKind = "customer_service"

// checkKind: "always customer_service for this kind of connector".
func checkKind(s string) error {
	if s != connectorKind {
		return fmt.Errorf("must be %q", connectorKind)
	}
	return nil
}

// checkURL: the service's form asks for https://<account_host>, so no path
// beyond "/" and no user information either.
func checkURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("must be a URL of the form https://<account_host>")
	case u.Scheme != "https" || u.Hostname() == "":
		return fmt.Errorf("%q is not an absolute https URL of a host", s)
	case u.User != nil:
		return errors.New("must not carry user information")
	case u.Path != "" && u.Path != "/":
		return fmt.Errorf("%q must not have a path: the form is https://<account_host>", s)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return fmt.Errorf("%q must not have a query or fragment", s)
	}
	return nil
}

// checkToken: "required on create". An empty string is no token.
func checkToken(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// checkEmail: a bare RFC 5322 address, without a display name.
func checkEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return fmt.Errorf("%q is not an e-mail address", s)
	}
	return nil
}

func checkStreams(names []string) error {
	for i, n := range names {
		if !slices.Contains(AllStreams, n) {
			return fmt.Errorf("%q is not a stream of the customer-service connector", n)
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%q is listed twice: each stream may appear once", n)
		}
	}
	return nil
}
