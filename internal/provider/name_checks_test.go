package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// gatedLists is a sandbox whose reads (lists of connectors among them) are
// held, once the sandbox has answered them, until the test lets them go: a
// list in flight shows the workspace as it was when the list began.
type gatedLists struct {
	srv    *sandbox.Server
	data   *providerData
	lists  atomic.Int64 // lists of connectors answered
	byName atomic.Int64 // of which, lists of one name
	mu     sync.Mutex
	gate   chan struct{} // nil: lists go at once
	began  chan struct{} // a list reached the gate
	// before, when set, runs before the sandbox answers a read.
	before func(*http.Request)
	// unavailable is how many reads from now on answer 503 instead.
	unavailable atomic.Int64
}

func newGatedLists(t *testing.T, edit ...func(*client.Config)) *gatedLists {
	t.Helper()
	srv, err := sandbox.New(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g := &gatedLists{srv: srv, began: make(chan struct{}, 64)}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			srv.ServeHTTP(w, r)
			return
		}
		if g.before != nil {
			g.before(r)
		}
		if g.unavailable.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		if strings.HasSuffix(r.URL.Path, "/connectors/") && r.URL.Query().Get("page_size") != "1" {
			g.lists.Add(1)
			if r.URL.Query().Has("name") {
				g.byName.Add(1)
			}
		}
		g.mu.Lock()
		gate := g.gate
		g.mu.Unlock()
		if gate != nil {
			g.began <- struct{}{}
			<-gate
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(ts.Close)
	g.data = unitData(t, ts.URL, sandbox.DefaultAPIKey, srv.Workspaces()[0], edit...)
	return g
}

// hold makes the lists from now on wait until the function returned is called.
func (g *gatedLists) hold() (release func()) {
	gate := make(chan struct{})
	g.mu.Lock()
	g.gate = gate
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		g.gate = nil
		g.mu.Unlock()
		close(gate)
	}
}

type checked struct {
	found []client.Connector
	err   error
}

func (g *gatedLists) check(ctx context.Context, name string) <-chan checked {
	out := make(chan checked, 1)
	go func() {
		found, err := g.data.checks.named(ctx, g.data.client, g.data.workspaceID, name)
		out <- checked{found, err}
	}()
	return out
}

// waiting is the number of checks of the workspace waiting for the next list.
func (g *gatedLists) waiting() int {
	g.data.checks.mu.Lock()
	defer g.data.checks.mu.Unlock()
	return len(g.data.checks.of(g.data.workspaceID).waiting)
}

func (g *gatedLists) untilWaiting(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); g.waiting() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d checks waiting, want %d", g.waiting(), n)
		}
	}
}

// untilJoined waits until the whole list waiting to be sent holds n checks.
func (g *gatedLists) untilJoined(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		g.data.checks.mu.Lock()
		open := g.data.checks.of(g.data.workspaceID).open
		held := open != nil && len(open.checks) == n
		g.data.checks.mu.Unlock()
		if held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the list waiting to be sent does not hold %d checks", n)
		}
	}
}

// joinedBehindARead asks two checks, "first" and name, while the one
// request at a time (a read of connector id) is held, so that both join the
// one whole list waiting to be sent, and returns name's answer once "first"
// found none.
func (g *gatedLists) joinedBehindARead(t *testing.T, id, name string) checked {
	t.Helper()
	release := g.hold()
	read := make(chan error, 1)
	go func() { _, err := g.data.client.GetConnector(t.Context(), g.data.workspaceID, id); read <- err }()
	<-g.began // the one request at a time is held
	first := g.check(t.Context(), "first")
	g.untilJoined(t, 1)
	second := g.check(t.Context(), name)
	g.untilJoined(t, 2)
	release()
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if r := <-first; r.err != nil || len(r.found) != 0 {
		t.Errorf("first: %v (%v)", r.found, r.err)
	}
	return <-second
}

// sideCreate makes a connector by the sandbox's side door, past the
// provider's name checks.
func (g *gatedLists) sideCreate(t *testing.T, name string) {
	if err := g.srv.AddConnectors(g.data.workspaceID, name); err != nil {
		t.Error(err)
	}
}

// sideDelete deletes the connector of name by the sandbox's API, past the
// provider's client.
func (g *gatedLists) sideDelete(t *testing.T, name string) {
	for _, id := range g.srv.ConnectorIDs(g.data.workspaceID) {
		if c, ok := g.srv.Connector(g.data.workspaceID, id); ok && c.Name == name {
			req := httptest.NewRequest(http.MethodDelete, fmt.Sprintf("/developers/workspaces/%s/connectors/%s/", g.data.workspaceID, id), nil)
			req.Header.Set("Authorization", sandbox.DefaultAPIKey)
			rec := httptest.NewRecorder()
			g.srv.ServeHTTP(rec, req)
			if rec.Code != http.StatusNoContent {
				t.Errorf("delete %s: %d %s", name, rec.Code, rec.Body)
			}
			return
		}
	}
	t.Errorf("no connector named %q", name)
}

func deskNamed(name string) client.ConnectorSpec {
	return client.ConnectorSpec{Name: name, URL: "https://acme.example-helpdesk.com", Token: "t", AgentEmail: "agent@acme.com"}
}

// TestNameChecks_neverAnsweredByAnEarlierList: a check asked while a list is
// in flight waits for the next list, which sees a connector made meanwhile;
// answered by the list in flight, it would find the name free.
func TestNameChecks_neverAnsweredByAnEarlierList(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t)
	release := g.hold()
	first := g.check(t.Context(), "first")
	<-g.began
	made(t, g.data, deskNamed("late"))
	late := g.check(t.Context(), "late")
	g.untilWaiting(t, 1)
	release()
	if r := <-first; r.err != nil || len(r.found) != 0 {
		t.Errorf("first: %v, %v", r.found, r.err)
	}
	if r := <-late; r.err != nil || len(r.found) != 1 || r.found[0].Name != "late" {
		t.Errorf("the check asked after the connector was made found %v (%v): it was answered by a list that began before", r.found, r.err)
	}
	if n := g.lists.Load(); n != 2 {
		t.Errorf("%d lists, want 2", n)
	}
}

// TestNameChecks_waitingChecksShareOneList: the checks asked while a list is
// in flight share the next one, whatever their number, in a workspace of
// one page.
func TestNameChecks_waitingChecksShareOneList(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t)
	g.data.checks.counted(g.data.workspaceID, 0)
	made(t, g.data, deskNamed("taken 3"))
	release := g.hold()
	first := g.check(t.Context(), "first")
	<-g.began
	var rest []<-chan checked
	for i := range 10 {
		rest = append(rest, g.check(t.Context(), fmt.Sprintf("taken %d", i)))
	}
	g.untilWaiting(t, 10)
	release()
	<-first
	for i, ch := range rest {
		r := <-ch
		if want := map[bool]int{true: 1, false: 0}[i == 3]; r.err != nil || len(r.found) != want {
			t.Errorf("check %d found %v (%v), want %d", i, r.found, r.err, want)
		}
	}
	if n, byName := g.lists.Load(), g.byName.Load(); n != 2 || byName != 0 {
		t.Errorf("11 checks sent %d lists (%d of one name), want 2 whole lists", n, byName)
	}
}

// TestNameChecks_cheaperListChosen: in a workspace of three pages, fewer
// checks than pages list their names; as many as pages or more read the
// whole list; an unknown size lists one name alone, several whole.
func TestNameChecks_cheaperListChosen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		held, names       int
		lists, listByName int64
	}{
		{held: 250, names: 2, lists: 2, listByName: 2},
		{held: 250, names: 3, lists: 3, listByName: 0},
		{held: 250, names: 8, lists: 3, listByName: 0},
		{held: -1, names: 1, lists: 1, listByName: 1},
		{held: -1, names: 4, lists: 3, listByName: 0},
		{held: 1500, names: 10, lists: 10, listByName: 10},
	} {
		t.Run(fmt.Sprintf("%d held, %d names", tc.held, tc.names), func(t *testing.T) {
			g := newGatedLists(t)
			seed(t, g.data, 250)
			g.data.checks.counted(g.data.workspaceID, tc.held)
			release := g.hold()
			block := g.check(t.Context(), "block")
			<-g.began
			before := g.lists.Load()
			var checks []<-chan checked
			for i := range tc.names {
				checks = append(checks, g.check(t.Context(), fmt.Sprintf("new %d", i)))
			}
			g.untilWaiting(t, tc.names)
			release()
			<-block
			for _, ch := range checks {
				if r := <-ch; r.err != nil || len(r.found) != 0 {
					t.Errorf("found %v (%v)", r.found, r.err)
				}
			}
			if n, byName := g.lists.Load()-before, g.byName.Load(); n != tc.lists || byName != tc.listByName+1 {
				t.Errorf("%d checks sent %d list requests (%d of one name in all, the first check's included), want %d (%d of one name)", tc.names, n, byName, tc.lists, tc.listByName)
			}
		})
	}
}

// seed makes n connectors in the workspace, side by side.
func seed(t *testing.T, data *providerData, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := data.client.CreateConnector(t.Context(), data.workspaceID, deskNamed(fmt.Sprintf("seeded %d", i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestNameChecks_churningWorkspaceReadAsItGrows: other creates that change
// the workspace's pages while the whole list is read side by side make it
// unreadable so; the checks are answered by the whole list read one page
// after another as it grows, and later checks read it so at once.
func TestNameChecks_churningWorkspaceReadAsItGrows(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t)
	ws := g.data.workspaceID
	seed(t, g.data, 250)
	g.data.checks.counted(ws, 250)
	var outside atomic.Int64
	g.before = func(r *http.Request) {
		if r.URL.Query().Get("page") == "2" && !r.URL.Query().Has("name") {
			g.sideCreate(t, fmt.Sprintf("outside %d", outside.Add(1)))
		}
	}
	round := func(names ...string) {
		t.Helper()
		for range names {
			defer g.data.checks.begin(ws)()
		}
		var answers []<-chan checked
		for _, name := range names {
			answers = append(answers, g.check(t.Context(), name))
		}
		for i, ch := range answers {
			if r := <-ch; r.err != nil || len(r.found) != 1 || r.found[0].Name != names[i] {
				t.Fatalf("%s: found %v (%v), want the one connector of the name", names[i], r.found, r.err)
			}
		}
	}
	round("seeded 1", "seeded 2", "seeded 3", "seeded 4")
	if outside.Load() < 3 {
		t.Fatalf("%d whole lists read, want the two side by side and the one as it grows", outside.Load())
	}
	if n := g.byName.Load(); n != 0 {
		t.Errorf("%d lists of one name, want the whole list read as it grows", n)
	}
	lists, made := g.lists.Load(), outside.Load()
	round("seeded 5", "seeded 6", "seeded 7", "seeded 8")
	if n, byName, whole := g.lists.Load()-lists, g.byName.Load(), outside.Load()-made; n != 3 || byName != 0 || whole != 1 {
		t.Errorf("the next 4 checks sent %d lists (%d of one name, %d whole), want one whole list of 3 pages", n, byName, whole)
	}
}

// TestNameChecks_looseFilterListsWhole: a service that answers a list of
// one name with others does not keep to the name filter, so that lists by
// name may cost as much as the whole list: the next checks read it whole.
func TestNameChecks_looseFilterListsWhole(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t)
	if err := g.srv.SetVariant(sandbox.Variant{Filters: sandbox.FiltersPartial}); err != nil {
		t.Fatal(err)
	}
	seed(t, g.data, 250)
	g.data.checks.counted(g.data.workspaceID, 250)
	r := <-g.check(t.Context(), "seeded 1")
	if r.err != nil || len(r.found) != 1 || r.found[0].Name != "seeded 1" {
		t.Fatalf("found %v (%v), want the one connector of the name", r.found, r.err)
	}
	byName := g.byName.Load()
	if r := <-g.check(t.Context(), "seeded 2"); r.err != nil || len(r.found) != 1 {
		t.Fatalf("found %v (%v)", r.found, r.err)
	}
	if n := g.byName.Load() - byName; n != 0 {
		t.Errorf("%d lists of one name after the service matched loosely, want the whole list", n)
	}
}

// TestNameChecks_waitForTheOtherCreates: a check waits for the checks of the
// other creates in progress in its workspace, at most shareWindow; when each
// of them waits on one, one list answers them all.
func TestNameChecks_waitForTheOtherCreates(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t)
	ws := g.data.workspaceID
	endA, endB := g.data.checks.begin(ws), g.data.checks.begin(ws)
	start := time.Now()
	<-g.check(t.Context(), "a")
	if took := time.Since(start); took < shareWindow {
		t.Errorf("a check went after %v while another create was in progress and not checking, want at least %v", took, shareWindow)
	}
	if n := g.lists.Load(); n != 1 {
		t.Errorf("%d lists", n)
	}
	release := g.hold()
	a, b := g.check(t.Context(), "a"), g.check(t.Context(), "b")
	<-g.began
	release()
	<-a
	<-b
	if n := g.lists.Load(); n != 2 {
		t.Errorf("the checks of the two creates in progress sent %d lists in all, want one more", n-1)
	}
	endA()
	endB()
}

// TestNameChecks_joinAListNotSentYet: a whole list still waiting for its turn
// to be sent has not begun: a check asked meanwhile joins it.
func TestNameChecks_joinAListNotSentYet(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t, func(c *client.Config) { c.MaxConcurrentRequests = 1 })
	ws := g.data.workspaceID
	id := made(t, g.data, deskNamed("taken"))
	g.data.checks.counted(ws, 1)
	if r := g.joinedBehindARead(t, id, "taken"); r.err != nil || len(r.found) != 1 {
		t.Errorf("taken: %v (%v)", r.found, r.err)
	}
	if n := g.lists.Load(); n != 1 {
		t.Errorf("two checks asked before the list was sent sent %d lists, want 1", n)
	}
}

// TestNameChecks_listStopsWhenAllGiveUp: a list runs for the checks it
// answers, not for one of them: once every check waiting on it has given
// up, it stops, instead of running on until the retry budget ends.
func TestNameChecks_listStopsWhenAllGiveUp(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t)
	release := g.hold()
	defer release()
	ctxA, cancelA := context.WithCancel(t.Context())
	ctxB, cancelB := context.WithCancel(t.Context())
	a, b := g.check(ctxA, "a"), g.check(ctxB, "b")
	<-g.began
	listing := func() bool {
		g.data.checks.mu.Lock()
		defer g.data.checks.mu.Unlock()
		return g.data.checks.of(g.data.workspaceID).listing
	}
	cancelA()
	if r := <-a; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("a check given up: %v", r.err)
	}
	time.Sleep(50 * time.Millisecond)
	if !listing() {
		t.Fatal("the list stopped when one of its two checks gave up")
	}
	cancelB()
	<-b
	for deadline := time.Now().Add(5 * time.Second); listing(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the list runs on after every check waiting on it gave up")
		}
	}
}

// TestNameChecks_joinedNamesListedWhenWholeListChurns: a check that joined a
// whole list before it was sent is answered by the lists by name that
// replace it when others delete connectors as it is read.
func TestNameChecks_joinedNamesListedWhenWholeListChurns(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t, func(c *client.Config) { c.MaxConcurrentRequests = 1 })
	ws := g.data.workspaceID
	seed(t, g.data, 150) // two pages
	id := made(t, g.data, deskNamed("held"))
	g.data.checks.counted(ws, 0) // thought one page: a whole list for one name
	var deleted atomic.Int64
	g.before = func(r *http.Request) {
		if r.URL.Query().Get("page") == "2" && !r.URL.Query().Has("name") {
			g.sideDelete(t, "seeded "+strconv.Itoa(int(deleted.Add(1))+100))
		}
	}
	if r := g.joinedBehindARead(t, id, "seeded 7"); r.err != nil || len(r.found) != 1 || r.found[0].Name != "seeded 7" {
		t.Errorf("the check that joined the whole list found %v (%v), want its one connector", r.found, r.err)
	}
	if deleted.Load() < 4 || g.byName.Load() != 2 {
		t.Errorf("%d whole lists read, %d lists by name; want 4 (2 side by side, 2 as it grows), then 2 by name", deleted.Load(), g.byName.Load())
	}
}

// TestNameChecks_troubledServiceListsApart: once the service answers 503,
// each check lists its own name at once, beside a list still in flight,
// instead of waiting to share the next whole list: where answers fail and
// pause at random, a shared list would hold every check it answers.
func TestNameChecks_troubledServiceListsApart(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t, func(c *client.Config) {
		c.MaxRetries, c.MinBackoff, c.MaxBackoff = 1, time.Millisecond, time.Millisecond
	})
	seed(t, g.data, 250)
	g.data.checks.counted(g.data.workspaceID, 250)
	made(t, g.data, deskNamed("taken"))
	g.unavailable.Store(1)
	if r := <-g.check(t.Context(), "first"); r.err != nil || len(r.found) != 0 {
		t.Fatalf("the check answered 503, then served, found %v (%v)", r.found, r.err)
	}
	before := g.byName.Load()
	release := g.hold()
	names := []string{"taken", "new 1", "new 2", "new 3", "new 4", "new 5"}
	var checks []<-chan checked
	for i, name := range names {
		checks = append(checks, g.check(t.Context(), name))
		select {
		case <-g.began:
		case <-time.After(5 * time.Second):
			t.Fatalf("check %d waits while %d lists are in flight", i+1, i)
		}
	}
	release()
	for i, ch := range checks {
		if r, want := <-ch, map[bool]int{true: 1, false: 0}[i == 0]; r.err != nil || len(r.found) != want {
			t.Errorf("check of %q found %v (%v), want %d", names[i], r.found, r.err, want)
		}
	}
	if n := g.byName.Load() - before; n != int64(len(names)) {
		t.Errorf("%d lists of one name, want one a check (%d)", n, len(names))
	}
}

// TestNameChecks_waitForCreatesStillBeginning: while the engine starts creates,
// each check waits settleWindow from the latest begun, so that checks of
// creates begun a moment apart share one list; a check of a create begun
// long ago goes at once.
func TestNameChecks_waitForCreatesStillBeginning(t *testing.T) {
	t.Parallel()
	g := newGatedLists(t)
	checks := &g.data.checks
	endA := checks.begin(g.data.workspaceID)
	a := g.check(t.Context(), "a")
	time.Sleep(settleWindow / 2)
	endB := checks.begin(g.data.workspaceID)
	b := g.check(t.Context(), "b")
	<-a
	<-b
	if n := g.lists.Load(); n != 1 {
		t.Errorf("the checks of two creates begun %v apart sent %d lists (%d by name), want 1", settleWindow/2, n, g.byName.Load())
	}
	endB()
	time.Sleep(settleWindow)
	start := time.Now()
	<-g.check(t.Context(), "a")
	if took := time.Since(start); took >= settleWindow {
		t.Errorf("with every create in progress checking and none begun lately, a check waited %v", took)
	}
	endA()
}
