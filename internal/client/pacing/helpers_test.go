package pacing_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

const testWS = "00000000-0000-4000-8000-000000000001"

// newTestClient returns a client of srv with quick backoff.
func newTestClient(t *testing.T, baseURL string, edit ...func(*client.Config)) *client.Client {
	t.Helper()
	cfg := client.Config{
		BaseURL: baseURL, APIKey: "key-123", Version: "1.2.3", MaxRetries: 3,
		MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recorder is a test server that records its requests and answers with the
// function it is given.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (r *recorder) server(t *testing.T, answer func(n int, w http.ResponseWriter, req *http.Request)) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, req)
		r.body = append(r.body, string(b))
		n := len(r.reqs)
		r.mu.Unlock()
		answer(n, w, req)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (r *recorder) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.reqs) }
