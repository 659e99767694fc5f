package client

import (
	"strings"
	"sync"
)

// Workspaces keeps one T per workspace, made on its first use. A workspace ID
// is a UUID, the same in any letter case: both spellings get one T. The zero
// value is ready for use, by several goroutines at once.
type Workspaces[T any] struct {
	mu sync.Mutex
	m  map[string]*T
}

// Of returns the T of ws, made by fresh the first time (new(T) if fresh is
// nil). fresh runs with the registry locked, so it must not call Of.
func (r *Workspaces[T]) Of(ws string, fresh func() *T) *T {
	key := strings.ToLower(ws)
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.m[key]
	if v == nil {
		if fresh != nil {
			v = fresh()
		} else {
			v = new(T)
		}
		if r.m == nil {
			r.m = map[string]*T{}
		}
		r.m[key] = v
	}
	return v
}
