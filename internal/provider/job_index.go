package provider

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// jobIndex lets the lookups by ID of one provider instance share their passes over
// a workspace's job list, which the API offers only page by page: 50 lookups over
// 10 pages cost 10 requests. A pass reads on only while a lookup waits for an ID
// not yet seen.
type jobIndex struct {
	mu sync.Mutex
	// passes holds the latest pass of each workspace, nil after one failed.
	passes client.Workspaces[*jobPass]
}

// jobPass is one walk, read by a goroutine of its own so that no lookup's end cuts
// it off for the others.
type jobPass struct {
	started time.Time
	byID    map[string]client.Job
	wanted  map[string]int
	ended   bool  // the walk is over: every page read, or err
	err     error // why the walk failed
	// progress wakes the lookups when a page is read; resume wakes the walk.
	progress, resume chan struct{}
}

// find makes a new pass when the last one began before this lookup and missed the
// job: it may have been created since.
func (x *jobIndex) find(ctx context.Context, c *client.Client, ws, id string) (*client.Job, error) {
	id = strings.ToLower(id)
	asked := time.Now()
	x.mu.Lock()
	defer x.mu.Unlock()
	for {
		p := *x.passes.Of(ws, nil)
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

// start begins a new pass; x.mu is held, as by each method of jobPass.
func (x *jobIndex) start(ctx context.Context, c *client.Client, ws string) *jobPass {
	p := &jobPass{
		started: time.Now(), byID: map[string]client.Job{}, wanted: map[string]int{},
		progress: make(chan struct{}), resume: make(chan struct{}),
	}
	latest := x.passes.Of(ws, nil)
	*latest = p
	// Other lookups may wait on the walk that this one started.
	ctx = context.WithoutCancel(ctx)
	go func() {
		err := c.EachJobPage(ctx, ws, client.JobFilter{}, client.Visitor[client.Job]{Page: func(jobs []client.Job) int {
			x.mu.Lock()
			defer x.mu.Unlock()
			for _, j := range jobs {
				p.byID[strings.ToLower(j.ID)] = j
			}
			p.wake(&p.progress)
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
		if err != nil && *latest == p {
			// Every lookup of this pass gets the error; later ones make a new pass.
			*latest = nil
		}
		p.wake(&p.progress)
	}()
	return p
}

func (p *jobPass) unwant(id string) {
	if p.wanted[id]--; p.wanted[id] <= 0 {
		delete(p.wanted, id)
	}
}

func (p *jobPass) waitsForUnseen() bool {
	for id := range p.wanted {
		if _, seen := p.byID[id]; !seen {
			return true
		}
	}
	return false
}

func (p *jobPass) wake(ch *chan struct{}) {
	close(*ch)
	*ch = make(chan struct{})
}
