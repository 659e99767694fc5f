package client

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// connectorService is a test service of connectors that counts its
// requests, and can page, summarise, fail and hold its lists as a service
// the API allows may.
type connectorService struct {
	mu       sync.Mutex
	items    []map[string]any // in the service's order
	pageCap  int              // the largest page served; 0 means PageSize
	envelope []string         // envelope keys sent; nil means count, next_page and total_pages
	summary  bool             // list items leave streams out
	failPage int              // a list page answered 400
	// gate, when set, holds every list page until it is closed.
	gate           chan struct{}
	gets, pages    int
	listsAt, getAt []string // the path of each request, in order
}

func newConnectorService(t *testing.T, n int) (*connectorService, *Client) {
	t.Helper()
	s := &connectorService{}
	for i := range n {
		s.items = append(s.items, connectorItem(fmt.Sprintf("c%04d", i), "desk "+strconv.Itoa(i)))
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, newTestClient(t, ts.URL)
}

func connectorItem(id, name string) map[string]any {
	return map[string]any{
		"_id": id, "_created_at": "2026-11-21T09:30:00.123Z", "_updated_at": "2026-11-21T09:30:00.123Z",
		"name": name, "connector_name": ConnectorKindCustomerService,
		"configuration": map[string]any{"url": "https://a.example.com", "agent_email": "a@b.co"},
		"streams":       []string{"chats"},
	}
}

func (s *connectorService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/developers/workspaces/"+testWS+"/connectors/")
	id := strings.TrimSuffix(rest, "/")
	if r.Method == http.MethodGet && id == "" {
		s.list(w, r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.items, func(it map[string]any) bool { return it["_id"] == id })
	switch {
	case r.Method == http.MethodPost:
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		it := connectorItem(fmt.Sprintf("n%04d", len(s.items)), body["name"].(string))
		s.items = append(s.items, it)
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(it)
	case r.Method == http.MethodGet && i < 0:
		s.gets++
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail": "Not found."}`))
	case i < 0:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail": "Not found."}`))
	case r.Method == http.MethodGet:
		s.gets++
		s.getAt = append(s.getAt, id)
		_ = json.NewEncoder(w).Encode(s.items[i])
	case r.Method == http.MethodPatch:
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.items[i]["name"] = body["name"]
		_ = json.NewEncoder(w).Encode(s.items[i])
	case r.Method == http.MethodDelete:
		s.items = slices.Delete(s.items, i, i+1)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *connectorService) list(w http.ResponseWriter, r *http.Request) {
	// The page is as the service held it when asked, and answered once
	// the gate opens.
	s.mu.Lock()
	gate := s.gate
	s.pages++
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	s.listsAt = append(s.listsAt, strconv.Itoa(page))
	if page == s.failPage {
		s.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"detail": "Bad page."}`))
		return
	}
	items := s.items
	if name := r.URL.Query().Get("name"); name != "" {
		items = slices.DeleteFunc(slices.Clone(items), func(it map[string]any) bool { return it["name"] != name })
	}
	size := cmp.Or(s.pageCap, PageSize)
	pages := max((len(items)+size-1)/size, 1)
	lo, hi := min((page-1)*size, len(items)), min(page*size, len(items))
	results := make([]map[string]any, 0, hi-lo)
	for _, it := range items[lo:hi] {
		if s.summary {
			it = without(it, "streams")
		}
		results = append(results, it)
	}
	env := map[string]any{"count": len(items), "total_pages": pages, "next_page": nil, "results": results}
	if page < pages {
		env["next_page"] = page + 1
	}
	if s.envelope != nil {
		for k := range env {
			if k != "results" && !slices.Contains(s.envelope, k) {
				delete(env, k)
			}
		}
	}
	body, _ := json.Marshal(env)
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	_, _ = w.Write(body)
}

// without is it without the key out.
func without(it map[string]any, out string) map[string]any {
	c := make(map[string]any, len(it))
	for k, v := range it {
		if k != out {
			c[k] = v
		}
	}
	return c
}

func (s *connectorService) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets + s.pages
}

// readAll reads the connectors ids with workers reads at once, and checks
// each answer against the service.
func readAll(t *testing.T, c *Client, s *connectorService, ids []string, workers int) {
	t.Helper()
	names := map[string]any{}
	s.mu.Lock()
	for _, it := range s.items {
		names[it["_id"].(string)] = it["name"]
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	next := make(chan string)
	for range workers {
		wg.Go(func() {
			for id := range next {
				got, err := c.ReadConnector(context.Background(), testWS, id)
				if err != nil {
					t.Errorf("read %s: %v", id, err)
					continue
				}
				if got.ID != id || got.Name != names[id] || got.Configuration.URL != "https://a.example.com" || !slices.Equal(got.Streams, []string{"chats"}) || got.CreatedAt == "" {
					t.Errorf("read %s: got %+v", id, got)
				}
			}
		})
	}
	for _, id := range ids {
		next <- id
	}
	close(next)
	wg.Wait()
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = fmt.Sprintf("c%04d", i)
	}
	return out
}

func TestReads_atMostTwiceTheFloor(t *testing.T) {
	t.Parallel()
	for _, m := range []int{1, 100, 101, 500, 1500} {
		for _, n := range []int{1, 2, 3, 10, 500, 1500} {
			if n > m {
				continue
			}
			for _, workers := range []int{1, 10} {
				s, c := newConnectorService(t, m)
				// Every n-th connector of the workspace, so that the reads
				// are spread over its pages.
				var want []string
				for i := range n {
					want = append(want, ids(m)[i*m/n])
				}
				readAll(t, c, s, want, workers)
				pages := (m + PageSize - 1) / PageSize
				if got, bound := s.requests(), 2*min(n, pages)+1; got > bound {
					t.Errorf("%d connectors of %d, %d at once: %d requests, want at most %d", n, m, workers, got, bound)
				}
			}
		}
	}
}

func TestReads_pagesCappedBelowAsked(t *testing.T) {
	t.Parallel()
	s, c := newConnectorService(t, 500)
	s.pageCap = 20
	readAll(t, c, s, ids(500), 10)
	if got := s.requests(); got > 2*25+1 {
		t.Errorf("500 connectors over pages of 20: %d requests, want at most 51", got)
	}
}

func TestReads_listWithoutLength(t *testing.T) {
	t.Parallel()
	for _, env := range [][]string{{}, {"next_page"}} {
		s, c := newConnectorService(t, 250)
		s.envelope = env
		readAll(t, c, s, ids(250), 10)
		// Without a length, a list is not read whole for reads: each read
		// asks by ID, but for those page 1 answers.
		if s.gets > 250 || s.pages > 1 {
			t.Errorf("envelope %v: %d reads by ID and %d pages", env, s.gets, s.pages)
		}
	}
}

func TestReads_smallWorkspaceIsOnePage(t *testing.T) {
	t.Parallel()
	for _, env := range [][]string{nil, {}, {"next_page"}, {"count"}} {
		s, c := newConnectorService(t, 60)
		s.envelope = env
		readAll(t, c, s, ids(60), 1)
		if got := s.requests(); got != 2 {
			t.Errorf("envelope %v: 60 connectors on one page cost %d requests, want 2", env, got)
		}
	}
}

func TestReads_summaryAsksByID(t *testing.T) {
	t.Parallel()
	s, c := newConnectorService(t, 300)
	s.summary = true
	readAll(t, c, s, ids(300), 10)
	if s.gets != 300 {
		t.Errorf("%d reads by ID, want 300: a list item without streams is a summary", s.gets)
	}
	all, err := c.WorkspaceConnectors(context.Background(), testWS)
	if err != nil || len(all) != 300 || !slices.Equal(all[7].Streams, []string{"chats"}) {
		t.Errorf("workspace connectors from summaries: %d, %v", len(all), err)
	}
}

func TestReads_missAsksByID(t *testing.T) {
	t.Parallel()
	s, c := newConnectorService(t, 300)
	readAll(t, c, s, ids(300), 10)
	before := s.requests()
	_, err := c.ReadConnector(context.Background(), testWS, "gone")
	if !IsNotFound(err) || s.requests() != before+1 {
		t.Errorf("a connector the list lacks: %v, %d requests, want a 404 of one read by ID", err, s.requests()-before)
	}
}

func TestReads_everyWriteForgets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, c := newConnectorService(t, 300)
	readAll(t, c, s, ids(300), 10)
	write := map[string]func() error{
		"update": func() error {
			_, err := c.UpdateConnector(ctx, testWS, "c0007", ConnectorUpdate{Name: new("renamed")})
			return err
		},
		"create": func() error { _, err := c.CreateConnector(ctx, testWS, ConnectorSpec{Name: "new"}); return err },
		"delete": func() error { return c.DeleteConnector(ctx, testWS, "c0008") },
	}
	for _, op := range []string{"update", "create", "delete"} {
		if err := write[op](); err != nil {
			t.Fatal(err)
		}
		// Read every connector again: each answer must be the service's.
		s.mu.Lock()
		var now []string
		for _, it := range s.items {
			now = append(now, it["_id"].(string))
		}
		s.mu.Unlock()
		readAll(t, c, s, now, 10)
		if _, err := c.ReadConnector(ctx, testWS, "c0008"); op == "delete" && !IsNotFound(err) {
			t.Errorf("after the delete, a read of it: %v", err)
		}
		all, err := c.WorkspaceConnectors(ctx, testWS)
		if err != nil || len(all) != len(now) {
			t.Errorf("after the %s: %d listed (%v), want %d", op, len(all), err, len(now))
		}
	}
}

func TestReads_listInFlightAtAWriteIsNotKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, c := newConnectorService(t, 60)
	gate := make(chan struct{})
	s.gate = gate
	done := make(chan []Connector)
	go func() {
		all, _ := c.WorkspaceConnectors(ctx, testWS)
		done <- all
	}()
	// The page must have reached the service, not only been begun: else
	// the delete could overtake it.
	waitFor(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return c.reads.inFlight() && s.pages > 0
	})
	s.mu.Lock()
	s.gate = nil
	s.mu.Unlock()
	if err := c.DeleteConnector(ctx, testWS, "c0001"); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if got := <-done; len(got) != 60 {
		t.Errorf("the list begun before the delete: %d", len(got))
	}
	all, err := c.WorkspaceConnectors(ctx, testWS)
	if err != nil || len(all) != 59 {
		t.Errorf("a list after the delete: %d (%v), want 59: the list in flight at the delete was kept", len(all), err)
	}
	if _, err := c.ReadConnector(ctx, testWS, "c0001"); !IsNotFound(err) {
		t.Errorf("a read of the deleted connector: %v", err)
	}
}

func TestReads_failedListIsNotKept(t *testing.T) {
	t.Parallel()
	s, c := newConnectorService(t, 500)
	s.failPage = 3
	readAll(t, c, s, ids(500), 10)
	lists := s.pages
	// Each read asked by ID once the list failed; none starts a list again.
	readAll(t, c, s, ids(500)[:50], 10)
	if s.pages != lists {
		t.Errorf("a list was read again after one failed: %d pages, then %d", lists, s.pages)
	}
	// A write ends what was learnt; the list is then read again, and kept.
	s.mu.Lock()
	s.failPage = 0
	s.mu.Unlock()
	if _, err := c.UpdateConnector(context.Background(), testWS, "c0001", ConnectorUpdate{Name: new("x")}); err != nil {
		t.Fatal(err)
	}
	if all, err := c.WorkspaceConnectors(context.Background(), testWS); err != nil || len(all) != 500 || all[1].Name != "x" {
		t.Errorf("the list after the failure: %d, %v", len(all), err)
	}
}

func TestReads_listGoesOnForTheReadsThatWait(t *testing.T) {
	t.Parallel()
	s, c := newConnectorService(t, 300)
	gate := make(chan struct{})
	s.gate = gate
	first, cancel := context.WithCancel(context.Background())
	started := make(chan error)
	go func() { _, err := c.WorkspaceConnectors(first, testWS); started <- err }()
	waitFor(t, func() bool { return c.reads.inFlight() })
	waiter := make(chan []Connector)
	go func() { all, _ := c.WorkspaceConnectors(context.Background(), testWS); waiter <- all }()
	waitFor(t, func() bool { return c.reads.waiting() == 2 })
	cancel()
	if err := <-started; err == nil {
		t.Error("the cancelled read returned no error")
	}
	close(gate)
	if all := <-waiter; len(all) != 300 {
		t.Errorf("the read that waited got %d connectors: the list stopped with the read that started it", len(all))
	}
	if s.pages != 3 {
		t.Errorf("%d pages, want the one list of 3", s.pages)
	}
}

func TestReads_listAloneCancelledStops(t *testing.T) {
	t.Parallel()
	s, c := newConnectorService(t, 300)
	gate := make(chan struct{})
	s.gate = gate
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error)
	go func() { _, err := c.WorkspaceConnectors(ctx, testWS); ended <- err }()
	waitFor(t, func() bool { return c.reads.inFlight() })
	cancel()
	if err := <-ended; err == nil {
		t.Error("the cancelled read returned no error")
	}
	if c.reads.inFlight() {
		t.Error("a list no read waits for is still held")
	}
	close(gate)
	all, err := c.WorkspaceConnectors(context.Background(), testWS)
	if err != nil || len(all) != 300 {
		t.Errorf("the next list: %d, %v", len(all), err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// inFlight tells whether a list of testWS is in flight or held.
func (x *connectorReads) inFlight() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.of(testWS)
	return w.list != nil || w.probe != nil
}

// waiting is how many reads wait for the list of testWS, or its page 1.
func (x *connectorReads) waiting() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, l := range []*listRead{x.of(testWS).list, x.of(testWS).probe} {
		if l != nil {
			n += l.waiting
		}
	}
	return n
}

func TestReads_listSharesPageOneInFlight(t *testing.T) {
	t.Parallel()
	s, c := newConnectorService(t, 300)
	readAll(t, c, s, ids(1), 1) // the first read asks by ID
	gate := make(chan struct{})
	s.mu.Lock()
	s.gate = gate
	s.mu.Unlock()
	read := make(chan error)
	go func() { _, err := c.ReadConnector(context.Background(), testWS, "c0250"); read <- err }()
	waitFor(t, c.reads.inFlight)
	listed := make(chan []Connector)
	go func() { all, _ := c.WorkspaceConnectors(context.Background(), testWS); listed <- all }()
	waitFor(t, func() bool { return c.reads.waiting() == 2 })
	close(gate)
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if all := <-listed; len(all) != 300 {
		t.Errorf("listed %d connectors, want 300", len(all))
	}
	if s.pages != 3 {
		t.Errorf("%d pages asked, want 3: page 1 read once, for the read and the list", s.pages)
	}
}

func TestReads_namedFromTheListHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, c := newConnectorService(t, 300)
	got, err := c.ConnectorsNamed(ctx, testWS, "desk 7")
	if err != nil || s.pages != 1 {
		t.Fatalf("a name without a list held: %v, %d pages, want one list of the name", err, s.pages)
	}
	if _, err := c.WorkspaceConnectors(ctx, testWS); err != nil {
		t.Fatal(err)
	}
	pages := s.pages
	again, err := c.ConnectorsNamed(ctx, testWS, "desk 7")
	if err != nil || s.pages != pages || len(again) != len(got) {
		t.Errorf("a name with the list held: %d connectors (%v), %d more pages; want %d and none", len(again), err, s.pages-pages, len(got))
	}
	if err := c.DeleteConnector(ctx, testWS, "c0007"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConnectorsNamed(ctx, testWS, "desk 7"); err != nil || s.pages == pages {
		t.Errorf("after a write, the name was answered from the list held before it: %v", err)
	}
}
