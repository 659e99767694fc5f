package client

// What several test files of the package share: test servers, a client of
// them, and the jobs and pages they serve.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

const testWS = "00000000-0000-4000-8000-000000000001"

// newTestClient returns a client of srv with quick backoff.
func newTestClient(t *testing.T, baseURL string, edit ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		BaseURL: baseURL, APIKey: "key-123", Version: "1.2.3", MaxRetries: 3,
		MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
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

func writePage(w http.ResponseWriter, next any, ids ...string) {
	jobs := make([]Job, len(ids))
	for i, id := range ids {
		jobs[i] = Job{ID: id, Name: new("job " + id)}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"next_page": next, "results": jobs})
}

// ListJobs returns every job of the workspace that f selects, in the order
// the service gives them: the tests' way to walk every page.
func (c *Client) ListJobs(ctx context.Context, workspaceID string, f JobFilter) ([]Job, error) {
	v, all := Collect[Job](nil, 0)
	err := c.EachJobPage(ctx, workspaceID, f, v)
	return *all, err
}

// serve answers every request with body and status 200.
func serve(t *testing.T, body string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// pagedServer serves a list of jobs page by page, and records how many
// requests it held at once.
type pagedServer struct {
	items int
	// envelope names the envelope fields given besides results, from
	// "count", "next_page", "total_pages" and "page_size".
	envelope []string
	// largest is the most items a page holds, whatever page_size asks
	// (0: what it asks); emptyPastEnd answers a page past the last with
	// an empty page instead of a 404.
	largest      int
	emptyPastEnd bool
	delay        time.Duration
	// hook, if set, may answer a request itself (true), at once, or change
	// items before it is served after delay.
	hook func(s *pagedServer, n int, page int, w http.ResponseWriter, r *http.Request) bool

	mu       sync.Mutex
	requests int
	pages    []int // the page of each request, in order of arrival
	inFlight int
	maxHeld  int
}

func (s *pagedServer) start(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
		s.mu.Lock()
		s.requests++
		n := s.requests
		s.pages = append(s.pages, page)
		s.inFlight++
		s.maxHeld = max(s.maxHeld, s.inFlight)
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()
		if s.hook != nil && s.hook(s, n, page, w, r) {
			return
		}
		time.Sleep(s.delay)
		s.mu.Lock()
		items := s.items
		s.mu.Unlock()
		if s.largest > 0 {
			size = min(size, s.largest)
		}
		total := max((items+size-1)/size, 1)
		if page < 1 || page > total && !s.emptyPastEnd {
			http.Error(w, `{"detail": "Invalid page."}`, http.StatusNotFound)
			return
		}
		env := map[string]any{}
		for _, f := range s.envelope {
			switch f {
			case "count":
				env["count"] = items
			case "total_pages":
				env["total_pages"] = total
			case "page_size":
				env["page_size"] = size
			case "next_page":
				env["next_page"] = nil
				if page < total && page >= 1 {
					env["next_page"] = page + 1
				}
			}
		}
		jobs := []Job{}
		for i := (page - 1) * size; i < min(page*size, items); i++ {
			jobs = append(jobs, Job{ID: fmt.Sprintf("job-%05d", i)})
		}
		env["results"] = jobs
		_ = json.NewEncoder(w).Encode(env)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (s *pagedServer) held() int { s.mu.Lock(); defer s.mu.Unlock(); return s.maxHeld }

func (s *pagedServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// jobIDs are the IDs job-00000 to job-(n-1), in order.
func jobIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("job-%05d", i)
	}
	return ids
}

func idsOf(jobs []Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

var fullEnvelope = []string{"count", "next_page", "total_pages", "page_size"}
