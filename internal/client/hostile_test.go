package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serve answers every request with body and status 200.
func serve(t *testing.T, body string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestHostileListAnswers: answers a well-behaved service would not give each
// end in the right result or a clear error, never a panic.
func TestHostileListAnswers(t *testing.T) {
	for _, c := range []struct {
		name, body string
		wantJobs   int
		wantErr    string
	}{
		{"HTML instead of JSON", "<!DOCTYPE html><html><body>Bad gateway</body></html>", 0, "not the JSON expected"},
		{"truncated JSON", `{"count": 2, "next_page": null, "results": [{"_id": "a", "name": "x"}, {"_id": "b"`, 0, "not the JSON expected"},
		{"empty body", "", 0, "empty body where JSON was expected"},
		{"a JSON array instead of an envelope", `[{"_id": "a"}]`, 0, "not the JSON expected"},
		{"a job of the wrong shape", `{"results": [{"_id": 12}]}`, 0, "not the JSON expected"},
		{"every optional field missing", `{}`, 0, ""},
		{"results null", `{"count": 0, "next_page": null, "results": null}`, 0, ""},
		{"only results, the same on every page", `{"results": [{"_id": "a"}, {"_id": "b"}]}`, 0, "page 2 holds the same items as page 1"},
		{"unknown fields", `{"next_page": null, "results": [{"_id": "a", "colour": "blue", "_links": {"self": "x"}}], "extra": {"x": [1, 2]}}`, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			jobs, err := newTestClient(t, serve(t, c.body)).ListJobs(context.Background(), testWS, JobFilter{})
			if c.wantErr == "" {
				if err != nil || len(jobs) != c.wantJobs {
					t.Fatalf("got %d jobs, err %v; want %d jobs", len(jobs), err, c.wantJobs)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("err %v, want one saying %q", err, c.wantErr)
			}
			if StatusCode(err) != http.StatusOK {
				t.Errorf("the error does not carry the status 200: %v", err)
			}
		})
	}
}

// TestLargeAnswers: a large answer within the limit is read; one beyond it
// is an error, and what is read of it stays bounded.
func TestLargeAnswers(t *testing.T) {
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

// TestNextPageThatNeverAdvances: a service that points back at the same page
// ends the walk with an error after one request, instead of looping.
func TestNextPageThatNeverAdvances(t *testing.T) {
	for _, next := range []string{"1", "0", "-3"} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"next_page": `+next+`, "results": [{"_id": "a"}]}`)
		})
		_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
		if err == nil || !strings.Contains(err.Error(), "does not move forward") || rec.count() != 1 {
			t.Errorf("next_page %s: %d requests, err %v", next, rec.count(), err)
		}
	}
}

// TestEmptyPagesThatNeverEnd: a service that sends empty pages, each naming
// the next, is stopped at the first.
func TestEmptyPagesThatNeverEnd(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintf(w, `{"next_page": %d, "results": []}`, n+1)
	})
	_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err == nil || !strings.Contains(err.Error(), "is empty but names a next page") || rec.count() != 1 {
		t.Errorf("%d requests, err %v", rec.count(), err)
	}
}

// TestStalledAnswer: a service that sends its headers and then nothing is
// given up on after the request timeout, and a read is retried.
func TestStalledAnswer(t *testing.T) {
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

// TestFarRetryAfter: a Retry-After an hour away, as seconds or as an HTTP
// date, is capped; the wait ends with the context.
func TestFarRetryAfter(t *testing.T) {
	for _, header := range []string{"3600", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", header)
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		cl := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetryAfter = 20 * time.Millisecond; c.MaxRetries = 2 })
		start := time.Now()
		err := cl.CancelJob(context.Background(), testWS, "j")
		if StatusCode(err) != http.StatusServiceUnavailable || rec.count() != 3 {
			t.Errorf("Retry-After %q: %d requests, err %v", header, rec.count(), err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Retry-After %q was not capped: %v", header, d)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		uncapped := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetryAfter = time.Hour })
		start = time.Now()
		err = uncapped.CancelJob(ctx, testWS, "j")
		cancel()
		if err == nil || time.Since(start) > 5*time.Second {
			t.Errorf("Retry-After %q: the wait did not end with the context (%v, err %v)", header, time.Since(start), err)
		}
	}
}

// TestInterruptedCreateIsLetFinish: when the context is cancelled while a
// trigger is in flight, the trigger is let finish and its answer kept, so
// that Terraform records what the service did; a read in flight is
// abandoned; and nothing is sent once the context is cancelled.
func TestInterruptedCreateIsLetFinish(t *testing.T) {
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

// TestMayHaveTakenEffect: a failed trigger says whether the service may have
// carried it out: yes after a 500, 502 or 504, a lost answer or an
// unreadable success; no after a refusal, a 429 or 503, or when no
// connection was made.
func TestMayHaveTakenEffect(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   bool
	}{{500, "", true}, {502, "", true}, {504, "", true}, {400, "", false}, {409, "", false}, {429, "", false}, {503, "", false}} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(c.status) }))
		err := newTestClient(t, ts.URL, func(cfg *Config) { cfg.MaxRetries = 0 }).TriggerJob(context.Background(), testWS, "j", false)
		ts.Close()
		var e *Error
		if !errors.As(err, &e) || e.MayHaveTakenEffect() != c.want || MayHaveTakenEffect(fmt.Errorf("wrapped: %w", err)) != c.want {
			t.Errorf("HTTP %d: %v, may have taken effect: want %v", c.status, err, c.want)
		}
	}
	if MayHaveTakenEffect(nil) || MayHaveTakenEffect(errors.New("not a request")) {
		t.Error("an error that is no failed request may have taken effect")
	}

	// A created connector whose answer cannot be read.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"_id": "c1", "na`)
	}))
	defer ts.Close()
	_, err := newTestClient(t, ts.URL).CreateConnector(context.Background(), testWS, ConnectorSpec{Name: "x"})
	var e *Error
	if !errors.As(err, &e) || !e.MayHaveTakenEffect() {
		t.Errorf("an unreadable 201: %v, want one that may have taken effect", err)
	}

	// The answer lost: the server hangs up after reading the request.
	var rec recorder
	lost := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	err = newTestClient(t, lost.URL).TriggerJob(context.Background(), testWS, "j", false)
	if !errors.As(err, &e) || !e.MayHaveTakenEffect() {
		t.Errorf("a lost answer: %v, want one that may have taken effect", err)
	}

	// No connection at all.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	err = newTestClient(t, closed, func(cfg *Config) { cfg.MaxRetries = 0 }).TriggerJob(context.Background(), testWS, "j", false)
	if !errors.As(err, &e) || e.MayHaveTakenEffect() {
		t.Errorf("no connection: %v, want one that did not take effect", err)
	}
}
