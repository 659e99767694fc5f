package sandbox

import (
	"net/http"
)

func (s *Server) count(r *http.Request, route string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Requests++
	s.stats.UserAgents[r.UserAgent()]++
	if route != "" {
		s.stats.ByRoute[route]++
	}
}

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
