package sandbox

import (
	"strings"
	"testing"
)

func TestRules_allStreams(t *testing.T) {
	t.Parallel()
	// internal/client/README.md, "Streams", in its order.
	spec := "chats, messages, events, contacts, tickets, ticket_interactions, ticket_tags, ticket_groups, ticket_forms, " +
		"ticket_priorities, ticket_types, ticket_channels, ticket_status, organizations, survey_submissions"
	if got := strings.Join(AllStreams, ", "); got != spec {
		t.Errorf("AllStreams = %s, want %s", got, spec)
	}
}

// ruleCase is a value and whether a rule accepts it; want is part of the
// message of a refusal.
type ruleCase struct {
	in   string
	ok   bool
	want string
}

func checkRule(t *testing.T, name string, rule func(string) error, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		err := rule(c.in)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s(%q) = %v, want accepted", name, c.in, err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s(%q) = %v, want an error with %q", name, c.in, err, c.want)
		}
	}
}

func TestRules_checkName(t *testing.T) {
	t.Parallel()
	checkRule(t, "checkName", checkName, []ruleCase{
		{in: "Support desk", ok: true},
		{in: "n", ok: true},
		{in: strings.Repeat("é", 255), ok: true}, // characters, not bytes
		{in: " ", ok: true},                      // the contract asks for characters, not visible ones
		{in: "", want: "must be 1 to 255 characters, got 0"},
		{in: strings.Repeat("n", 256), want: "got 256"},
	})
}

func TestRules_checkKind(t *testing.T) {
	t.Parallel()
	checkRule(t, "checkKind", checkKind, []ruleCase{
		{in: "customer_service", ok: true},
		{in: "Customer_Service", want: `must be "customer_service"`},
		{in: "", want: `must be "customer_service"`},
	})
}

func TestRules_checkURL(t *testing.T) {
	t.Parallel()
	checkRule(t, "checkURL", checkURL, []ruleCase{
		{in: "https://acme.example-helpdesk.com", ok: true},
		{in: "https://acme.example.com/", ok: true},
		{in: "https://acme.example.com:8443", ok: true},
		{in: "https://127.0.0.1", ok: true},
		{in: "https://acme_support.example.com", ok: true}, // a host; RFC 1123 is not the contract's
		{in: "http://acme.example.com", want: "not an absolute https URL"},
		{in: "acme.example.com", want: "not an absolute https URL"},
		{in: "https://", want: "not an absolute https URL"},
		{in: "https:///path", want: "not an absolute https URL"},
		{in: "https://acme.example.com/path", want: "must not have a path"},
		{in: "https://acme.example.com?q=1", want: "query or fragment"},
		{in: "https://acme.example.com?", want: "query or fragment"},
		{in: "https://acme.example.com#f", want: "query or fragment"},
		{in: "https://acme.example.com#", want: "query or fragment"},
		{in: "https://user:pass@acme.example.com", want: "user information"},
		{in: "https://acme.example.com:port", want: "https://<account_host>"},
		{in: " https://acme.example.com", want: "https://<account_host>"},
	})
}

func TestRules_checkToken(t *testing.T) {
	t.Parallel()
	checkRule(t, "checkToken", checkToken, []ruleCase{
		{in: "platform-key-1", ok: true},
		{in: " ", ok: true}, // present and not empty: the contract says no more
		{in: "", want: "must not be empty"},
	})
}

func TestRules_checkEmail(t *testing.T) {
	t.Parallel()
	checkRule(t, "checkEmail", checkEmail, []ruleCase{
		{in: "agent@acme.com", ok: true},
		{in: "first.last+desk@mail.acme.co.uk", ok: true},
		{in: "agent@localhost", ok: true}, // an address, though not one the provider takes
		{in: "not-an-email", want: "is not an e-mail address"},
		{in: "Agent <agent@acme.com>", want: "is not an e-mail address"},
		{in: "<agent@acme.com>", want: "is not an e-mail address"},
		{in: " agent@acme.com", want: "is not an e-mail address"},
		{in: "agent@", want: "is not an e-mail address"},
		{in: "", want: "is not an e-mail address"},
	})
}

func TestRules_checkStreams(t *testing.T) {
	t.Parallel()
	for _, ok := range [][]string{nil, {}, {"chats"}, {"tickets", "chats"}, AllStreams} {
		if err := checkStreams(ok); err != nil {
			t.Errorf("checkStreams(%q) = %v", ok, err)
		}
	}
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"chats", "gossip"}, `"gossip" is not a stream`},
		{[]string{"Chats"}, `"Chats" is not a stream`},
		{[]string{""}, `"" is not a stream`},
		{[]string{"chats", "tickets", "chats"}, `"chats" is listed twice`},
	} {
		if err := checkStreams(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("checkStreams(%q) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}
