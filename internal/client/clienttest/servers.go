// Package clienttest holds the test servers that the tests of the client's
// three packages share. It imports none of them, so that the thin client's
// own tests may use it; testclient builds a client of these servers.
package clienttest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Recorder is a test server that records its requests and their bodies, and
// answers with the function it is given.
type Recorder struct {
	mu     sync.Mutex
	Reqs   []*http.Request
	Bodies []string
}

// Server starts the Recorder's server, closed when the test ends; answer
// gets the request's number, from 1.
func (r *Recorder) Server(t *testing.T, answer func(n int, w http.ResponseWriter, req *http.Request)) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.Reqs = append(r.Reqs, req)
		r.Bodies = append(r.Bodies, string(b))
		n := len(r.Reqs)
		r.mu.Unlock()
		answer(n, w, req)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// Count is the number of requests recorded so far.
func (r *Recorder) Count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.Reqs) }

// Serve answers every request with body and status 200, and returns the
// server's URL.
func Serve(t *testing.T, body string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// HoldingServer answers every request with the service's count spent, to be
// reset in 12 s, and counts what reaches it.
func HoldingServer(t *testing.T) (*Recorder, string) {
	var rec Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-RateLimit-Limit", "100")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", "12")
		w.WriteHeader(http.StatusNoContent)
	})
	return &rec, ts.URL
}
