package validate

import (
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// The fuzz targets check what each validator promises, for any input: an
// accepted value has the promised shape, a refused one gets a message that
// never shows credentials and stays readable. `make test` runs their seeds;
// `make fuzz` runs each for a while.

func FuzzUUID(f *testing.F) {
	for _, s := range []string{"00000000-0000-4000-8000-000000000001", "7B0C6F5E-3F7C-4C55-9D55-1C6F3E0D2A10",
		"", "{7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10}", "urn:uuid:7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10", "7b0c6f5e3f7c4c559d551c6f3e0d2a10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := UUID(s)
		_, perr := uuid.Parse(s)
		canonical := len(s) == 36 && perr == nil
		if (err == nil) != canonical {
			t.Fatalf("UUID(%q) = %v, but it is canonical: %v", s, err, canonical)
		}
	})
}

func FuzzBaseURL(f *testing.F) {
	for _, s := range []string{"https://api.example.com", "http://127.0.0.1:8089/", "http://[::1]:1/", "https://u:secret-pass@api.example.com",
		"http://api.example.com", "ftp://x", "https://a/b?c#d", "https://%zz", "//host", "https://localhost:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := BaseURL(s)
		u, perr := url.Parse(s)
		if err == nil {
			secure := u != nil && (u.Scheme == "https" || u.Scheme == "http" && isLoopback(u.Hostname()))
			if perr != nil || !secure || u.User != nil || u.Hostname() == "" || u.RawQuery != "" || u.Fragment != "" {
				t.Fatalf("BaseURL accepted %q", s)
			}
			return
		}
		checkNoPassword(t, s, u, perr, err)
	})
}

func FuzzAccountURL(f *testing.F) {
	for _, s := range []string{"https://acme.example-helpdesk.com", "https://acme.example.com:8443/", "https://user:hunter22@acme.example.com",
		"http://acme.example.com", "https://acme.example.com/path", "https://acme.example.com?x", "https://", "acme.example.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := AccountURL(s)
		u, perr := url.Parse(s)
		if err == nil {
			if perr != nil || u.Scheme != "https" || u.User != nil || u.Hostname() == "" || u.RawQuery != "" ||
				u.Fragment != "" || (u.Path != "" && u.Path != "/") {
				t.Fatalf("AccountURL accepted %q", s)
			}
			return
		}
		checkNoPassword(t, s, u, perr, err)
	})
}

// checkNoPassword fails when a refused URL's password shows in the message.
func checkNoPassword(t *testing.T, s string, u *url.URL, perr, err error) {
	t.Helper()
	if perr != nil || u.User == nil {
		return
	}
	p, ok := u.User.Password()
	if !ok || len(p) < 4 || strings.Contains(strings.Replace(s, p, "", 1), p) {
		return // too short, or also elsewhere in the value, to tell
	}
	if strings.Contains(err.Error(), p) {
		t.Fatalf("the message shows the password of %q: %v", s, err)
	}
}

func FuzzEmail(f *testing.F) {
	for _, s := range []string{"agent@acme.com", "first.last+tag@sub.example.co.uk", "Agent <agent@acme.com>", " agent@acme.com",
		"agent", "@acme.com", "agent@", "\"quoted name\"@example.com", "a@b@c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Email(s) != nil {
			return
		}
		a, err := mail.ParseAddress(s)
		if err != nil || a.Name != "" || a.Address != s || !strings.Contains(s, "@") {
			t.Fatalf("Email accepted %q", s)
		}
	})
}

func FuzzStreams(f *testing.F) {
	for _, s := range []string{"tickets", "tickets,chats", "tickets,tickets", "", "gossip", "chats,\xff\xfe", strings.Repeat("x", 500)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names := strings.Split(s, ",")
		if s == "" {
			names = nil
		}
		err := Streams(names)
		valid := len(names) > 0
		for i, n := range names {
			valid = valid && slices.Contains(client.CustomerServiceStreams, n) && !slices.Contains(names[:i], n)
		}
		if (err == nil) != valid {
			t.Fatalf("Streams(%q) = %v, want valid: %v", names, err, valid)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Fatalf("a message of %d bytes for %q", len(err.Error()), s)
		}
	})
}
