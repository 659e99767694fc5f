package request_test

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"
)

// TestTransport_unreachedCauses: which transport errors are failures to
// reach the service, and how each is told.
func TestTransport_unreachedCauses(t *testing.T) {
	t.Parallel()
	dial := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	for _, c := range []struct {
		err       error
		unreached bool
		says      string
	}{
		{dial(syscall.ECONNREFUSED), true, "nothing accepts connections at h:1 (connection refused)"},
		{dial(syscall.EHOSTUNREACH), true, "no route to h:1 (no route to host)"},
		{dial(syscall.ENETUNREACH), true, "no route to h:1 (network is unreachable)"},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, true, "h:1 reset the connection"},
		{&net.DNSError{Err: "server misbehaving", Name: "h", IsTemporary: true}, true, "resolver could not look up h (server misbehaving)"},
		{dial(&timeoutError{}), true, "nothing answered a connection to h:1 in time"},
		{errors.New("EOF"), false, ""},
		{&net.OpError{Op: "read", Err: errors.New("broken")}, false, ""},
	} {
		if got := request.Unreached(c.err); got != c.unreached {
			t.Errorf("unreached(%v) = %v, want %v", c.err, got, c.unreached)
		}
		if c.says != "" {
			if got := (&client.ConnectError{Failure: client.Unreachable, Host: "h:1", Err: c.err}).Error(); !strings.Contains(got, c.says) {
				t.Errorf("%v: %q, want it to say %q", c.err, got, c.says)
			}
		}
	}
}

type timeoutError struct{}

func (*timeoutError) Error() string { return "i/o timeout" }

func (*timeoutError) Timeout() bool { return true }

func (*timeoutError) Temporary() bool { return true }
