package sandbox

// The sandbox's own rules for a connector, written from the contract
// (internal/client/README.md, "The connector's wire contract" and
// "Streams"), not taken from the provider: a rule that the provider gets
// wrong is then not mirrored by the service its acceptance tests run
// against. Where the provider is stricter than the contract, it refuses at
// plan time what the sandbox would accept; where it is looser, the sandbox
// answers 400. README.md, "Connector rules", sums them up.

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// AllStreams are the streams of the customer-service connector, in the
// order the service lists them (internal/client/README.md, "Streams").
var AllStreams = []string{
	"chats", "messages", "events", "contacts", "tickets",
	"ticket_interactions", "ticket_tags", "ticket_groups", "ticket_forms",
	"ticket_priorities", "ticket_types", "ticket_channels", "ticket_status",
	"organizations", "survey_submissions",
}

// maxNameRunes is the longest name the contract allows, in characters.
const maxNameRunes = 255

// checkName: "1 to 255 characters".
func checkName(s string) error {
	if n := utf8.RuneCountInString(s); n < 1 || n > maxNameRunes {
		return fmt.Errorf("must be 1 to %d characters, got %d", maxNameRunes, n)
	}
	return nil
}

// checkKind: "always customer_service for this kind of connector".
func checkKind(s string) error {
	if s != connectorKind {
		return fmt.Errorf("must be %q", connectorKind)
	}
	return nil
}

// checkURL: an absolute https URL of a host, without query or fragment,
// of the form https://<account_host> that the service's form asks for: so
// no path beyond "/" and no user information either.
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

// checkEmail: "an e-mail address": an address as RFC 5322 writes it, bare,
// without a display name, angle brackets or spaces around it.
func checkEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return fmt.Errorf("%q is not an e-mail address", s)
	}
	return nil
}

// checkStreams: names of AllStreams, each at most once. An empty list
// breaks neither rule.
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
