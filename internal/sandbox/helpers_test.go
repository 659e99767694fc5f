package sandbox

// What several test files of the package share: a sandbox served over HTTP
// with its default key and workspace, and the requests the tests send it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	ws  = DefaultWorkspaceID
	key = DefaultAPIKey
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type harness struct {
	t   *testing.T
	srv *Server
	ts  *httptest.Server
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &harness{t: t, srv: srv, ts: ts}
}

// call sends a request with the given key and decodes a JSON answer.
func (h *harness) call(method, path, apiKey string, body any) (int, http.Header, any) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.ts.URL+path, rd)
	if apiKey != "" {
		req.Header.Set("Authorization", apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		return resp.StatusCode, resp.Header, string(raw)
	}
	var out any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			h.t.Fatalf("%s %s: answer is not JSON: %q", method, path, raw)
		}
	}
	return resp.StatusCode, resp.Header, out
}

func (h *harness) do(method, path string, body any) (int, any) {
	h.t.Helper()
	st, _, out := h.call(method, path, key, body)
	return st, out
}

// expect checks the status and, for errors, that the detail holds want.
func (h *harness) expect(method, path string, body any, status int, want string) any {
	h.t.Helper()
	st, hdr, out := h.call(method, path, key, body)
	if st != status {
		h.t.Fatalf("%s %s: status %d, want %d (%v)", method, path, st, status, out)
	}
	if want != "" {
		d, _ := out.(map[string]any)["detail"].(string)
		if !strings.Contains(d, want) {
			h.t.Fatalf("%s %s: detail %q does not hold %q", method, path, d, want)
		}
		if ct := hdr.Get("Content-Type"); ct != "application/json" {
			h.t.Fatalf("error Content-Type %q", ct)
		}
	}
	return out
}

// expectGateway checks that a gateway's HTML page answered status.
func (h *harness) expectGateway(method, path string, body any, status int) {
	h.t.Helper()
	st, hdr, out := h.call(method, path, key, body)
	page, _ := out.(string)
	if want := fmt.Sprintf("<title>%d %s</title>", status, http.StatusText(status)); st != status || hdr.Get("Content-Type") != "text/html" || !strings.Contains(page, want) {
		h.t.Fatalf("%s %s: status %d, Content-Type %q, body %v; want a gateway's page of %d", method, path, st, hdr.Get("Content-Type"), out, status)
	}
}

func jobsPath(query string) string {
	return "/developers/workspaces/" + ws + "/jobs/" + query
}

func connectorBody(name string) map[string]any {
	return map[string]any{
		"name":           name,
		"connector_name": "customer_service",
		"configuration":  map[string]any{"url": "https://acme.example.com", "token": "secret-token", "agent_email": "agent@acme.com"},
	}
}

// inFlightNow is how many requests of the API the sandbox holds.
func (s *Server) inFlightNow() int64 { s.mu.Lock(); defer s.mu.Unlock(); return s.inFlight }
