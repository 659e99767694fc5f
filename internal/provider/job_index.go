package provider

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// jobIndex lets the dataintegration_job lookups by ID of one provider
// instance (one plan, one apply) share their passes over a workspace's job
// list, which the API offers only page by page: 50 lookups over 10 pages
// cost 10 requests, not 50 walks. A pass reads pages only while a lookup
// waits for an ID not yet seen, so a lone lookup stops at the page that
// holds its job (with the pages already asked beside it), and a later one
// reads on from there.
type jobIndex struct {
	mu     sync.Mutex
	passes map[string]*jobPass // by workspace
}

// jobPass is one walk over a workspace's job list, read by a goroutine of
// its own so that no lookup's end cuts it off for the others.
type jobPass struct {
	started time.Time
	byID    map[string]client.Job
	// wanted counts the lookups waiting, by ID; an ID no lookup waits for
	// is not in it.
	wanted map[string]int
	ended  bool  // the walk is over: every page read, or err
	err    error // why the walk failed
	// progress is closed, and replaced, whenever a page is read or the
	// walk ends, to wake the lookups that wait; resume wakes the walk when
	// it waits for a lookup to want more.
	progress, resume chan struct{}
}

// find returns the job with the ID, or nil when the workspace has none. A
// pass that began before this lookup and ended without the job is not
// trusted: the job may have been created since, so a new pass is made.
func (x *jobIndex) find(ctx context.Context, c *client.Client, ws, id string) (*client.Job, error) {
	id = strings.ToLower(id)
	asked := time.Now()
	x.mu.Lock()
	defer x.mu.Unlock()
	for {
		p := x.passes[ws]
		if p == nil || p.ended && p.started.Before(asked) {
			p = x.start(ctx, c, ws)
		}
		p.wanted[id]++
		for {
			if j, ok := p.byID[id]; ok {
				p.unwant(id)
				return &j, nil
			}
			if p.ended {
				break
			}
			p.wake(&p.resume)
			wait := p.progress
			x.mu.Unlock()
			select {
			case <-wait:
				x.mu.Lock()
			case <-ctx.Done():
				x.mu.Lock()
				p.unwant(id)
				return nil, ctx.Err()
			}
		}
		p.unwant(id)
		if p.err != nil || !p.started.Before(asked) {
			return nil, p.err
		}
	}
}

// start begins a new pass over the workspace's jobs; x.mu is held.
func (x *jobIndex) start(ctx context.Context, c *client.Client, ws string) *jobPass {
	if x.passes == nil {
		x.passes = map[string]*jobPass{}
	}
	p := &jobPass{
		started: time.Now(), byID: map[string]client.Job{}, wanted: map[string]int{},
		progress: make(chan struct{}), resume: make(chan struct{}),
	}
	x.passes[ws] = p
	// The walk's requests are not cut off when the lookup that started it
	// ends: other lookups may be waiting on them.
	ctx = context.WithoutCancel(ctx)
	go func() {
		err := c.EachJobPage(ctx, ws, client.JobFilter{}, client.Visitor[client.Job]{Page: func(jobs []client.Job) int {
			x.mu.Lock()
			defer x.mu.Unlock()
			for _, j := range jobs {
				p.byID[strings.ToLower(j.ID)] = j
			}
			p.wake(&p.progress)
			// Read on only while a lookup waits for an ID not seen yet.
			for !p.waitsForUnseen() {
				resume := p.resume
				x.mu.Unlock()
				<-resume
				x.mu.Lock()
			}
			return client.All
		}})
		x.mu.Lock()
		defer x.mu.Unlock()
		p.ended, p.err = true, err
		if err != nil && x.passes[ws] == p {
			// Every lookup of this pass gets the error; later ones make a
			// new pass.
			delete(x.passes, ws)
		}
		p.wake(&p.progress)
	}()
	return p
}

// unwant counts out a lookup of id that waits no more; x.mu is held.
func (p *jobPass) unwant(id string) {
	if p.wanted[id]--; p.wanted[id] <= 0 {
		delete(p.wanted, id)
	}
}

// waitsForUnseen tells whether a lookup waits for an ID the pass has not
// seen; x.mu is held.
func (p *jobPass) waitsForUnseen() bool {
	for id := range p.wanted {
		if _, seen := p.byID[id]; !seen {
			return true
		}
	}
	return false
}

// wake closes and replaces ch, waking whoever waits on it; x.mu is held.
func (p *jobPass) wake(ch *chan struct{}) {
	close(*ch)
	*ch = make(chan struct{})
}
