package client

import (
	"context"
	"strings"
	"sync"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"
)

// connectorReads answers reads of connectors from their workspace's list
// when that costs fewer requests (README.md, "Reads of connectors").
type connectorReads struct {
	mu sync.Mutex
	ws Workspaces[workspaceReads]
}

// workspaceReads is what a workspace's reads share since its last write.
type workspaceReads struct {
	// gets counts reads by ID; once they reach pages, the list is read whole.
	gets, pages int
	probe, list *listRead // page 1 alone, and the whole list
	failed      bool
	reading     map[string]int // reads under way, by connector ID
}

// listRead runs in a goroutine of its own, so that the read that starts it
// may end without cutting it off for the reads waiting on it.
type listRead struct {
	w       *workspaceReads
	done    chan struct{}
	cancel  context.CancelFunc
	waiting int
	// Set before done is closed.
	items []listedConnector
	byID  map[string]int
	first *Page[listedConnector]
	whole bool
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

// of is called with x.mu held.
func (x *connectorReads) of(ws string) *workspaceReads {
	return x.ws.Of(ws, func() *workspaceReads { return &workspaceReads{reading: map[string]int{}} })
}

// wrote forgets lists in flight too: they answer the reads already waiting,
// which began before the write ended, and no later one.
func (x *connectorReads) wrote(ws string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.of(ws)
	w.gets, w.failed, w.probe, w.list = 0, false, nil, nil
}

// find is false when the read is to ask by ID.
func (x *connectorReads) find(ctx context.Context, c *request.Client, ws, id string) (*Connector, bool) {
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
			continue
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
		// A read by ID never costs more than the pages it saves.
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

// unheld counts the reads under way that page 1 does not answer.
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

func (w *workspaceReads) unread(id string) {
	if w.reading[id]--; w.reading[id] <= 0 {
		delete(w.reading, id)
	}
}

func (x *connectorReads) all(ctx context.Context, c *request.Client, ws string) ([]listedConnector, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.of(ws)
	for {
		l := w.list
		if p := w.probe; l == nil && p != nil && !p.finished() {
			// Page 1 may be the whole list.
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

func (x *connectorReads) held(ctx context.Context, ws string) ([]listedConnector, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	l := x.of(ws).list
	if l == nil || !x.await(ctx, l) || l.err != nil {
		return nil, false
	}
	return l.items, true
}

// get does not answer from a summary.
func (l *listRead) get(id string) (*Connector, bool) {
	i, ok := l.byID[id]
	if !ok || !l.items[i].full {
		return nil, false
	}
	c := l.items[i].Connector
	return &c, true
}

// await releases x.mu while it waits; a list no read awaits is cancelled.
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

func (w *workspaceReads) forget(l *listRead) {
	if w.list == l {
		w.list = nil
	}
	if w.probe == l {
		w.probe = nil
	}
}

// start reads the whole list, or page 1 alone to count the pages.
func (x *connectorReads) start(ctx context.Context, c *request.Client, ws string, w *workspaceReads, whole bool) *listRead {
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

func (l *listRead) read(ctx context.Context, c *request.Client, lst listing, first *Page[listedConnector], whole bool) {
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

func probed(p *Page[listedConnector]) (pages int, whole bool) {
	pages = pageCount(p)
	counted := p.Count == nil || *p.Count == int64(len(p.Results))
	named := p.NextPage.Sent && p.NextPage.Number != nil
	if counted && !named && pages <= 1 && (pages == 1 || p.NextPage.Ends() || len(p.Results) == 0) {
		return 1, true
	}
	return pages, false
}

func sharedListing(ws string) listing {
	kind := ConnectorKindCustomerService
	return connectorListing(ws, ConnectorFilter{ConnectorName: &kind})
}
