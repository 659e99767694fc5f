package client

import (
	"context"
	"strings"
	"sync"
)

// connectorReads answers the reads of connectors of one Client from lists
// of their workspaces, when that costs fewer requests than a read by ID each
// (README.md, "Reads of connectors").
type connectorReads struct {
	mu sync.Mutex
	ws map[string]*workspaceReads // by workspace ID in lower case
}

// workspaceReads is what the reads of one workspace share.
type workspaceReads struct {
	// gets counts the reads by ID sent since the last write, and pages is
	// how many pages the list had when last read (0: not known): once the
	// reads by ID reach the pages, the list is read whole.
	gets, pages int
	// probe is page 1 of the list, and list the whole list, each in flight
	// or read since the last write; nil when none.
	probe, list *listRead
	// failed is set when a list failed since the last write: reads then ask
	// by ID, as they would without lists.
	failed bool
	// reading counts the reads under way, by connector ID.
	reading map[string]int
}

// listRead is one reading of a workspace's list, by a goroutine of its own,
// so that the read that starts it may end without cutting it off for the
// reads waiting on it.
type listRead struct {
	w       *workspaceReads
	done    chan struct{}
	cancel  context.CancelFunc
	waiting int
	// Set before done is closed.
	items []listedConnector
	byID  map[string]int
	first *Page[listedConnector] // page 1, for a probe
	whole bool                   // items are the whole list
	pages int
	err   error
}

func (l *listRead) finished() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// of returns the shared state of workspace ws; x.mu is held.
func (x *connectorReads) of(ws string) *workspaceReads {
	ws = strings.ToLower(ws)
	if x.ws == nil {
		x.ws = map[string]*workspaceReads{}
	}
	w := x.ws[ws]
	if w == nil {
		w = &workspaceReads{reading: map[string]int{}}
		x.ws[ws] = w
	}
	return w
}

// wrote forgets what was listed of workspace ws, lists in flight included:
// they still answer the reads that wait on them, which began before the
// write ended, but no later one.
func (x *connectorReads) wrote(ws string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.of(ws)
	w.gets, w.failed, w.probe, w.list = 0, false, nil, nil
}

// find answers the read of connector id from a list of workspace ws, when
// it can; false when the read is to ask by ID.
func (x *connectorReads) find(ctx context.Context, c *Client, ws, id string) (*Connector, bool) {
	id = strings.ToLower(id)
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.of(ws)
	w.reading[id]++
	defer w.unread(id)
	for {
		if l := w.list; l != nil {
			if !x.await(ctx, l) {
				return nil, false
			}
			if l.err == nil {
				it, ok := l.get(id)
				return it, ok
			}
			continue // it failed, and is gone from w
		}
		if p := w.probe; p != nil {
			if !p.finished() {
				if !x.await(ctx, p) {
					return nil, false
				}
				continue
			}
			if it, ok := p.get(id); ok {
				return it, true
			}
		}
		// The first read of a workspace asks by ID, as does every read until
		// the reads made and the reads under way that page 1 does not answer
		// reach the pages of the list, or when the list does not tell its
		// length, or failed.
		switch {
		case !w.failed && w.pages == 0 && w.probe == nil && w.gets > 0:
			x.start(ctx, c, ws, w, false)
		case !w.failed && w.pages > 0 && w.gets+w.unheld() >= w.pages:
			x.start(ctx, c, ws, w, true)
		default:
			w.gets++
			return nil, false
		}
	}
}

// unheld counts the connectors that reads under way ask for and that page
// 1, when read, does not hold; x.mu is held.
func (w *workspaceReads) unheld() int {
	n := 0
	for id := range w.reading {
		if p := w.probe; p == nil || !p.finished() || p.err != nil {
			n++
		} else if _, ok := p.byID[id]; !ok {
			n++
		}
	}
	return n
}

// unread counts out a read of id that ended; x.mu is held.
func (w *workspaceReads) unread(id string) {
	if w.reading[id]--; w.reading[id] <= 0 {
		delete(w.reading, id)
	}
}

// all returns the whole list of workspace ws: the one held, or one read now.
func (x *connectorReads) all(ctx context.Context, c *Client, ws string) ([]listedConnector, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.of(ws)
	for {
		l := w.list
		if p := w.probe; l == nil && p != nil && !p.finished() {
			// Its page 1 may be the whole list, or start it.
			if !x.await(ctx, p) {
				return nil, ctx.Err()
			}
			continue
		}
		if l == nil {
			l = x.start(ctx, c, ws, w, true)
		}
		if !x.await(ctx, l) {
			return nil, ctx.Err()
		}
		return l.items, l.err
	}
}

// held returns the whole list of workspace ws when one is held, or in
// flight and read without error; false otherwise.
func (x *connectorReads) held(ctx context.Context, ws string) ([]listedConnector, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	l := x.of(ws).list
	if l == nil || !x.await(ctx, l) || l.err != nil {
		return nil, false
	}
	return l.items, true
}

// get returns the connector id of the list; false when the list does not
// hold it, or holds a summary of it.
func (l *listRead) get(id string) (*Connector, bool) {
	i, ok := l.byID[id]
	if !ok || !l.items[i].full {
		return nil, false
	}
	c := l.items[i].Connector
	return &c, true
}

// await waits for l to end, or for ctx; x.mu is held, and released while
// waiting. A list that no read waits for any more is cancelled.
func (x *connectorReads) await(ctx context.Context, l *listRead) bool {
	l.waiting++
	x.mu.Unlock()
	select {
	case <-l.done:
		x.mu.Lock()
		l.waiting--
		return true
	case <-ctx.Done():
		x.mu.Lock()
		if l.waiting--; l.waiting == 0 && !l.finished() {
			l.cancel()
			l.w.forget(l)
		}
		return false
	}
}

// forget drops l from w, when w still holds it.
func (w *workspaceReads) forget(l *listRead) {
	if w.list == l {
		w.list = nil
	}
	if w.probe == l {
		w.probe = nil
	}
}

// start begins reading the list of workspace ws: the whole of it, or its
// page 1 (a probe), which tells how many pages it has; x.mu is held.
func (x *connectorReads) start(ctx context.Context, c *Client, ws string, w *workspaceReads, whole bool) *listRead {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l := &listRead{w: w, done: make(chan struct{}), cancel: cancel}
	var first *Page[listedConnector]
	if whole {
		w.list = l
		if p := w.probe; p != nil && p.finished() && p.err == nil {
			first = p.first
		}
	} else {
		w.probe = l
	}
	go func() {
		defer cancel()
		l.read(ctx, c, sharedListing(ws), first, whole)
		x.mu.Lock()
		defer x.mu.Unlock()
		if w.list == l || w.probe == l {
			switch {
			case l.err != nil:
				w.forget(l)
				w.failed = true
			case l.whole:
				w.list, w.pages = l, l.pages
			default:
				w.pages = l.pages
			}
		}
		close(l.done)
	}()
	return l
}

// read reads the list: the whole of it, from page 1 (first, when it was read
// already), or page 1 alone. It sets what l holds, but for done.
func (l *listRead) read(ctx context.Context, c *Client, lst listing, first *Page[listedConnector], whole bool) {
	var items []listedConnector
	if whole {
		l.whole = true
		collect, all := Collect[listedConnector](nil, 0)
		v := Visitor[listedConnector]{
			Page:  func(page []listedConnector) int { l.pages++; return collect.Page(page) },
			Reset: func() { l.pages = 0; collect.Reset() },
		}
		l.err = walkFrom(ctx, c, lst, first, v)
		items = *all
	} else if l.first, l.err = fetchPage[listedConnector](ctx, c, lst, 1); l.err == nil {
		items = l.first.Results
		l.pages, l.whole = probed(l.first)
	}
	l.items = items
	l.byID = make(map[string]int, len(items))
	for i, it := range items {
		l.byID[strings.ToLower(it.ID)] = i
	}
}

// probed tells, from page 1 of a list, how many pages the list has (0: not
// told), and whether page 1 is the whole of it.
func probed(p *Page[listedConnector]) (pages int, whole bool) {
	pages = pageCount(p)
	counted := p.Count == nil || *p.Count == int64(len(p.Results))
	named := p.NextPage.Sent && p.NextPage.Number != nil
	if counted && !named && pages <= 1 && (pages == 1 || p.NextPage.Ends() || len(p.Results) == 0) {
		return 1, true
	}
	return pages, false
}

// sharedListing is the list that reads share: the workspace's
// customer-service connectors, as the service's filter selects them.
func sharedListing(ws string) listing {
	kind := ConnectorKindCustomerService
	return connectorListing(ws, ConnectorFilter{ConnectorName: &kind})
}
