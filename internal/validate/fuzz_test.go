package validate

import (
	"math"
	"math/big"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/uuid"
	"golang.org/x/net/http/httpguts"
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
		"http://api.example.com", "ftp://x", "https://a/b?c#d", "https://%zz", "//host", "https://localhost:0",
		"https://api.example.com:99999/v1", "https://api.example.com:/v1", "https://..", "https://-", "http://127.8.9.10:8089", "http://[::ffff:127.0.0.1]/",
		"https://[fe80::1%25en0]/", "https://1.2.3", "https://xn--bcher-kva.example/api"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := BaseURL(s)
		u, perr := url.Parse(s)
		if err == nil {
			secure := u != nil && (u.Scheme == "https" || u.Scheme == "http" && isLoopback(u.Hostname()))
			if perr != nil || !secure || u.User != nil || !validHost(u) || u.RawQuery != "" || u.Fragment != "" {
				t.Fatalf("BaseURL accepted %q", s)
			}
			return
		}
		checkNoPassword(t, s, u, perr, err)
	})
}

func FuzzAccountURL(f *testing.F) {
	for _, s := range []string{"https://acme.example-helpdesk.com", "https://acme.example.com:8443/", "https://user:hunter22@acme.example.com",
		"http://acme.example.com", "https://acme.example.com/path", "https://acme.example.com?x", "https://", "acme.example.com",
		"https://acme.example.com:99999", "https://acme.example.com:", "https://..", "https://-", "https://acme.example.com:0",
		"https://192.0.2.7:443", "https://[2001:db8::7]", "https://-acme.example.com", "https://acme_1.example.com", "https://256.1.1.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := AccountURL(s)
		u, perr := url.Parse(s)
		if err == nil {
			if perr != nil || u.Scheme != "https" || u.User != nil || !validHost(u) || u.RawQuery != "" ||
				u.Fragment != "" || (u.Path != "" && u.Path != "/") {
				t.Fatalf("AccountURL accepted %q", s)
			}
			return
		}
		checkNoPassword(t, s, u, perr, err)
	})
}

// labelRE is one label of a host name, as RFC 1123 has it.
var labelRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// validHost is the fuzz tests' own statement of an accepted host: an IP
// address (IPv6 in brackets), or a host name of RFC 1123 labels whose last
// is not all digits; a port, if any, from 1 to 65535.
func validHost(u *url.URL) bool {
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return false
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return false
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); ip != nil {
		return strings.Contains(h, ":") == strings.HasPrefix(u.Host, "[")
	}
	return validHostName(h)
}

func validHostName(h string) bool {
	labels := strings.Split(h, ".")
	if len(h) == 0 || len(h) > 253 || strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return false
	}
	for _, l := range labels {
		if !labelRE.MatchString(l) {
			return false
		}
	}
	return true
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
		"agent", "@acme.com", "agent@", "\"quoted name\"@example.com", "a@b@c", "a@b", strings.Repeat("l", 65) + "@acme.com",
		"agent@acme..com", "agent@[192.0.2.1]", "agent@-acme.com", "agent@acme.com."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Email(s)
		if err != nil {
			if len(err.Error()) > 400 {
				t.Fatalf("a message of %d bytes for %q", len(err.Error()), s)
			}
			return
		}
		a, perr := mail.ParseAddress(s)
		at := strings.LastIndex(s, "@")
		if perr != nil || a.Name != "" || a.Address != s || at < 0 || at > 64 || len(s) > 254 ||
			!strings.Contains(s[at+1:], ".") || !validHostName(s[at+1:]) {
			t.Fatalf("Email accepted %q", s)
		}
	})
}

func FuzzName(f *testing.F) {
	for _, s := range []string{"Support desk", "", "   ", "desk\a", "desk\n", "\u3000", "Zürich — EU", "\xff\xfe", "\u200b", "a\u2028b", "\u3164", "\u2800"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// What is left once spaces, invisible format characters and control
		// characters are dropped.
		shown := strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2800' ||
				unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) {
				return -1
			}
			return r
		}, s)
		blank := shown == ""
		breaks := strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' })
		if err := Name(s); (err == nil) == (blank || breaks) {
			t.Fatalf("Name(%q) = %v, but blank: %v, control characters or line breaks: %v", s, err, blank, breaks)
		}
	})
}

func FuzzAPIKey(f *testing.F) {
	for _, s := range []string{"sandbox-api-key", "Token abc123", "key\n", "key\r\n", " key", "key ", "", "k\x00ey", "k\tey", "ключ"} {
		f.Add(s)
	}
	// Each message is one of a fixed few: none can show the key.
	fixed := map[string]bool{}
	for _, s := range []string{"", "k\n", " k"} {
		fixed[APIKey(s).Error()] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := APIKey(s)
		if err == nil {
			// What the client sends must reach the service unchanged.
			if !httpguts.ValidHeaderFieldValue(s) || strings.TrimSpace(s) != s || s == "" {
				t.Fatalf("APIKey accepted %q, which a header cannot carry as it is", s)
			}
			return
		}
		if !fixed[err.Error()] {
			t.Fatalf("APIKey(%q) gives a message of its own, which may show the key: %v", s, err)
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
			valid = valid && slices.Contains(CustomerServiceStreams, n) && !slices.Contains(names[:i], n)
		}
		if (err == nil) != valid {
			t.Fatalf("Streams(%q) = %v, want valid: %v", names, err, valid)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Fatalf("a message of %d bytes for %q", len(err.Error()), s)
		}
	})
}

func FuzzWholeNumber(f *testing.F) {
	for _, x := range []float64{0, 4, 10, 1.5, -1, 11, 1e30, -0.5, math.MaxInt64} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) {
			return // not a Terraform number
		}
		err := WholeNumber(big.NewFloat(x), 0, 10)
		if valid := x == math.Trunc(x) && x >= 0 && x <= 10; (err == nil) != valid {
			t.Fatalf("WholeNumber(%v) = %v, want valid: %v", x, err, valid)
		}
	})
}
