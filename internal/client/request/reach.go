package request

import (
	"fmt"
	"sync"
	"time"
)

// reach is the Client's streak of failures to reach the service, which
// only an answer ends (README.md, "Rate limits and retries"); and its probe.
type reach struct {
	mu        sync.Mutex
	since     time.Time     // the streak's first failed attempt; zero when none
	cause     *ConnectError // its latest failure
	stoppedBy string        // what stopped its retries; empty while they go on
	stop      chan struct{} // closed when stoppedBy is set
	probing   bool          // a request checks whether the service is back
	silent    time.Time     // when the latest attempt that got no answer ended

	budget, maxBackoff time.Duration
}

func (r *reach) failedToReach(t time.Time, ce *ConnectError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.since.IsZero() {
		r.since = t
	}
	cause := *ce // the request's own may change
	r.cause = &cause
	if ce.Failure == NoAnswer {
		r.silent = time.Now()
	}
}

func (r *reach) streakEnd() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.since.IsZero() {
		return time.Time{}
	}
	return r.since.Add(r.budget)
}

func (r *reach) stopReaching(ce *ConnectError, limit string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked(limit)
	ce.StoppedBy = r.stoppedBy
}

func (r *reach) stopLocked(limit string) {
	if r.stoppedBy == "" {
		r.stoppedBy = limit
		close(r.stop)
	}
}

func (r *reach) stoppedReaching() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stoppedBy
}

// reachStopped: a streak past its budget stops the retries here too, so
// that requests waiting for a slot do not each wait out a request timeout.
func (r *reach) reachStopped() (stop <-chan struct{}, end time.Time, stopped bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.since.IsZero() {
		end = r.since.Add(r.budget)
	}
	if r.stoppedBy == "" && !end.IsZero() && !time.Now().Before(end) {
		r.stopLocked(fmt.Sprintf("the retry budget (%s)", r.budget))
	}
	return r.stop, end, r.stoppedBy != ""
}

// takeProbe: one request at a time checks whether the service is back, once
// no attempt waited out a request timeout within the longest backoff.
func (r *reach) takeProbe() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.probing || r.stoppedBy == "" || time.Since(r.silent) < r.maxBackoff {
		return false
	}
	r.probing = true
	return true
}

func (r *reach) endProbe() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.probing = false
}

func (r *reach) refusal() *ConnectError {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stoppedBy == "" || r.cause == nil {
		return nil
	}
	ce := *r.cause
	ce.StoppedBy = r.stoppedBy
	return &ce
}

// reached: an answer ends the streak; a connection alone does not.
func (r *reach) reached() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.since, r.cause = time.Time{}, nil
	if r.stoppedBy != "" {
		r.stoppedBy = ""
		r.stop = make(chan struct{})
	}
}
