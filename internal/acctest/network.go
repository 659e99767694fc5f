package acctest

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TLSEnv is an Env served over https under a throwaway CA, as a self-hosted
// service under a company's own CA is.
type TLSEnv struct {
	*Env
	CA *nettest.CA

	mu      sync.Mutex
	remotes []string
}

// NewTLSEnv serves a sandbox at host over https; skipped against the real service.
func NewTLSEnv(t *testing.T, cfg sandbox.Config, host string) *TLSEnv {
	t.Helper()
	if realService() {
		t.Skip("skipped against the real service: this test serves the sandbox over https with a certificate of its own CA")
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &TLSEnv{CA: nettest.NewCA(t, "dataintegration tests private CA")}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.remotes = append(e.remotes, r.RemoteAddr)
		e.mu.Unlock()
		srv.ServeHTTP(w, r)
	})
	port := nettest.ServeTLS(t, h, e.CA.Issue(t, time.Now().Add(12*time.Hour), host))
	key := sandboxKey(cfg)
	expectNoSecretPrinted(t, key)
	e.Env = &Env{BaseURL: "https://" + host + ":" + port, APIKey: key, WorkspaceID: srv.Workspaces()[0], Sandbox: srv, CACertificate: e.CA.PEM}
	return e
}

// Remotes are the addresses each request to the sandbox came from.
func (e *TLSEnv) Remotes() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.remotes...)
}

// ServeSecretProxy is nettest.ServeProxy whose password no engine may print.
func ServeSecretProxy(t *testing.T, user, password string) *nettest.Proxy {
	t.Helper()
	if password != "" {
		expectNoSecretPrinted(t, password)
	}
	return nettest.ServeProxy(t, user, password)
}

// ServeFront serves the sandbox behind front, a stand-in for a gateway or a
// faulty service between the provider and it, until the test ends; it
// returns the front's base URL.
func (e *Env) ServeFront(t *testing.T, front func(w http.ResponseWriter, r *http.Request, sandbox http.Handler)) string {
	t.Helper()
	e.RequireSandbox(t, "put a front of its own before the sandbox")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { front(w, r, e.Sandbox) }))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Rewrite serves r by h, handing edit the answer's body to change.
func Rewrite(w http.ResponseWriter, r *http.Request, h http.Handler, edit func([]byte) []byte) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	body := edit(rec.Body.Bytes())
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}
