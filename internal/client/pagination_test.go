package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"
)

// TestList_pageFailureWasSent: a page that cannot be followed came in an answer,
// so its request reached the service.
func TestList_pageFailureWasSent(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { clienttest.WritePage(w, 1, "a") }))
	t.Cleanup(ts.Close)
	_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusOK || !e.Sent || !e.MayHaveTakenEffect() || !strings.Contains(e.Error(), "does not move forward") {
		t.Errorf("%#v", err)
	}
}

func TestList_followsNextPage(t *testing.T) {
	t.Parallel()
	var rec clienttest.Recorder
	ts := rec.Server(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page") {
		case "1":
			clienttest.WritePage(w, 2, "a", "b")
		case "2":
			// next_page may skip: the client follows it, never computing pages.
			clienttest.WritePage(w, 5, "c")
		case "5":
			_ = json.NewEncoder(w).Encode(map[string]any{"count": 999, "total_pages": 9, "next_page": nil, "results": []Job{{ID: "d"}}})
		default:
			t.Errorf("unexpected page %q", r.URL.Query().Get("page"))
		}
	})
	c := newTestClient(t, ts.URL)
	active, name := false, "x y"
	jobs, err := c.ListJobs(context.Background(), testWS, JobFilter{IsActive: &active, Name: &name, Ordering: "-name"})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%d %s %s", len(jobs), jobs[0].ID, jobs[3].ID); got != "4 a d" {
		t.Errorf("jobs: %s", got)
	}
	q := rec.Reqs[0].URL.Query()
	if q.Get("page_size") != "100" || q.Get("is_active") != "false" || q.Get("name") != "x y" || q.Get("ordering") != "-name" {
		t.Errorf("query: %v", q)
	}
	for _, unset := range []string{"connector_name", "data_source", "schema_name"} {
		if q.Has(unset) {
			t.Errorf("unset filter %s was sent", unset)
		}
	}
	if rec.Count() != 3 {
		t.Errorf("%d requests, want 3", rec.Count())
	}
}

func TestList_stopsWhenNextPageDoesNotMoveForward(t *testing.T) {
	t.Parallel()
	for _, next := range []int{1, 0, -4} {
		var rec clienttest.Recorder
		ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) { clienttest.WritePage(w, next, "a") })
		_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
		if err == nil || !strings.Contains(err.Error(), "does not move forward") {
			t.Errorf("next_page %d: %v", next, err)
		}
		if rec.Count() != 1 {
			t.Errorf("next_page %d: %d requests", next, rec.Count())
		}
	}
}

// TestList_hostileAnswers: answers a well-behaved service would not give each
// end in the right result or a clear error, never a panic.
func TestList_hostileAnswers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, body string
		wantJobs   int
		wantErr    string
	}{
		{"HTML instead of JSON", "<!DOCTYPE html><html><body>Bad gateway</body></html>", 0, "not the JSON expected"},
		{"truncated JSON", `{"count": 2, "next_page": null, "results": [{"_id": "a", "name": "x"}, {"_id": "b"`, 0, "the answer was cut short"},
		{"empty body", "", 0, "empty body where JSON was expected"},
		{"a JSON array instead of an envelope", `[{"_id": "a"}]`, 0, "not the JSON expected"},
		{"a job of the wrong shape", `{"results": [{"_id": 12}]}`, 0, "not the JSON expected"},
		{"every optional field missing", `{}`, 0, ""},
		{"results null", `{"count": 0, "next_page": null, "results": null}`, 0, ""},
		{"only results, the same on every page", `{"results": [{"_id": "a"}, {"_id": "b"}]}`, 0, "page 2 holds the same items as page 1"},
		{"unknown fields", `{"next_page": null, "results": [{"_id": "a", "colour": "blue", "_links": {"self": "x"}}], "extra": {"x": [1, 2]}}`, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			jobs, err := newTestClient(t, clienttest.Serve(t, c.body)).ListJobs(context.Background(), testWS, JobFilter{})
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

// TestList_nextPageThatNeverAdvances: a service that points back at the same page
// ends the walk with an error after one request, instead of looping.
func TestList_nextPageThatNeverAdvances(t *testing.T) {
	t.Parallel()
	for _, next := range []string{"1", "0", "-3"} {
		var rec clienttest.Recorder
		ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"next_page": `+next+`, "results": [{"_id": "a"}]}`)
		})
		_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
		if err == nil || !strings.Contains(err.Error(), "does not move forward") || rec.Count() != 1 {
			t.Errorf("next_page %s: %d requests, err %v", next, rec.Count(), err)
		}
	}
}

// TestList_emptyPagesThatNeverEnd: a service that sends empty pages, each naming
// the next, is stopped at the first.
func TestList_emptyPagesThatNeverEnd(t *testing.T) {
	t.Parallel()
	var rec clienttest.Recorder
	ts := rec.Server(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintf(w, `{"next_page": %d, "results": []}`, n+1)
	})
	_, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err == nil || !strings.Contains(err.Error(), "is empty but names a next page") || rec.Count() != 1 {
		t.Errorf("%d requests, err %v", rec.Count(), err)
	}
}

// TestList_sideBySideKeepsOrder: whatever the bound, a list is read whole, in
// order, each page once, with never more requests held at once than the
// bound; and with a bound above 1 the pages are read side by side.
func TestList_sideBySideKeepsOrder(t *testing.T) {
	t.Parallel()
	for _, bound := range []int{1, 3, 8} {
		for _, items := range []int{0, 1, 100, 101, 1000, 1050} {
			s := &clienttest.PagedServer{Items: items, Envelope: clienttest.FullEnvelope, Delay: 20 * time.Millisecond}
			ts := s.Start(t)
			jobs, err := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = bound }).ListJobs(context.Background(), testWS, JobFilter{})
			if err != nil {
				t.Fatal(err)
			}
			pages := max((items+PageSize-1)/PageSize, 1)
			if !slices.Equal(idsOf(jobs), clienttest.JobIDs(items)) {
				t.Errorf("bound %d, %d Items: %d jobs, not in order", bound, items, len(jobs))
			}
			if s.Count() != pages {
				t.Errorf("bound %d, %d Items: %d requests, want %d", bound, items, s.Count(), pages)
			}
			if s.Held() > bound || bound > 1 && pages > 2 && s.Held() < 2 || bound == 1 && s.Held() != 1 {
				t.Errorf("bound %d, %d Items: the server held %d requests at once", bound, items, s.Held())
			}
		}
	}
}

// TestList_envelopes: the pages are asked side by side only when the first
// page tells how many there are: from total_pages, or count over the page
// size; else one after another, following next_page. Either way the result
// is the whole list in order.
func TestList_envelopes(t *testing.T) {
	t.Parallel()
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
		s := &clienttest.PagedServer{Items: 950, Envelope: tc.envelope, Delay: 20 * time.Millisecond}
		ts := s.Start(t)
		jobs, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
		if err != nil || !slices.Equal(idsOf(jobs), clienttest.JobIDs(950)) || s.Count() != 10 {
			t.Errorf("envelope %v: %d jobs, %d requests, %v", tc.envelope, len(jobs), s.Count(), err)
		}
		if got := s.Held() > 1; got != tc.parallel {
			t.Errorf("envelope %v: held %d at once, want side by side: %t", tc.envelope, s.Held(), tc.parallel)
		}
	}
}

// TestList_everyEnvelope: whichever envelope fields the service sends, up
// to whatever page size it serves, and whatever it answers past the last
// page, the list is read whole, each item once, in order; side by side
// when the first page tells how many pages there are; and a page past the
// last is asked only when nothing told where the list ends.
func TestList_everyEnvelope(t *testing.T) {
	t.Parallel()
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
					s := &clienttest.PagedServer{Items: 260, Envelope: envelope, Largest: largest, EmptyPastEnd: emptyPastEnd}
					if watch {
						s.Delay = 20 * time.Millisecond
					}
					ts := s.Start(t)
					jobs, err := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = bound }).ListJobs(context.Background(), testWS, JobFilter{})
					if err != nil || !slices.Equal(idsOf(jobs), clienttest.JobIDs(260)) {
						t.Errorf("%s: %d jobs, %v", name, len(jobs), err)
						continue
					}
					size := cmp.Or(largest, PageSize)
					pages := (260 + size - 1) / size
					told := has("next_page") || has("total_pages") || has("count")
					if want := pages + map[bool]int{true: 0, false: 1}[told]; s.Count() != want {
						t.Errorf("%s: %d requests, want %d", name, s.Count(), want)
					}
					if sideBySide := s.Held() > 1; watch && sideBySide != (has("total_pages") || has("count")) || bound == 1 && sideBySide {
						t.Errorf("%s: held %d requests at once", name, s.Held())
					}
				}
			}
		}
	}
}

// TestList_thatDoesNotAddUp: a list whose items do not add up to its count
// is read again, then fails saying it changed; one that has more items
// than its count, or serves the same page again, fails at once; none is
// returned short or read forever.
func TestList_thatDoesNotAddUp(t *testing.T) {
	t.Parallel()
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
		var rec clienttest.Recorder
		ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			if page > 3 {
				http.Error(w, `{"detail": "Invalid page."}`, http.StatusNotFound)
				return
			}
			_ = json.NewEncoder(w).Encode(tc.answer(page))
		})
		_, err := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = 1 }).ListJobs(context.Background(), testWS, JobFilter{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || rec.Count() != tc.requests {
			t.Errorf("%s: %d requests (want %d), err %v; want one saying %q", tc.name, rec.Count(), tc.requests, err, tc.want)
		}
	}
}

// page1to3 is page 1, 2 or 3 of 260 jobs, 100 a page.
func page1to3(page int) []Job {
	jobs := []Job{}
	for _, id := range clienttest.JobIDs(260)[min((page-1)*100, 260):min(page*100, 260)] {
		jobs = append(jobs, Job{ID: id})
	}
	return jobs
}

// TestList_pagesDoNotEndForever: a list whose next page is asked by number
// stops with an error at the last page it is read to.
func TestList_pagesDoNotEndForever(t *testing.T) {
	t.Parallel()
	r := &reading[Job]{c: newTestClient(t, "http://127.0.0.1:1").Client, first: &Page[Job]{}}
	p := &Page[Job]{Results: []Job{{ID: "a"}}}
	if next, err := r.after(p, 7); next != 8 || err != nil {
		t.Errorf("after page 7: %d, %v", next, err)
	}
	if _, err := r.after(p, maxPages); err == nil || !strings.Contains(err.Error(), "do not end after") {
		t.Errorf("after the last page read to: %v", err)
	}
}

// TestList_notNumberedOneByOne: a first page whose next_page is not 2 is
// followed one page after another, as it names them.
func TestList_notNumberedOneByOne(t *testing.T) {
	t.Parallel()
	s := &clienttest.PagedServer{Items: 300, Envelope: clienttest.FullEnvelope}
	s.Hook = func(_ *clienttest.PagedServer, _, page int, w http.ResponseWriter, _ *http.Request) bool {
		next := map[int]any{1: 5, 5: 9, 9: nil}[page]
		_ = json.NewEncoder(w).Encode(map[string]any{"count": 3, "total_pages": 3, "next_page": next, "results": []Job{{ID: strconv.Itoa(page)}}})
		return true
	}
	ts := s.Start(t)
	jobs, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || !slices.Equal(idsOf(jobs), []string{"1", "5", "9"}) || !slices.Equal(s.Pages, []int{1, 5, 9}) {
		t.Errorf("jobs %v, pages asked %v, %v", idsOf(jobs), s.Pages, err)
	}
}

// TestList_boundIsShared: lists read at the same time, and other requests,
// share one bound: the server never holds more than it.
func TestList_boundIsShared(t *testing.T) {
	t.Parallel()
	s := &clienttest.PagedServer{Items: 2000, Envelope: clienttest.FullEnvelope, Delay: 5 * time.Millisecond}
	ts := s.Start(t)
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
	if s.Held() > 3 || s.Count() != 80 {
		t.Errorf("held %d at once (at most 3), %d requests (want 80)", s.Held(), s.Count())
	}
}

// TestList_underFaults: with 30% of the requests answered 429 or 503, the
// list is the same, in the same order, and the bound holds.
func TestList_underFaults(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var mu sync.Mutex
	var faults atomic.Int64
	s := &clienttest.PagedServer{Items: 3000, Envelope: clienttest.FullEnvelope, Delay: time.Millisecond}
	s.Hook = func(_ *clienttest.PagedServer, _, _ int, w http.ResponseWriter, _ *http.Request) bool {
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
	ts := s.Start(t)
	jobs, err := newTestClient(t, ts.URL, func(c *Config) { c.MaxRetries = 10; c.MaxConcurrentRequests = 4 }).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || !slices.Equal(idsOf(jobs), clienttest.JobIDs(3000)) {
		t.Fatalf("%d jobs, %v", len(jobs), err)
	}
	if faults.Load() == 0 || s.Held() > 4 || int64(s.Count()) != 30+faults.Load() {
		t.Errorf("%d faults, held %d at once (at most 4), %d requests (want 30 + the faults)", faults.Load(), s.Held(), s.Count())
	}
}

// TestList_changedWhileRead: a list whose count changes between its pages is
// read again from the start, once, the first reading forgotten; when it
// changes again, the read fails and says why.
func TestList_changedWhileRead(t *testing.T) {
	t.Parallel()
	for _, bound := range []int{1, 8} {
		for _, changes := range []int{1, 2} {
			s := &clienttest.PagedServer{Items: 500, Envelope: clienttest.FullEnvelope}
			left := changes
			s.Hook = func(s *clienttest.PagedServer, _, page int, _ http.ResponseWriter, _ *http.Request) bool {
				s.Mu.Lock()
				defer s.Mu.Unlock()
				if page == 3 && left > 0 {
					// A job is created before page 3 is served.
					left--
					s.Items++
				}
				return false
			}
			ts := s.Start(t)
			c := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = bound })
			resets := 0
			v, jobs := Collect[Job](nil, 0)
			reset := v.Reset
			v.Reset = func() { resets++; reset() }
			err := c.EachJobPage(context.Background(), testWS, JobFilter{}, v)
			switch changes {
			case 1:
				if err != nil || resets != 1 || !slices.Equal(idsOf(*jobs), clienttest.JobIDs(501)) {
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

// TestList_shrunkWhileRead: a page past the end of a list that shrank since
// its first page (404) is a change too: the list is read again.
func TestList_shrunkWhileRead(t *testing.T) {
	t.Parallel()
	s := &clienttest.PagedServer{Items: 1000, Envelope: clienttest.FullEnvelope}
	shrunk := false
	s.Hook = func(s *clienttest.PagedServer, _, page int, _ http.ResponseWriter, _ *http.Request) bool {
		s.Mu.Lock()
		defer s.Mu.Unlock()
		if page == 2 && !shrunk {
			shrunk = true
			s.Items = 850
		}
		return false
	}
	ts := s.Start(t)
	jobs, err := newTestClient(t, ts.URL).ListJobs(context.Background(), testWS, JobFilter{})
	if err != nil || !slices.Equal(idsOf(jobs), clienttest.JobIDs(850)) {
		t.Errorf("%d jobs, %v", len(jobs), err)
	}
}

// TestList_limitAsksNoMoreThanNeeded: a visitor that wants n more items
// gets no page asked that could not be needed for them.
func TestList_limitAsksNoMoreThanNeeded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ limit, requests int }{{1, 1}, {100, 1}, {101, 2}, {150, 2}, {450, 5}, {5000, 10}} {
		s := &clienttest.PagedServer{Items: 1000, Envelope: clienttest.FullEnvelope}
		ts := s.Start(t)
		v, jobs := Collect[Job](nil, tc.limit)
		err := newTestClient(t, ts.URL).EachJobPage(context.Background(), testWS, JobFilter{}, v)
		if err != nil || !slices.Equal(idsOf(*jobs), clienttest.JobIDs(min(tc.limit, 1000))) || s.Count() != tc.requests {
			t.Errorf("limit %d: %d jobs, %d requests (want %d), %v", tc.limit, len(*jobs), s.Count(), tc.requests, err)
		}
	}
}

// TestList_stopsAtTheFoundPage: a visitor that stops gets no further page,
// and the pages asked beside it are given up.
func TestList_stopsAtTheFoundPage(t *testing.T) {
	t.Parallel()
	s := &clienttest.PagedServer{Items: 3000, Envelope: clienttest.FullEnvelope, Delay: 5 * time.Millisecond}
	ts := s.Start(t)
	v, found := Collect(func(j Job) bool { return j.ID == "job-00250" }, 1)
	err := newTestClient(t, ts.URL).EachJobPage(context.Background(), testWS, JobFilter{}, v)
	if err != nil || len(*found) != 1 {
		t.Fatalf("found %v, %v", *found, err)
	}
	// Page 3 holds it: pages up to 18 were asked at most (16 ahead of
	// page 2, then of page 3), and some given up before they arrived.
	if n := s.Count(); n < 3 || n > 18 {
		t.Errorf("%d requests, want 3 to 18", n)
	}
}

// jobsPage is the JSON of a page of n jobs, as the service sends it.
func jobsPage(n int) []byte {
	jobs := make([]map[string]any, n)
	for i := range jobs {
		jobs[i] = map[string]any{
			"_id": fmt.Sprintf("6f1c2d3e-4b5a-4c7d-8e9f-%012d", i), "_created_at": "2026-01-05T10:00:00.000Z",
			"_updated_at": "2026-01-05T10:01:00.000Z", "data_source": "salesforce", "connector_name": "crm",
			"schema_name": "analytics", "name": fmt.Sprintf("salesforce to analytics %03d", i), "is_active": i%4 != 0,
		}
	}
	b, _ := json.Marshal(map[string]any{"count": 10000, "next_page": 2, "previous_page": nil, "page_size": n, "results": jobs})
	return b
}

// BenchmarkDecodeJobsPage decodes a page of 100 jobs; allocs/job is what
// `make bench` reports.
func BenchmarkDecodeJobsPage(b *testing.B) {
	page := jobsPage(PageSize)
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		p, err := DecodePage[Job](bytes.NewReader(page))
		if err != nil || len(p.Results) != PageSize {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	allocs := testing.AllocsPerRun(20, func() { _, _ = DecodePage[Job](bytes.NewReader(page)) })
	b.ReportMetric(allocs/PageSize, "allocs/job")
}

// FuzzDecodePage feeds any bytes to the decoding of a page of jobs: it never
// panics, and what it accepts survives a round trip unchanged.
func FuzzDecodePage(f *testing.F) {
	for _, s := range []string{
		`{"count": 1, "next_page": null, "results": [{"_id": "a", "name": "x", "is_active": true}]}`,
		`{}`, `{"results": null}`, `{"next_page": 2, "results": []}`, `[]`, ``, `<html>`, `{"results": [{"_id": 1}]}`,
		`{"count": 9223372036854775808}`, `{"results": [{"_id": "a"}]} trailing`, "{\"results\": [{\"name\": \"\xff\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Page[Job]
		if err := request.Decode(bytes.NewReader(b), &p); err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("re-encoding an accepted page: %v", err)
		}
		var q Page[Job]
		if err := request.Decode(bytes.NewReader(again), &q); err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip of %q: %+v, then %+v (%v)", b, p, q, err)
		}
	})
}

// growingServer serves a list of connectors, in the order of ids, page by
// page; before answers, holding mu, before each page is cut.
type growingServer struct {
	mu       sync.Mutex
	ids      []string
	envelope []string
	before   func(s *growingServer, page int)
	pages    []int // asked, in order
	added    int
}

// add puts a new connector at index i of the order.
func (s *growingServer) add(i int) {
	s.added++
	s.ids = slices.Insert(s.ids, i, fmt.Sprintf("new-%04d", s.added))
}

func (s *growingServer) start(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
		s.mu.Lock()
		defer s.mu.Unlock()
		s.pages = append(s.pages, page)
		if s.before != nil {
			s.before(s, page)
		}
		total := max((len(s.ids)+size-1)/size, 1)
		if page < 1 || page > total {
			http.Error(w, `{"detail": "Invalid page."}`, http.StatusNotFound)
			return
		}
		env := map[string]any{}
		for _, f := range s.envelope {
			switch f {
			case "count":
				env["count"] = len(s.ids)
			case "total_pages":
				env["total_pages"] = total
			case "next_page":
				env["next_page"] = nil
				if page < total {
					env["next_page"] = page + 1
				}
			}
		}
		var results []map[string]any
		for _, id := range s.ids[(page-1)*size : min(page*size, len(s.ids))] {
			results = append(results, map[string]any{"_id": id, "name": "desk " + id, "connector_name": "customer_service"})
		}
		env["results"] = results
		_ = json.NewEncoder(w).Encode(env)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestList_readAsItGrows: connectors created while the list is read, ahead
// of the page being read or behind it, push others across a page's end; a
// list read as it grows still gives every connector it held at the start,
// each once, whatever the envelope tells (nothing, too), one page after
// another.
func TestList_readAsItGrows(t *testing.T) {
	t.Parallel()
	envelopes := [][]string{clienttest.FullEnvelope, {"count"}, {"total_pages"}, {"next_page"}, {}}
	places := map[string]func(s *growingServer) int{
		"first":  func(*growingServer) int { return 0 },
		"last":   func(s *growingServer) int { return len(s.ids) },
		"random": func(s *growingServer) int { return rand.IntN(len(s.ids) + 1) },
	}
	for _, env := range envelopes {
		for place, at := range places {
			s := &growingServer{ids: clienttest.JobIDs(450), envelope: env}
			s.before = func(s *growingServer, page int) {
				for range page * 7 { // more than a page in all, at the last
					s.add(at(s))
				}
			}
			ts := s.start(t)
			c := newTestClient(t, ts.URL, func(c *Config) { c.MaxConcurrentRequests = 8 })
			v, got := Collect[Connector](nil, 0)
			err := c.EachConnectorPageAsItGrows(context.Background(), testWS, ConnectorFilter{}, v)
			seen := map[string]int{}
			for _, conn := range *got {
				seen[conn.ID]++
			}
			for _, id := range clienttest.JobIDs(450) {
				if seen[id] != 1 {
					t.Errorf("%v, added %s: %s read %d times, want once", env, place, id, seen[id])
				}
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("%v, added %s: %s read %d times", env, place, id, n)
				}
			}
			for i, p := range s.pages {
				if p != i+1 {
					t.Fatalf("%v, added %s: pages asked %v, want one after another", env, place, s.pages)
				}
			}
			if err != nil || len(s.pages) < 5 {
				t.Errorf("%v, added %s: %d pages asked, %v", env, place, len(s.pages), err)
			}
		}
	}
}

// TestList_readAsItGrowsFailsOnADelete: a connector deleted while the list is
// read may pull another back across a page's end, unread: a count that
// falls, or fewer read than page 1 counted, is a list changed, read again,
// then failed.
func TestList_readAsItGrowsFailsOnADelete(t *testing.T) {
	t.Parallel()
	for _, env := range [][]string{clienttest.FullEnvelope, {"count"}} {
		for name, change := range map[string]func(s *growingServer){
			"deleted":                             func(s *growingServer) { s.ids = s.ids[1:] },
			"one deleted ahead, one added behind": func(s *growingServer) { s.ids = slices.Delete(s.ids, 220, 221); s.add(0) },
		} {
			s := &growingServer{ids: clienttest.JobIDs(250), envelope: env}
			s.before = func(s *growingServer, page int) {
				if page == 2 {
					change(s)
				}
			}
			ts := s.start(t)
			resets := 0
			v, got := Collect[Connector](nil, 0)
			reset := v.Reset
			v.Reset = func() { resets++; reset() }
			err := newTestClient(t, ts.URL).EachConnectorPageAsItGrows(context.Background(), testWS, ConnectorFilter{}, v)
			if !errors.Is(err, ErrListChanged) || !strings.Contains(err.Error(), "twice in a row") || resets != 1 {
				t.Errorf("%v, %s: %d read, %d resets, %v; want the list changed twice", env, name, len(*got), resets, err)
			}
		}
	}
}
