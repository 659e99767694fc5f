package clienttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// FullEnvelope names every envelope field a list answer may give.
var FullEnvelope = []string{"count", "next_page", "total_pages", "page_size"}

// WritePage writes a page of the jobs of ids, each named "job ID", with next
// as its next_page.
func WritePage(w http.ResponseWriter, next any, ids ...string) {
	jobs := make([]map[string]any, len(ids))
	for i, id := range ids {
		jobs[i] = map[string]any{"_id": id, "name": "job " + id}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"next_page": next, "results": jobs})
}

// JobIDs are the IDs job-00000 to job-(n-1), in order: those a PagedServer
// serves.
func JobIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("job-%05d", i)
	}
	return ids
}

// PagedServer serves a list of jobs page by page, and records how many
// requests it held at once.
type PagedServer struct {
	Items int
	// Envelope names the envelope fields given besides results, from
	// FullEnvelope.
	Envelope []string
	// Largest is the most items a page holds, whatever page_size asks
	// (0: what it asks); EmptyPastEnd answers a page past the last with
	// an empty page instead of a 404.
	Largest      int
	EmptyPastEnd bool
	Delay        time.Duration
	// Hook, if set, may answer a request itself (true), at once, or change
	// Items, holding Mu, before it is served after Delay.
	Hook func(s *PagedServer, n int, page int, w http.ResponseWriter, r *http.Request) bool

	Mu       sync.Mutex
	requests int
	Pages    []int // the page of each request, in order of arrival
	inFlight int
	maxHeld  int
}

// Start starts the server, closed when the test ends.
func (s *PagedServer) Start(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
		s.Mu.Lock()
		s.requests++
		n := s.requests
		s.Pages = append(s.Pages, page)
		s.inFlight++
		s.maxHeld = max(s.maxHeld, s.inFlight)
		s.Mu.Unlock()
		defer func() { s.Mu.Lock(); s.inFlight--; s.Mu.Unlock() }()
		if s.Hook != nil && s.Hook(s, n, page, w, r) {
			return
		}
		time.Sleep(s.Delay)
		s.Mu.Lock()
		items := s.Items
		s.Mu.Unlock()
		if s.Largest > 0 {
			size = min(size, s.Largest)
		}
		total := max((items+size-1)/size, 1)
		if page < 1 || page > total && !s.EmptyPastEnd {
			http.Error(w, `{"detail": "Invalid page."}`, http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(s.page(page, size, total, items))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (s *PagedServer) page(page, size, total, items int) map[string]any {
	env := map[string]any{}
	for _, f := range s.Envelope {
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
	jobs := []map[string]any{}
	for i := (page - 1) * size; i < min(page*size, items); i++ {
		jobs = append(jobs, map[string]any{"_id": fmt.Sprintf("job-%05d", i)})
	}
	env["results"] = jobs
	return env
}

// Held is the most requests the server held at once.
func (s *PagedServer) Held() int { s.Mu.Lock(); defer s.Mu.Unlock(); return s.maxHeld }

// Count is the number of requests it got.
func (s *PagedServer) Count() int { s.Mu.Lock(); defer s.Mu.Unlock(); return s.requests }
