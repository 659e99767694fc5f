package request_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest/testclient"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"
)

// TestClient_errorNamesTheWholePath: with a base URL that has a path, an error
// names the path that was really asked, the base's included.
func TestClient_errorNamesTheWholePath(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/api/v1", "/api/v1/"} {
		var rec clienttest.Recorder
		ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") != "" {
				clienttest.WritePage(w, 1, "a") // a next page that does not move forward
				return
			}
			http.Error(w, `{"detail": "no such connector"}`, http.StatusNotFound)
		})
		c := testclient.New(t, ts.URL+suffix)
		base := strings.TrimSuffix(suffix, "/")
		var e *client.Error
		_, err := c.GetConnector(context.Background(), testWS, "c1")
		if !errors.As(err, &e) || e.Path != base+"/developers/workspaces/"+testWS+"/connectors/c1/" {
			t.Errorf("base %q: %#v", suffix, err)
		}
		if _, err = listJobs(c, context.Background()); !errors.As(err, &e) || e.Path != base+"/developers/workspaces/"+testWS+"/jobs/" {
			t.Errorf("base %q: %#v", suffix, err)
		}
	}
}

// TestClient_everyFailureNamesTheWholePath: every way a request can fail (a body
// that cannot be encoded, a context ended before sending, no connection, a
// refusal, a page that cannot be followed) builds its Error the same way,
// naming the whole path asked, from its leading "/", the base's included.
func TestClient_everyFailureNamesTheWholePath(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/api/v1/"} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") != "" {
				clienttest.WritePage(w, nil) // next_page null: not a failure
				return
			}
			http.Error(w, `{"detail": "no"}`, http.StatusConflict)
		}))
		c := testclient.New(t, ts.URL+suffix, func(cfg *client.Config) { cfg.MaxRetries = 0 })
		want := strings.TrimSuffix(suffix, "/") + "/developers/workspaces/" + testWS + "/jobs/j1/run/"
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		failures := map[string]error{
			"unencodable body": c.Do(context.Background(), request.Call{Op: "trigger job", Method: http.MethodPost,
				Path: "developers/workspaces/" + testWS + "/jobs/j1/run/", Body: make(chan int), Want: http.StatusCreated}),
			"context ended": c.TriggerJob(cancelled, testWS, "j1", false),
			"refused":       c.TriggerJob(context.Background(), testWS, "j1", false),
		}
		ts.Close()
		failures["no connection"] = c.TriggerJob(context.Background(), testWS, "j1", false)
		for name, err := range failures {
			var e *client.Error
			if !errors.As(err, &e) || e.Path != want || e.Method != http.MethodPost || e.Operation != "trigger job" {
				t.Errorf("base %q, %s: %#v, want path %s", suffix, name, err, want)
			}
		}
	}
}

func TestClient_typedErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 1000)
	for _, c := range []struct {
		status      int
		contentType string
		body        string
		message     string
	}{
		{404, "application/json", `{"detail": "Not found."}`, "Not found."},
		{409, "application/json", `{"detail": "job is inactive"}`, "job is inactive"},
		{400, "application/json", `{"detail": {"name": ["too long"]}}`, `{"name": ["too long"]}`},
		{400, "application/json", `{"errors": "other shape"}`, `{"errors": "other shape"}`},
		{500, "text/html", "<html>\n<body>\tBad things</body></html>", "Bad things"},
		{418, "text/plain", long, strings.Repeat("é", request.MaxMessageRunes) + "…"},
		{400, "text/plain", "", ""},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", c.contentType)
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		}))
		err := testclient.New(t, ts.URL, func(cfg *client.Config) { cfg.MaxRetries = 0 }).CancelJob(context.Background(), testWS, "j1")
		ts.Close()
		var e *client.Error
		if !errors.As(err, &e) {
			t.Fatalf("status %d: error %T %v", c.status, err, err)
		}
		if e.StatusCode != c.status || e.Message != c.message || e.Operation != "cancel job" || e.Method != "DELETE" {
			t.Errorf("status %d: %+v", c.status, e)
		}
		if client.IsNotFound(err) != (c.status == 404) {
			t.Errorf("status %d: IsNotFound %v", c.status, client.IsNotFound(err))
		}
	}
}

func TestClient_errorMessageMasksTheAPIKey(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		_, _ = fmt.Fprintf(w, `{"detail": "Invalid API key %s."}`, r.Header.Get("Authorization"))
	}))
	defer ts.Close()
	err := testclient.New(t, ts.URL).CancelJob(context.Background(), testWS, "j")
	if err == nil || strings.Contains(err.Error(), "key-123") || !strings.Contains(err.Error(), "Invalid API key ***.") {
		t.Errorf("error: %v", err)
	}
}

// TestClient_errorMessageMasksAKeyTheCutWouldSplit: the key is masked before the
// message is shortened, so no part of it survives the cut.
func TestClient_errorMessageMasksAKeyTheCutWouldSplit(t *testing.T) {
	t.Parallel()
	key := "k-" + strings.Repeat("9", 40)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		_, _ = fmt.Fprintf(w, `{"detail": "%s%s"}`, strings.Repeat("x", request.MaxMessageRunes-10), r.Header.Get("Authorization"))
	}))
	defer ts.Close()
	err := testclient.New(t, ts.URL, func(c *client.Config) { c.APIKey = key }).CancelJob(context.Background(), testWS, "j")
	if err == nil || strings.Contains(err.Error(), key[:10]) {
		t.Errorf("a part of the key is shown: %v", err)
	}
}

// TestClient_errorMessageMasksTheConnectorToken: a service that repeats the body
// of a refused create or update does not put the token in the error.
func TestClient_errorMessageMasksTheConnectorToken(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(400)
		_, _ = fmt.Fprintf(w, "cannot accept %s", body)
	}))
	defer ts.Close()
	c := testclient.New(t, ts.URL)
	_, err := c.CreateConnector(context.Background(), testWS, client.ConnectorSpec{Name: "desk", URL: "https://acme.example.com", Token: "tok-secret-1", AgentEmail: "a@b.c"})
	if err == nil || strings.Contains(err.Error(), "tok-secret-1") || !strings.Contains(err.Error(), `"token":"***"`) {
		t.Errorf("create: %v", err)
	}
	token := "tok-secret-2"
	_, err = c.UpdateConnector(context.Background(), testWS, "c", client.ConnectorUpdate{Token: &token})
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), `"token":"***"`) {
		t.Errorf("update: %v", err)
	}
}

// TestClient_mayHaveTakenEffect: a failed trigger says whether the service may have
// carried it out: yes after a 500, 502 or 504, a lost answer or an
// unreadable success; no after a refusal, a 429 or 503, or when no
// connection was made.
func TestClient_mayHaveTakenEffect(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status int
		body   string
		want   bool
	}{{500, "", true}, {502, "", true}, {504, "", true}, {400, "", false}, {409, "", false}, {429, "", false}, {503, "", false}} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(c.status) }))
		err := testclient.New(t, ts.URL, func(cfg *client.Config) { cfg.MaxRetries = 0 }).TriggerJob(context.Background(), testWS, "j", false)
		ts.Close()
		var e *client.Error
		if !errors.As(err, &e) || e.MayHaveTakenEffect() != c.want || client.MayHaveTakenEffect(fmt.Errorf("wrapped: %w", err)) != c.want {
			t.Errorf("HTTP %d: %v, may have taken effect: want %v", c.status, err, c.want)
		}
	}
	if client.MayHaveTakenEffect(nil) || client.MayHaveTakenEffect(errors.New("not a request")) {
		t.Error("an error that is no failed request may have taken effect")
	}

	// A created connector whose answer cannot be read.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"_id": "c1", "na`)
	}))
	defer ts.Close()
	_, err := testclient.New(t, ts.URL).CreateConnector(context.Background(), testWS, client.ConnectorSpec{Name: "x"})
	var e *client.Error
	if !errors.As(err, &e) || !e.MayHaveTakenEffect() {
		t.Errorf("an unreadable 201: %v, want one that may have taken effect", err)
	}

	// The answer lost: the server hangs up after reading the request.
	var rec clienttest.Recorder
	lost := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	err = testclient.New(t, lost.URL).TriggerJob(context.Background(), testWS, "j", false)
	if !errors.As(err, &e) || !e.MayHaveTakenEffect() {
		t.Errorf("a lost answer: %v, want one that may have taken effect", err)
	}

	// No connection at all.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	err = testclient.New(t, closed, func(cfg *client.Config) { cfg.MaxRetries = 0 }).TriggerJob(context.Background(), testWS, "j", false)
	if !errors.As(err, &e) || e.MayHaveTakenEffect() {
		t.Errorf("no connection: %v, want one that did not take effect", err)
	}
}
