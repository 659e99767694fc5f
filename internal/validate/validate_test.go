package validate

import (
	"crypto/x509"
	"math"
	"math/big"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
	"github.com/google/uuid"
	"golang.org/x/net/http/httpguts"
)

func TestValidate_uuid(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"00000000-0000-4000-8000-000000000001", "7B0C6F5E-3F7C-4C55-9D55-1C6F3E0D2A10"} {
		if err := UUID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "workspace", "7b0c6f5e3f7c4c559d551c6f3e0d2a10", "{7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10}",
		"urn:uuid:7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10", "7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a1g", " 7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10"} {
		if err := UUID(bad); err == nil || !strings.Contains(err.Error(), "is not a UUID") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestValidate_baseURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"https://api.example.com", "https://api.example.com/", "https://api.example.com:8443/v1/",
		"http://127.0.0.1:8089", "http://127.5.0.1/", "http://127.255.255.254:65535", "http://localhost:8089", "http://LOCALHOST", "http://[::1]:8089/",
		"https://10.0.0.1:1/api/v1", "https://[2001:db8::1]/", "https://xn--bcher-kva.example"} {
		if err := BaseURL(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"http://api.example.com", "not loopback"},
		{"http://10.0.0.1", "not loopback"},
		{"http://127.0.0.1.example.com", "not loopback"},
		{"ftp://api.example.com", `scheme "ftp"`},
		{"api.example.com", "not an absolute URL"},
		{"/v1", "not an absolute URL"},
		{"", "not an absolute URL"},
		{"https://", "not an absolute URL"},
		{"https://api.example.com/?a=1", "query or fragment"},
		{"https://api.example.com/?", "query or fragment"},
		{"https://api.example.com/#top", "query or fragment"},
		{"https://user:hunter2@api.example.com", "user information"},
		{"https://api.example.com/v1?api_key=hunter2", "query or fragment"},
		{"https://api.example.com/v1#token=hunter2", "query or fragment"},
		{"https://user:pw@api.example.com/?key=hunter2", "user information"},
		{"api.example.com?key=hunter2", "not an absolute URL"},
		{"http://api.example.com?key=hunter2", "query or fragment"},
		{"https://api.example.com:port", "not a URL"},
		{"https://api.example.com:99999", "port 99999 is not from 1 to 65535"},
		{"https://api.example.com:0/v1", "port 0 is not from 1 to 65535"},
		{"https://api.example.com:/v1", "port after the colon is empty"},
		{"https://../v1", "label (a part between dots) that is empty"},
		{"https://-/", "begins or ends with a hyphen"},
		{"https://api_1.example.com", "only ASCII letters, digits, hyphens and dots"},
		{"https://256.1.1.1", "neither an IP address nor a host name"},
		{"http://[fe80::1%25en0]:8089", "is not an IPv6 address"},
	} {
		err := BaseURL(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the password: %v", c.in, err)
		}
	}
}

func TestValidate_caCertificate(t *testing.T) {
	t.Parallel()
	pems := testCA(t)
	caPEM, leafPEM, keyPEM := pems[0], pems[1], pems[2]
	for name, ok := range map[string]string{
		"one CA":                      caPEM,
		"a bundle":                    caPEM + leafPEM,
		"a bundle with comments":      "# ACME root\n" + caPEM + "\n# ACME issuing\n" + leafPEM,
		"CRLF line ends":              strings.ReplaceAll(caPEM, "\n", "\r\n"),
		"indented, as in a heredoc":   "\n\n" + caPEM + "\n\n",
		"a self-signed server's only": leafPEM,
		"indented by a heredoc":       "    " + strings.ReplaceAll(strings.TrimSpace(caPEM), "\n", "\n    "),
		"$(cat) of a CRLF file":       strings.TrimSuffix(strings.ReplaceAll(caPEM, "\n", "\r\n"), "\n"),
		"old Mac line ends":           strings.ReplaceAll(caPEM, "\n", "\r"),
	} {
		if err := CACertificate(ok); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	damaged := strings.Replace(caPEM, caPEM[40:60], strings.Repeat("A", 20), 1)
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "the value is empty"},
		{"blank", " \n ", "the value is empty"},
		{"a path", "/etc/ssl/acme-ca.pem", `not a file's path`},
		{"text", "not\na certificate", "holds no PEM certificate"},
		{"cut", caPEM[:len(caPEM)-30], "cut or damaged"},
		{"a private key", keyPEM, "PEM block 1 is a private key (PRIVATE KEY)"},
		{"a key after a certificate", caPEM + keyPEM, "PEM block 2 is a private key"},
		{"another block", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "PEM block 1 is a PUBLIC KEY, not a CERTIFICATE"},
		{"a certificate that does not parse", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "PEM block 1 is not a certificate that parses"},
		{"damaged base64", damaged, ""},
	} {
		err := CACertificate(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
			continue
		}
		if mid := len(c.in) / 2; len(c.in) > 40 && strings.Contains(err.Error(), c.in[mid:mid+16]) {
			t.Errorf("%s: the error echoes the value: %v", c.name, err)
		}
	}
}

func TestValidate_duration(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"30s", "2m", "1h30m", "500ms"} {
		if err := Duration(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "30", "soon", "0s", "-5s"} {
		if err := Duration(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestValidate_ifRunning(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"fail", "wait"} {
		if err := IfRunning(ok); err != nil {
			t.Errorf("IfRunning(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Wait", "FAIL", " wait", "wait ", "queue"} {
		if err := IfRunning(bad); err == nil {
			t.Errorf("IfRunning(%q) passed", bad)
		}
	}
}

func TestValidate_accountURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"https://acme.example-helpdesk.com", "https://acme.example-helpdesk.com/", "https://acme.example.com:8443", "HTTPS://acme.example.com",
		"https://a-1.example.com:65535", "https://192.0.2.7", "https://[2001:db8::7]:443/", "https://desk", "https://" + strings.Repeat("a", 63) + ".example.com"} {
		if err := AccountURL(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"http://acme.example.com", "must use https"},
		{"http://127.0.0.1", "must use https"},
		{"ftp://acme.example.com", "must use https"},
		{"acme.example.com", "not an absolute URL"},
		{"", "not an absolute URL"},
		{"https://", "not an absolute URL"},
		{"https://acme.example.com/api", "must not have a path"},
		{"https://acme.example.com//", "must not have a path"},
		{"https://acme.example.com?x=1", "query or fragment"},
		{"https://acme.example.com/?", "query or fragment"},
		{"https://acme.example.com#top", "query or fragment"},
		{"https://agent:s3cret@acme.example.com", "user information"},
		{"https://acme.example.com/?token=s3cret", "query or fragment"},
		{"https://acme.example.com#s3cret", "query or fragment"},
		{"acme.example.com?token=s3cret", "not an absolute URL"},
		{"https://acme example.com", "not a URL"},
		{"https://acme.example.com:99999", "port 99999 is not from 1 to 65535"},
		{"https://acme.example.com:65536", "port 65536 is not from 1 to 65535"},
		{"https://acme.example.com:0", "port 0 is not from 1 to 65535"},
		{"https://acme.example.com:", "port after the colon is empty"},
		{"https://acme.example.com:/", "port after the colon is empty"},
		{"https://..", "label (a part between dots) that is empty"},
		{"https://-", "begins or ends with a hyphen"},
		{"https://acme-.example.com", "begins or ends with a hyphen"},
		{"https://acme.example.com.", "label (a part between dots) that is empty"},
		{"https://" + strings.Repeat("a", 64) + ".example.com", "longer than 63 characters"},
		{"https://" + strings.Repeat("abcdefghi.", 26) + "com", "not 1 to 253 characters long"},
		{"https://bücher.example", "write an international name in its xn-- form"},
		{"https://1.2.3", "neither an IP address nor a host name"},
	} {
		err := AccountURL(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: the error shows the password: %v", c.in, err)
		}
	}
}

func TestValidate_email(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"agent@acme.com", "first.last+desk@sub.acme.co.uk", "a@b.co", strings.Repeat("l", 64) + "@acme.com"} {
		if err := Email(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "agent", "agent@", "@acme.com", "Agent <agent@acme.com>", "<agent@acme.com>", " agent@acme.com", "agent@acme.com ", "a b@acme.com", "agent@@acme.com"} {
		if err := Email(bad); err == nil || !strings.Contains(err.Error(), "is not an e-mail address") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"a@b", "the domain after the @ needs a dot"},
		{"agent@localhost", "the domain after the @ needs a dot"},
		{strings.Repeat("l", 65) + "@acme.com", "the part before the @ is longer than 64 characters"},
		{strings.Repeat("l", 300) + "@acme.com", "the part before the @ is longer than 64 characters"},
		{"agent@" + strings.Repeat("d", 60) + "." + strings.Repeat("d", 60) + "." + strings.Repeat("d", 60) + "." + strings.Repeat("d", 60) + "." + strings.Repeat("d", 60) + ".com", "longer than 254 characters"},
		{"agent@acme..com", "is not an e-mail address"},
		{"agent@-acme.com", "begins or ends with a hyphen"},
		{"agent@[192.0.2.1]", "is not an e-mail address"},
	} {
		err := Email(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.in, err, c.want)
		}
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("%q: a message of %d bytes", c.in, len(err.Error()))
		}
	}
}

func TestValidate_name(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"Support desk", "x", "Support EU — Zürich", " padded ", "team 👩\u200d💻"} {
		if err := Name(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"", "the value is blank"},
		{"   ", "the value is blank"},
		{"\u3000", "the value is blank"},
		{"\u00a0", "the value is blank"},
		{"\u200b", "the value is blank"},
		{" \u200b\ufeff ", "the value is blank"},
		{"\u3164", "the value is blank"},
		{"\u115f\u1160\uffa0", "the value is blank"},
		{"\u034f", "the value is blank"},
		{"\u17b4", "the value is blank"},
		{"\u2800", "the value is blank"},
		{"\ufe0f", "the value is blank"},
		{"desk\u2028EU", "a line break"},
		{"desk\u2029EU", "a line break"},
		{"desk\a", "holds a control character"},
		{"desk\nEU", "holds a control character"},
		{"desk\t", "holds a control character"},
		{"desk\x7f", "holds a control character"},
	} {
		if err := Name(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestValidate_apiKey(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"sandbox-api-key", "Token abc123", "Bearer a.b-c_d~e+f/g="} {
		if err := APIKey(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"", "is empty"},
		{" \t", "is empty"},
		{"secret-key-1\n", "holds a control character"},
		{"secret-key-1\r\n", "holds a control character"},
		{"secret\x00key", "holds a control character"},
		{"Token\tsecret", "holds a control character"},
		{" secret-key-1", "begins or ends with a space"},
		{"secret-key-1 ", "begins or ends with a space"},
	} {
		err := APIKey(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the error shows the key: %v", c.in, err)
		}
	}
}

func TestValidate_streams(t *testing.T) {
	t.Parallel()
	for _, ok := range [][]string{{"chats"}, {"tickets", "chats"}, {"chats", "messages", "events", "contacts", "tickets",
		"ticket_interactions", "ticket_tags", "ticket_groups", "ticket_forms", "ticket_priorities", "ticket_types",
		"ticket_channels", "ticket_status", "organizations", "survey_submissions"}} {
		if err := Streams(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, "at least one stream"},
		{[]string{}, "at least one stream"},
		{[]string{"chats", "gossip"}, `"gossip" is not a stream`},
		{[]string{"Chats"}, `"Chats" is not a stream`},
		{[]string{""}, `"" is not a stream`},
		{[]string{"chats", "tickets", "chats"}, `"chats" is listed twice`},
		{[]string{strings.Repeat("x", 100)}, strings.Repeat("x", 64) + "…"},
	} {
		if err := Streams(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.in, err, c.want)
		}
	}
}

// TestValidate_streamsAreTheSandboxs: the provider's list and the sandbox's, each
// written from the service's list on its own, name the same streams in
// the same order (the default of streams is this list, in this order).
func TestValidate_streamsAreTheSandboxs(t *testing.T) {
	t.Parallel()
	if !slices.Equal(CustomerServiceStreams, sandbox.AllStreams) {
		t.Errorf("the provider's streams %q, the sandbox's %q", CustomerServiceStreams, sandbox.AllStreams)
	}
}

func TestValidate_token(t *testing.T) {
	t.Parallel()
	if err := Token("platform-key-1"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", " ", "\t\n"} {
		if err := Token(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestValidate_wholeNumber(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"0", "4", "10", "1e1", "10.0"} {
		f, _, _ := big.ParseFloat(ok, 10, 512, big.ToNearestEven)
		if err := WholeNumber(f, 0, 10); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"1.5", "1.5 is not a whole number"},
		{"0.000001", "is not a whole number"},
		// Printed as written, not rounded to a whole number.
		{"8.0000000000000001", "8.0000000000000001 is not a whole number"},
		{"-1", "-1 is not between 0 and 10"},
		{"11", "11 is not between 0 and 10"},
		{"1e30", "is not between 0 and 10"},
	} {
		f, _, _ := big.ParseFloat(c.in, 10, 512, big.ToNearestEven)
		if err := WholeNumber(f, 0, 10); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.in, err, c.want)
		}
	}
}

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

// FuzzCACertificate: no input panics, and every value accepted gives the
// client's certificate pool a certificate once normalized, as the provider
// hands it to the client.
func FuzzCACertificate(f *testing.F) {
	pems := testCA(f)
	for _, s := range []string{pems[0], pems[0] + pems[1], pems[2], "", "ca.pem", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----",
		pems[0][:100], "# comment\n" + pems[1]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CACertificate(s)
		if err == nil && !x509.NewCertPool().AppendCertsFromPEM([]byte(NormalizePEM(s))) {
			t.Fatalf("CACertificate(%q) accepts what the pool takes no certificate from", s)
		}
	})
}
