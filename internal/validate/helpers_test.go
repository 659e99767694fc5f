package validate

import (
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
)

// testCA is a CA's certificate and a server's, with the server's key, for
// the PEM checks.
func testCA(tb testing.TB) [3]string {
	ca := nettest.NewCA(tb, "validate test CA")
	leaf := ca.Issue(tb, time.Now().Add(time.Hour), "api.example.com")
	return [3]string{ca.PEM, leaf.CertPEM, leaf.KeyPEM}
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
