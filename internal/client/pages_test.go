package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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

// TestListSideBySideKeepsOrder: whatever the bound, a list is read whole, in
// order, each page once, with never more requests held at once than the
// bound; and with a bound above 1 the pages are read side by side.
func TestListSideBySideKeepsOrder(t *testing.T) {
	for _, bound := range []int{1, 3, 8} {
		for _, items := range []int{0, 1, 100, 101, 1000, 1050} {
			s := &pagedServer{items: items, envelope: fullEnvelope, delay: 20 * time.Millisecond}
			ts := s.start(t)
			jobs, err := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = bound }).ListJobs(context.Background(), testWS, JobFilter{})
			if err != nil {
				t.Fatal(err)
			}
			pages := max((items+PageSize-1)/PageSize, 1)
			if !slices.Equal(idsOf(jobs), jobIDs(items)) {
				t.Errorf("bound %d, %d items: %d jobs, not in order", bound, items, len(jobs))
			}
			if s.count() != pages {
				t.Errorf("bound %d, %d items: %d requests, want %d", bound, items, s.count(), pages)
			}
			if s.held() > bound || bound > 1 && pages > 2 && s.held() < 2 || bound == 1 && s.held() != 1 {
				t.Errorf("bound %d, %d items: the server held %d requests at once", bound, items, s.held())
			}
		}
	}
}

// TestListEnvelopes: the pages are asked side by side only when the first
// page tells how many there are: from total_pages, or count over the page
// size; else one after another, following next_page. Either way the result
// is the whole list in order.
func TestListEnvelopes(t *testing.T) {
	for _, tc := range []struct {
		envelope []string
		parallel bool
	}{
		{[]string{"next_page"}, false},
		{[]string{"next_page", "total_pages"}, true},
		{[]string{"next_page", "count", "page_size"}, true},
		{[]string{"next_page", "count"}, true}, // a full first page tells the size
		{[]string{"next_page", "page_size"}, false},
	} {
		s := &pagedServer{items: 950, envelope: tc.envelope, delay: 20 * time.Millisecond}
		ts := s.start(t)
		jobs, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
		if err != nil || !slices.Equal(idsOf(jobs), jobIDs(950)) || s.count() != 10 {
			t.Errorf("envelope %v: %d jobs, %d requests, %v", tc.envelope, len(jobs), s.count(), err)
		}
		if got := s.held() > 1; got != tc.parallel {
			t.Errorf("envelope %v: held %d at once, want side by side: %t", tc.envelope, s.held(), tc.parallel)
		}
	}
}

// TestListEveryEnvelope: whichever envelope fields the service sends, up
// to whatever page size it serves, and whatever it answers past the last
// page, the list is read whole, each item once, in order; side by side
// when the first page tells how many pages there are; and a page past the
// last is asked only when nothing told where the list ends.
func TestListEveryEnvelope(t *testing.T) {
	fields := []string{"count", "next_page", "total_pages", "page_size"}
	for mask := range 1 << len(fields) {
		var envelope []string
		for i, f := range fields {
			if mask&(1<<i) != 0 {
				envelope = append(envelope, f)
			}
		}
		has := func(f string) bool { return slices.Contains(envelope, f) }
		for _, largest := range []int{0, 25} {
			for _, emptyPastEnd := range []bool{false, true} {
				for _, bound := range []int{1, 8} {
					name := fmt.Sprintf("envelope %v, largest page %d, empty past the end %t, bound %d", envelope, largest, emptyPastEnd, bound)
					// Pages slow enough to overlap when asked side by side,
					// where there are enough of them to tell.
					watch := largest == 25 && bound > 1
					s := &pagedServer{items: 260, envelope: envelope, largest: largest, emptyPastEnd: emptyPastEnd}
					if watch {
						s.delay = 20 * time.Millisecond
					}
					ts := s.start(t)
					jobs, err := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = bound }).ListJobs(context.Background(), testWS, JobFilter{})
					if err != nil || !slices.Equal(idsOf(jobs), jobIDs(260)) {
						t.Errorf("%s: %d jobs, %v", name, len(jobs), err)
						continue
					}
					size := cmp.Or(largest, PageSize)
					pages := (260 + size - 1) / size
					told := has("next_page") || has("total_pages") || has("count")
					if want := pages + map[bool]int{true: 0, false: 1}[told]; s.count() != want {
						t.Errorf("%s: %d requests, want %d", name, s.count(), want)
					}
					if sideBySide := s.held() > 1; watch && sideBySide != (has("total_pages") || has("count")) || bound == 1 && sideBySide {
						t.Errorf("%s: held %d requests at once", name, s.held())
					}
				}
			}
		}
	}
}

// TestListThatDoesNotAddUp: a list whose items do not add up to its count
// is read again, then fails saying it changed; one that has more items
// than its count, or serves the same page again, fails at once; none is
// returned short or read forever.
func TestListThatDoesNotAddUp(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   func(page int) map[string]any
		requests int
		want     string
	}{
		{"fewer items than count", func(page int) map[string]any {
			return map[string]any{"count": 270, "results": page1to3(page)}
		}, 6, "changed while it was read, twice in a row"},
		{"more items than count", func(page int) map[string]any {
			return map[string]any{"count": 150, "total_pages": 3, "results": page1to3(page)}
		}, 2, "more items than its count (150) by page 2"},
		{"the same page again, nothing else told", func(int) map[string]any {
			return map[string]any{"results": page1to3(1)}
		}, 2, "page 2 holds the same items as page 1"},
		{"the same page again, next_page named", func(page int) map[string]any {
			return map[string]any{"next_page": page + 1, "results": page1to3(1)}
		}, 2, "page 2 holds the same items as page 1"},
		{"a null next_page before total_pages", func(int) map[string]any {
			return map[string]any{"total_pages": 3, "next_page": nil, "results": page1to3(1)}
		}, 2, "changed while it was read, twice in a row"},
	} {
		var rec recorder
		ts := rec.server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			if page > 3 {
				http.Error(w, `{"detail": "Invalid page."}`, http.StatusNotFound)
				return
			}
			_ = json.NewEncoder(w).Encode(tc.answer(page))
		})
		_, err := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = 1 }).ListJobs(context.Background(), testWS, JobFilter{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || rec.count() != tc.requests {
			t.Errorf("%s: %d requests (want %d), err %v; want one saying %q", tc.name, rec.count(), tc.requests, err, tc.want)
		}
	}
}

// page1to3 is page 1, 2 or 3 of 260 jobs, 100 a page.
func page1to3(page int) []Job {
	jobs := []Job{}
	for _, id := range jobIDs(260)[min((page-1)*100, 260):min(page*100, 260)] {
		jobs = append(jobs, Job{ID: id})
	}
	return jobs
}

// TestListPagesDoNotEndForever: a list whose next page is asked by number
// stops with an error at the last page it is read to.
func TestListPagesDoNotEndForever(t *testing.T) {
	r := &reading[Job]{c: newTestClient(t, "http://127.0.0.1:1"), first: &Page[Job]{}}
	p := &Page[Job]{Results: []Job{{ID: "a"}}}
	if next, err := r.after(p, 7); next != 8 || err != nil {
		t.Errorf("after page 7: %d, %v", next, err)
	}
	if _, err := r.after(p, maxPages); err == nil || !strings.Contains(err.Error(), "do not end after") {
		t.Errorf("after the last page read to: %v", err)
	}
}

// TestListNotNumberedOneByOne: a first page whose next_page is not 2 is
// followed one page after another, as it names them.
func TestListNotNumberedOneByOne(t *testing.T) {
	s := &pagedServer{items: 300, envelope: fullEnvelope}
	s.hook = func(_ *pagedServer, _, page int, w http.ResponseWriter, _ *http.Request) bool {
		next := map[int]any{1: 5, 5: 9, 9: nil}[page]
		_ = json.NewEncoder(w).Encode(map[string]any{"count": 3, "total_pages": 3, "next_page": next, "results": []Job{{ID: strconv.Itoa(page)}}})
		return true
	}
	ts := s.start(t)
	jobs, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || !slices.Equal(idsOf(jobs), []string{"1", "5", "9"}) || !slices.Equal(s.pages, []int{1, 5, 9}) {
		t.Errorf("jobs %v, pages asked %v, %v", idsOf(jobs), s.pages, err)
	}
}

// TestListBoundIsShared: lists read at the same time, and other requests,
// share one bound: the server never holds more than it.
func TestListBoundIsShared(t *testing.T) {
	s := &pagedServer{items: 2000, envelope: fullEnvelope, delay: 5 * time.Millisecond}
	ts := s.start(t)
	c := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = 3 })
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if jobs, err := c.ListJobs(context.Background(), testWS, JobFilter{}); err != nil || len(jobs) != 2000 {
				t.Errorf("%d jobs, %v", len(jobs), err)
			}
		})
	}
	wg.Wait()
	if s.held() > 3 || s.count() != 80 {
		t.Errorf("held %d at once (at most 3), %d requests (want 80)", s.held(), s.count())
	}
}

// TestListUnderFaults: with 30% of the requests answered 429 or 503, the
// list is the same, in the same order, and the bound holds.
func TestListUnderFaults(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var mu sync.Mutex
	var faults atomic.Int64
	s := &pagedServer{items: 3000, envelope: fullEnvelope, delay: time.Millisecond}
	s.hook = func(_ *pagedServer, _, _ int, w http.ResponseWriter, _ *http.Request) bool {
		mu.Lock()
		fail := rng.Float64() < 0.3
		status := []int{429, 503}[rng.IntN(2)]
		mu.Unlock()
		if fail {
			faults.Add(1)
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", status)
		}
		return fail
	}
	ts := s.start(t)
	jobs, err := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = 10; c.MaxConcurrentRequests = 4 }).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || !slices.Equal(idsOf(jobs), jobIDs(3000)) {
		t.Fatalf("%d jobs, %v", len(jobs), err)
	}
	if faults.Load() == 0 || s.held() > 4 || int64(s.count()) != 30+faults.Load() {
		t.Errorf("%d faults, held %d at once (at most 4), %d requests (want 30 + the faults)", faults.Load(), s.held(), s.count())
	}
}

// TestRetryAfterPausesEveryRequest: a 429 with Retry-After to one page
// holds back the other pages of the list for that long, not only that one.
func TestRetryAfterPausesEveryRequest(t *testing.T) {
	var (
		mu      sync.Mutex
		limited time.Time // when the 429 was answered
		during  []int     // the pages asked within the pause
	)
	// Page 9 is answered 429 at once, the other pages after 150 ms. A page
	// sent before the client read the 429 arrives within moments of it;
	// one that arrives from 50 ms after it to the end of the pause was
	// sent during the pause.
	s := &pagedServer{items: 2000, envelope: fullEnvelope, delay: 150 * time.Millisecond}
	s.hook = func(_ *pagedServer, _, page int, w http.ResponseWriter, _ *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if since := time.Since(limited); !limited.IsZero() && since > 50*time.Millisecond && since < 950*time.Millisecond {
			during = append(during, page)
		}
		if page == 9 && limited.IsZero() {
			limited = time.Now()
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return true
		}
		return false
	}
	ts := s.start(t)
	jobs, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || !slices.Equal(idsOf(jobs), jobIDs(2000)) {
		t.Fatalf("%d jobs, %v", len(jobs), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(during) != 0 {
		t.Errorf("pages %v were asked during the pause", during)
	}
	if s.count() != 21 {
		t.Errorf("%d requests, want 21: 20 pages and one retry", s.count())
	}
}

// TestRetryAfterPausesOtherCalls: a 429 with Retry-After to a list holds
// back a trigger sent meanwhile.
func TestRetryAfterPausesOtherCalls(t *testing.T) {
	var limited atomic.Int64
	var triggered atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			triggered.Store(time.Now().UnixNano())
			w.WriteHeader(http.StatusCreated)
			return
		}
		if limited.Load() == 0 {
			limited.Store(time.Now().UnixNano())
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		writePage(w, nil, "a")
	}))
	t.Cleanup(ts.Close)
	c := newTestClient(t, ts.URL)
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := c.ListJobs(context.Background(), testWS, JobFilter{}); err != nil {
			t.Error(err)
		}
	})
	for limited.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if err := c.TriggerJob(context.Background(), testWS, "j1", false); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if d := time.Duration(triggered.Load() - limited.Load()); d < 950*time.Millisecond {
		t.Errorf("the trigger went %v after the 429, within its Retry-After of 1s", d)
	}
}

// TestRetryAfterPauseEndsWithContext: a request held by a pause gives up
// when its context ends, without being sent.
func TestRetryAfterPauseEndsWithContext(t *testing.T) {
	var rec recorder
	ts := rec.server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "slow down", http.StatusServiceUnavailable)
	})
	c := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = 0 })
	if _, err := c.ListJobs(context.Background(), testWS, JobFilter{}); StatusCode(err) != http.StatusServiceUnavailable {
		t.Fatalf("list: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.CancelJob(ctx, testWS, "j1")
	if err == nil || time.Since(start) > time.Second || rec.count() != 1 {
		t.Errorf("held cancel: %v after %v, %d requests (want only the list's)", err, time.Since(start), rec.count())
	}
	var e *Error
	if !errors.As(err, &e) || e.Sent {
		t.Errorf("a request never sent counts as sent: %#v", err)
	}
}

// TestListChangedWhileRead: a list whose count changes between its pages is
// read again from the start, once, the first reading forgotten; when it
// changes again, the read fails and says why.
func TestListChangedWhileRead(t *testing.T) {
	for _, bound := range []int{1, 8} {
		for _, changes := range []int{1, 2} {
			s := &pagedServer{items: 500, envelope: fullEnvelope}
			left := changes
			s.hook = func(s *pagedServer, _, page int, _ http.ResponseWriter, _ *http.Request) bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				if page == 3 && left > 0 {
					// A job is created before page 3 is served.
					left--
					s.items++
				}
				return false
			}
			ts := s.start(t)
			c := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = bound })
			resets := 0
			v, jobs := Collect[Job](nil, 0)
			reset := v.Reset
			v.Reset = func() { resets++; reset() }
			err := c.EachJobPage(context.Background(), testWS, JobFilter{}, v)
			switch changes {
			case 1:
				if err != nil || resets != 1 || !slices.Equal(idsOf(*jobs), jobIDs(501)) {
					t.Errorf("bound %d, one change: %d jobs, %d resets, %v", bound, len(*jobs), resets, err)
				}
			case 2:
				if !errors.Is(err, ErrListChanged) || !strings.Contains(err.Error(), "twice in a row") || resets != 1 {
					t.Errorf("bound %d, two changes: %d resets, %v", bound, resets, err)
				}
			}
		}
	}
}

// TestListShrunkWhileRead: a page past the end of a list that shrank since
// its first page (404) is a change too: the list is read again.
func TestListShrunkWhileRead(t *testing.T) {
	s := &pagedServer{items: 1000, envelope: fullEnvelope}
	shrunk := false
	s.hook = func(s *pagedServer, _, page int, _ http.ResponseWriter, _ *http.Request) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if page == 2 && !shrunk {
			shrunk = true
			s.items = 850
		}
		return false
	}
	ts := s.start(t)
	jobs, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || !slices.Equal(idsOf(jobs), jobIDs(850)) {
		t.Errorf("%d jobs, %v", len(jobs), err)
	}
}

// TestListLimitAsksNoMoreThanNeeded: a visitor that wants n more items
// gets no page asked that could not be needed for them.
func TestListLimitAsksNoMoreThanNeeded(t *testing.T) {
	for _, tc := range []struct{ limit, requests int }{{1, 1}, {100, 1}, {101, 2}, {150, 2}, {450, 5}, {5000, 10}} {
		s := &pagedServer{items: 1000, envelope: fullEnvelope}
		ts := s.start(t)
		v, jobs := Collect[Job](nil, tc.limit)
		err := newTestClient(t, ts.URL).EachJobPage(context.Background(), testWS, JobFilter{}, v)
		if err != nil || !slices.Equal(idsOf(*jobs), jobIDs(min(tc.limit, 1000))) || s.count() != tc.requests {
			t.Errorf("limit %d: %d jobs, %d requests (want %d), %v", tc.limit, len(*jobs), s.count(), tc.requests, err)
		}
	}
}

// TestListStopsAtTheFoundPage: a visitor that stops gets no further page,
// and the pages asked beside it are given up.
func TestListStopsAtTheFoundPage(t *testing.T) {
	s := &pagedServer{items: 3000, envelope: fullEnvelope, delay: 5 * time.Millisecond}
	ts := s.start(t)
	v, found := Collect(func(j Job) bool { return j.ID == "job-00250" }, 1)
	err := newTestClient(t, ts.URL).EachJobPage(context.Background(), testWS, JobFilter{}, v)
	if err != nil || len(*found) != 1 {
		t.Fatalf("found %v, %v", *found, err)
	}
	// Page 3 holds it: pages up to 18 were asked at most (16 ahead of
	// page 2, then of page 3), and some given up before they arrived.
	if n := s.count(); n < 3 || n > 18 {
		t.Errorf("%d requests, want 3 to 18", n)
	}
}
