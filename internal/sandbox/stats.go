package sandbox

import (
	"net/http"
)

// Stats counts the requests served since start.
type Stats struct {
	Requests int64            `json:"requests"`
	ByRoute  map[string]int64 `json:"by_route"`
	// Faults counts the requests answered by fault injection.
	Faults int64 `json:"faults"`
	// RateLimited counts the requests refused by the rate limit.
	RateLimited int64 `json:"rate_limited"`
	// MaxInFlight is the most requests of the API it held at once.
	MaxInFlight int64 `json:"max_in_flight"`
	// UserAgents counts the requests by their User-Agent header, so that a
	// test can tell who called.
	UserAgents map[string]int64 `json:"user_agents"`
}

func (s *Server) count(r *http.Request, route string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Requests++
	s.stats.UserAgents[r.UserAgent()]++
	if route != "" {
		s.stats.ByRoute[route]++
	}
}

// hold counts a request of the API in (1) or out (-1).
func (s *Server) hold(d int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight += d
	s.stats.MaxInFlight = max(s.stats.MaxInFlight, s.inFlight)
}

// Stats returns a copy of the request counts.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.stats
	out.ByRoute = make(map[string]int64, len(s.stats.ByRoute))
	for k, v := range s.stats.ByRoute {
		out.ByRoute[k] = v
	}
	out.UserAgents = make(map[string]int64, len(s.stats.UserAgents))
	for k, v := range s.stats.UserAgents {
		out.UserAgents[k] = v
	}
	return out
}

func (s *Server) sideStats(w http.ResponseWriter, _ *http.Request, _ *workspace) {
	writeJSON(w, http.StatusOK, s.Stats())
}
