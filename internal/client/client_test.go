package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestClient_headersAndBaseURL(t *testing.T) {
	for _, suffix := range []string{"", "/", "/api", "/api/"} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writePage(w, nil) })
		c := newTestClient(t, ts.URL+suffix)
		if _, err := c.ListJobs(context.Background(), testWS, JobFilter{}); err != nil {
			t.Fatal(err)
		}
		r := rec.reqs[0]
		wantPath := strings.TrimSuffix(suffix, "/") + "/developers/workspaces/" + testWS + "/jobs/"
		if r.URL.Path != wantPath {
			t.Errorf("base %q: path %q, want %q", suffix, r.URL.Path, wantPath)
		}
		if r.Header.Get("Authorization") != "key-123" || r.Header.Get("Accept") != "application/json" ||
			r.Header.Get("User-Agent") != "terraform-provider-dataintegration/1.2.3" {
			t.Errorf("headers: %v", r.Header)
		}
	}
}

func TestClient_decodeErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"", "empty body"},
		{"<html>maintenance</html>", "not the JSON expected"},
		// JSON cut off is a body cut short: retried, as a 502 is.
		{`{"results": [{"_id": "a"`, "the answer was cut short (unexpected EOF)"},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, c.body) }))
		_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
		ts.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("body %q: %v", c.body, err)
		}
	}
}

func TestClient_requestTimeout(t *testing.T) {
	release := make(chan struct{})
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	err := newTestClient(t, ts.URL, func(c *Config) {
		c.RequestTimeout = 20 * time.Millisecond
		c.MaxRetries = 1
	}).CancelJob(context.Background(), testWS, "j")
	if err == nil || !strings.Contains(err.Error(), "nothing answered at "+strings.TrimPrefix(ts.URL, "http://")+" within request_timeout (20ms)") || rec.count() != 2 {
		t.Errorf("%d requests, err %v", rec.count(), err)
	}
}

func TestClient_logNeverSeesSecrets(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) })
	var logged []string
	var mu sync.Mutex
	c := newTestClient(t, ts.URL, func(c *Config) {
		c.Log = func(_ context.Context, msg string, fields map[string]any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, fmt.Sprint(msg, fields))
		}
	})
	if _, err := c.CreateConnector(context.Background(), testWS, ConnectorSpec{Name: "n", Token: "tok-SECRET"}); err == nil {
		t.Fatal("want an error: the test server answers no body")
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "method:POST") || !strings.Contains(logged[0], "status:201") {
		t.Errorf("log: %v", logged)
	}
	for _, l := range logged {
		if strings.Contains(l, "tok-SECRET") || strings.Contains(l, "key-123") {
			t.Errorf("a secret was logged: %s", l)
		}
	}
}

// TestClient_largeAnswers: a large answer within the limit is read; one beyond it
// is an error, and what is read of it stays bounded.
func TestClient_largeAnswers(t *testing.T) {
	// About 10 MB: one page of 100 jobs with long names.
	name := strings.Repeat("n", 100<<10)
	var b strings.Builder
	b.WriteString(`{"next_page": null, "results": [`)
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"_id": "j%d", "name": %q}`, i, name)
	}
	b.WriteString("]}")
	jobs, err := newTestClient(t, serve(t, b.String())).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || len(jobs) != 100 || *jobs[99].Name != name {
		t.Fatalf("a 10 MB page: %d jobs, err %v", len(jobs), err)
	}

	// An answer that never ends: a stream of spaces after an open array.
	var written atomic.Int64
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"results": [`)
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for r.Context().Err() == nil {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer endless.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = newTestClient(t, endless.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Fatalf("an endless answer: %v, want an error saying it is too large", err)
	}
	// The client stopped reading at its limit: the server could write that
	// much, plus what the connection's buffers hold.
	if w := written.Load(); w > 24<<20 {
		t.Errorf("the server wrote %d MiB before the client gave up", w>>20)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Errorf("reading an endless answer left %d MiB on the heap", grew>>20)
	}

	// An endless error body: the message is cut, the request ends.
	endlessError := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		chunk := []byte(strings.Repeat("e", 64<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer endlessError.Close()
	err = newTestClient(t, endlessError.URL).TriggerJob(context.Background(), testWS, "j", false)
	if StatusCode(err) != http.StatusBadRequest || len(err.Error()) > 1000 {
		t.Fatalf("an endless error body: status %d, message of %d bytes", StatusCode(err), len(err.Error()))
	}
}

// TestClient_stalledAnswer: a service that sends its headers and then nothing is
// given up on after the request timeout, and a read is retried.
func TestClient_stalledAnswer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"results": [`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	start := time.Now()
	_, err := newTestClient(t, ts.URL, func(c *Config) {
		c.RequestTimeout = 50 * time.Millisecond
		c.MaxRetries = 1
	}).ListJobs(context.Background(), testWS, JobFilter{})
	if err == nil || rec.count() != 2 {
		t.Fatalf("a stalled answer: %d requests, err %v; want an error after 2", rec.count(), err)
	}
	if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "timeout") && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("the error does not say the request timed out: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// TestClient_interruptedCreateIsLetFinish: when the context is cancelled while a
// trigger is in flight, the trigger is let finish and its answer kept, so
// that Terraform records what the service did; a read in flight is
// abandoned; and nothing is sent once the context is cancelled.
func TestClient_interruptedCreateIsLetFinish(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			return
		}
		writePage(w, nil)
	})
	cl := newTestClient(t, ts.URL)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if err := cl.TriggerJob(ctx, testWS, "j", false); err != nil || rec.count() != 1 {
		t.Errorf("a trigger in flight when interrupted: %d requests, err %v; want it to finish", rec.count(), err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if _, err := cl.ListJobs(ctx, testWS, JobFilter{}); !errors.Is(err, context.Canceled) || time.Since(start) > 90*time.Millisecond {
		t.Errorf("a read in flight when interrupted: err %v after %v; want it abandoned", err, time.Since(start))
	}

	if err := cl.TriggerJob(ctx, testWS, "j", false); !errors.Is(err, context.Canceled) || rec.count() != 2 {
		t.Errorf("a trigger after the interruption: %d requests in all, err %v; want none sent", rec.count(), err)
	}
}
