package sandbox

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProxy_tunnelsWithCredentialsOnly: a CONNECT without the proxy's
// credentials gets 407 and no tunnel; with them, whatever the host asked,
// it reaches the upstream, which sees the connection come from the proxy.
func TestProxy_tunnelsWithCredentialsOnly(t *testing.T) {
	t.Parallel()
	var remote string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		remote = r.RemoteAddr
		_, _ = io.WriteString(w, "upstream")
	}))
	t.Cleanup(upstream.Close)
	p := NewProxy("ci", "s3cret-pass", strings.TrimPrefix(upstream.URL, "http://"))
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)

	connect := func(auth string) (int, http.Header, net.Conn, *bufio.Reader) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(front.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		req := "CONNECT nowhere.example:443 HTTP/1.1\r\nHost: nowhere.example:443\r\n"
		if auth != "" {
			req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(auth)) + "\r\n"
		}
		if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			_ = resp.Body.Close()
		} // else the tunnel follows the answer, on br: closing would read it.
		return resp.StatusCode, resp.Header, conn, br
	}
	for _, auth := range []string{"", "ci:wrong", "someone:s3cret-pass"} {
		if status, h, _, _ := connect(auth); status != http.StatusProxyAuthRequired || h.Get("Proxy-Authenticate") == "" {
			t.Errorf("credentials %q: %d, want 407 with Proxy-Authenticate", auth, status)
		}
	}
	if n := p.RefusedAuth(); n != 3 || len(p.Targets()) != 0 {
		t.Errorf("%d refused, %v tunnelled", n, p.Targets())
	}

	status, _, conn, br := connect("ci:s3cret-pass")
	if status != http.StatusOK {
		t.Fatalf("with credentials: %d", status)
	}
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: nowhere.example\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	got, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(got.Body)
	_ = got.Body.Close()
	if string(body) != "upstream" || !p.Tunnelled(remote) {
		t.Errorf("through the tunnel: %q, from %s (tunnelled: %v)", body, remote, p.Tunnelled(remote))
	}
	if tg := p.Targets(); len(tg) != 1 || tg[0] != "nowhere.example:443" {
		t.Errorf("targets %v", tg)
	}

	plain, err := http.Get(front.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	_ = plain.Body.Close()
	if plain.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("a plain GET: %d, want 405", plain.StatusCode)
	}
}
