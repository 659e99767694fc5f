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
// cost 10 requests, not 50 walks. A pass reads a page only when a lookup
// waits for an ID not yet seen, so a lone lookup still stops at the page
// that holds its job.
type jobIndex struct {
	mu     sync.Mutex
	passes map[string]*jobPass // by workspace
}

// jobPass is one walk over a workspace's job list.
type jobPass struct {
	started time.Time
	byID    map[string]client.Job
	next    int   // the page to read next
	ended   bool  // the last page has been read
	reading bool  // a lookup is reading the next page
	err     error // why a page could not be read: the pass is over
	// progress is closed, and replaced, whenever a page is read or a
	// reader gives up, to wake the lookups that wait.
	progress chan struct{}
}

// find returns the job with the ID, or nil when the workspace has none. A
// pass that began before this lookup and ended without the job is not
// trusted: the job may have been created since, so a new pass is made.
func (x *jobIndex) find(ctx context.Context, c *client.Client, ws, id string) (*client.Job, error) {
	id = strings.ToLower(id)
	asked := time.Now()
	p := x.pass(ws, time.Time{})
	for {
		j, err := x.walk(ctx, c, ws, p, id)
		if j != nil || err != nil || !p.started.Before(asked) {
			return j, err
		}
		p = x.pass(ws, asked)
	}
}

// pass returns the workspace's current pass, or a new one when there is
// none or the current one began before notBefore.
func (x *jobIndex) pass(ws string, notBefore time.Time) *jobPass {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.passes == nil {
		x.passes = map[string]*jobPass{}
	}
	p := x.passes[ws]
	if p == nil || p.started.Before(notBefore) {
		p = &jobPass{started: time.Now(), byID: map[string]client.Job{}, next: 1, progress: make(chan struct{})}
		x.passes[ws] = p
	}
	return p
}

// walk waits until the pass has seen the ID or read every page, reading
// pages itself when no other lookup does.
func (x *jobIndex) walk(ctx context.Context, c *client.Client, ws string, p *jobPass, id string) (*client.Job, error) {
	for {
		x.mu.Lock()
		if j, ok := p.byID[id]; ok {
			x.mu.Unlock()
			return &j, nil
		}
		if p.ended || p.err != nil {
			x.mu.Unlock()
			return nil, p.err
		}
		if p.reading {
			wait := p.progress
			x.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		p.reading = true
		page := p.next
		x.mu.Unlock()

		jobs, next, err := c.JobsPageAt(ctx, ws, client.JobFilter{}, page)

		x.mu.Lock()
		p.reading = false
		switch {
		case err == nil:
			for _, j := range jobs {
				p.byID[strings.ToLower(j.ID)] = j
			}
			p.next, p.ended = next, next == 0
		case ctx.Err() == nil:
			// The service failed, after the client's retries: every lookup
			// of this pass gets the error, and later ones make a new pass.
			p.err = err
			if x.passes[ws] == p {
				delete(x.passes, ws)
			}
		}
		// Else this lookup was cancelled: another waiting one reads the page.
		close(p.progress)
		p.progress = make(chan struct{})
		x.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
}
