package provider

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// shareWindow is the longest a name check waits for the checks of the other
// creates in progress in its workspace, so that one list answers them all.
// A check goes at once when every create in progress waits on one. Behind a
// rate limit the creates' requests queue for their turns, and each list
// spared is a turn for a create: the checks then wait for the queue to pass,
// up to pacedShareWindow.
const (
	shareWindow      = 250 * time.Millisecond
	pacedShareWindow = 2 * time.Second
	// settleWindow: creates begun within it are a fleet the engine is still
	// starting, whose checks are worth waiting for.
	settleWindow = 50 * time.Millisecond
)

// nameChecks answers the checks of a name before and after a create. A check
// is answered by a list of the workspace that began after it was asked, never
// by one that began earlier nor by the read cache: the checks of the creates
// in progress share the next such list (the list after one create is then the
// list before another).
type nameChecks struct {
	mu sync.Mutex
	ws client.Workspaces[workspaceNames]
}

// workspaceNames is what the name checks of one workspace share.
type workspaceNames struct {
	ws       string       // as first given
	creating int          // creates in progress
	began    time.Time    // when the latest of them began
	waiting  []*nameCheck // asked since the last list began
	first    time.Time    // when the oldest of waiting was asked
	listing  bool         // a list is under way
	// open is the whole list under way until its first request is sent:
	// checks asked until then join it.
	open  *nameRound
	timer *time.Timer // ends the wait of waiting when gather says
	// What tells the cost of a whole list: the connectors the workspace held
	// when last counted (-1: unknown), plus those made since, and the items
	// of a page (the first page of a whole list that had more).
	held, pageSize int
	// loose: the service answered a list of one name with other names, so
	// that lists by name do not cost one request each.
	loose bool
	// churning: a whole list changed under other creates while it was read;
	// it is read as it grows from then on.
	churning bool
	// What the next list runs with: the client, and the context of the latest
	// check without its end.
	client *client.Client
	ctx    context.Context
}

// nameRound is one list and the checks it answers. The list runs on the
// latest check's context without its end, so that one check giving up does
// not fail the others, and stops once every check it answers has given up.
type nameRound struct {
	checks []*nameCheck
	live   int // checks whose callers still wait
	cancel context.CancelFunc
}

type nameCheck struct {
	ctx   context.Context
	name  string
	done  chan struct{}
	found []client.Connector // set before done is closed
	err   error
	stop  func() bool // ends the watch of ctx
}

// join adds check to r; called with n.mu held.
func (r *nameRound) join(n *nameChecks, check *nameCheck) {
	r.checks = append(r.checks, check)
	r.live++
	check.stop = context.AfterFunc(check.ctx, func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		if r.live--; r.live == 0 {
			r.cancel()
		}
	})
}

func (n *nameChecks) of(ws string) *workspaceNames {
	return n.ws.Of(ws, func() *workspaceNames {
		return &workspaceNames{ws: ws, held: -1, pageSize: client.PageSize}
	})
}

// begin counts a create in progress in ws; the caller calls the function it
// returns when the create ends.
func (n *nameChecks) begin(ws string) (end func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	w := n.of(ws)
	w.creating++
	w.began = time.Now()
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		w.creating--
		n.consider(w)
	}
}

// counted records the customer-service connectors ws holds, as the key check saw.
func (n *nameChecks) counted(ws string, held int) {
	if held < 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.of(ws).held = held
}

// pages is the pages of the whole list of ws (at least one), from the
// connectors it held when last counted; -1 when never counted.
func (n *nameChecks) pages(ws string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.of(ws).pages()
}

func (w *workspaceNames) pages() int {
	if w.held < 0 {
		return -1
	}
	return max(1, (w.held+w.pageSize-1)/w.pageSize)
}

func (n *nameChecks) made(ws string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if w := n.of(ws); w.held >= 0 {
		w.held++
	}
}

// named returns the customer-service connectors of ws named name (exact
// matches), from a list that began after the call.
func (n *nameChecks) named(ctx context.Context, c *client.Client, ws, name string) ([]client.Connector, error) {
	check := &nameCheck{ctx: ctx, name: name, done: make(chan struct{})}
	n.mu.Lock()
	w := n.of(ws)
	if c.Troubled() && !w.loose {
		// The service fails and pauses answers at random: a shared list
		// would hold every check it answers through each of its pages'
		// faults, so each check lists its own name, apart.
		n.mu.Unlock()
		found, err := connectorsOfName(ctx, c, ws, name)
		return exactly(found, name), err
	}
	switch {
	case w.open != nil:
		// Not sent yet: the list begins after this check.
		w.open.join(n, check)
	default:
		if len(w.waiting) == 0 {
			w.first = time.Now()
		}
		w.waiting = append(w.waiting, check)
		w.client, w.ctx = c, context.WithoutCancel(ctx)
		n.consider(w)
	}
	n.mu.Unlock()
	select {
	case <-check.done:
		return check.found, check.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// consider starts the next list of w once no list is under way and its
// checks have waited for the others long enough; called with n.mu held.
func (n *nameChecks) consider(w *workspaceNames) {
	if w.listing || len(w.waiting) == 0 {
		return
	}
	if wait := w.gather(); wait > 0 {
		if w.timer != nil {
			w.timer.Stop()
		}
		w.timer = time.AfterFunc(wait, func() {
			n.mu.Lock()
			defer n.mu.Unlock()
			w.timer = nil
			n.consider(w)
		})
		return
	}
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	ctx, cancel := context.WithCancel(w.ctx)
	round := &nameRound{cancel: cancel}
	for _, ch := range w.waiting {
		round.join(n, ch)
	}
	w.waiting, w.listing = nil, true
	byName, loose, growing, c := w.byName(distinctNames(round.checks)), w.loose, w.churning, w.client
	// The names asked, read when listed: checks join a whole list until it
	// is sent, and a whole list that changes as it is read lists them.
	names := func() []string {
		n.mu.Lock()
		defer n.mu.Unlock()
		return distinctNames(round.checks)
	}
	if !byName {
		w.open = round
		ctx = client.OnSend(ctx, func() {
			n.mu.Lock()
			defer n.mu.Unlock()
			if w.open == round {
				w.open = nil
			}
		})
	}
	go func() {
		found, err := w.list(ctx, c, names, byName, loose, growing)
		tflog.Debug(ctx, "Connector name checks answered", map[string]any{
			"workspace_id": w.ws, "checks": len(round.checks), "by_name": byName || found.named, "growing": found.churned && !found.named,
			"pages": found.pages, "failed": err != nil,
		})
		n.mu.Lock()
		defer n.mu.Unlock()
		if w.open == round {
			w.open = nil // a list that failed before it was sent
		}
		w.listing = false
		w.learn(found, byName, err)
		cancel()
		for _, ch := range round.checks {
			ch.stop()
			if err != nil {
				ch.err = err
			} else {
				ch.found = exactly(found.items, ch.name)
			}
			close(ch.done)
		}
		n.consider(w)
	}()
}

// gather is how much longer the waiting checks wait for others: until every
// create in progress waits on one and none has begun for settleWindow (the
// engine starts the next creates as slots free), at most the share window.
func (w *workspaceNames) gather() time.Duration {
	window := shareWindow
	if w.client.Paced() {
		window = pacedShareWindow
	}
	left := window - time.Since(w.first)
	if left <= 0 {
		return 0
	}
	if len(w.waiting) < w.creating {
		return left
	}
	return min(left, settleWindow-time.Since(w.began))
}

// byName tells whether lists by name cost fewer requests than the whole
// list: one request a name, where the service keeps to the name filter,
// against the pages of the whole list, when their number is known.
func (w *workspaceNames) byName(names []string) bool {
	if w.loose {
		return false
	}
	if w.held < 0 {
		return len(names) == 1
	}
	return len(names) < w.pages()
}

type listed struct {
	items    []client.Connector
	pages    int
	pageSize int
	loose    bool
	churned  bool // the whole list changed as it was read
	named    bool // answered by one list a name
}

// list reads the connectors the checks need: the whole list, or one list a
// name, side by side.
func (w *workspaceNames) list(ctx context.Context, c *client.Client, names func() []string, byName, loose, growing bool) (listed, error) {
	if byName {
		return listByName(ctx, c, w.ws, names())
	}
	out, err := readWhole(ctx, c, w.ws, growing)
	if errors.Is(err, client.ErrListChanged) && !loose {
		// Items deleted meanwhile too; a delete leaves a list of one
		// name whole.
		out, err = listByName(ctx, c, w.ws, names())
		out.churned, out.named = true, true
	}
	return out, err
}

// readWhole reads the customer-service connectors of ws and counts the
// pages: their pages side by side, or one after another as they grow, which
// it falls back to when others change the list as it is read.
func readWhole(ctx context.Context, c *client.Client, ws string, growing bool) (listed, error) {
	f, match := connectorFilter(nil)
	var out listed
	keep, items := client.Collect(match, 0)
	counting := client.Visitor[client.Connector]{
		Page: func(page []client.Connector) int {
			out.pages++
			if out.pages == 1 {
				out.pageSize = len(page)
			}
			return keep.Page(page)
		},
		Reset: func() { out.pages = 0; keep.Reset() },
	}
	var err error
	if !growing {
		err = c.EachConnectorPage(ctx, ws, f, counting)
		if !errors.Is(err, client.ErrListChanged) {
			out.items = *items
			return out, err
		}
		counting.Reset()
		out.churned = true
	}
	err = c.EachConnectorPageAsItGrows(ctx, ws, f, counting)
	out.items = *items
	return out, err
}

// listByName reads one list a name, side by side.
func listByName(ctx context.Context, c *client.Client, ws string, names []string) (listed, error) {
	results := make([][]client.Connector, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { results[i], errs[i] = connectorsOfName(ctx, c, ws, name) })
	}
	wg.Wait()
	var out listed
	for i, name := range names {
		if errs[i] != nil {
			return listed{}, errs[i]
		}
		for _, conn := range results[i] {
			out.loose = out.loose || conn.Name != name
			out.items = append(out.items, conn)
		}
	}
	return out, nil
}

// learn keeps what a list tells of the cost of the next ones.
func (w *workspaceNames) learn(l listed, byName bool, err error) {
	if err != nil {
		return
	}
	w.loose = w.loose || l.loose
	w.churning = w.churning || l.churned
	if !byName && !l.named {
		w.held = len(l.items)
		if l.pages > 1 && l.pageSize > 0 {
			w.pageSize = l.pageSize
		}
	}
}

func distinctNames(checks []*nameCheck) []string {
	var names []string
	seen := map[string]bool{}
	for _, ch := range checks {
		if !seen[ch.name] {
			seen[ch.name] = true
			names = append(names, ch.name)
		}
	}
	return names
}

func exactly(cs []client.Connector, name string) []client.Connector {
	var out []client.Connector
	for _, c := range cs {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// connectorsOfName is the customer-service connectors a list of the name
// returns, other names included where the service matches loosely.
func connectorsOfName(ctx context.Context, c *client.Client, ws, name string) ([]client.Connector, error) {
	f, _ := connectorFilter(&name)
	_, kind := connectorFilter(nil)
	v, found := client.Collect(kind, 0)
	err := c.EachConnectorPage(ctx, ws, f, v)
	return *found, err
}
