// Package sandbox is a local stand-in for the data-integration service.
// README.md describes the choices it makes.
package sandbox

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"
)

// New returns a Server for cfg, with the state of cfg.StatePath when that
// file exists.
func New(cfg Config) (*Server, error) {
	if len(cfg.Keys) == 0 {
		cfg.Keys = []KeyBinding{{APIKey: DefaultAPIKey, WorkspaceID: DefaultWorkspaceID}}
	}
	if cfg.RunDuration == 0 {
		cfg.RunDuration = DefaultRunDuration
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Jobs < 0 {
		return nil, fmt.Errorf("jobs must not be negative, got %d", cfg.Jobs)
	}
	if err := checkVariant(cfg.Variant); err != nil {
		return nil, err
	}
	if err := checkRateLimit(cfg.RateLimit); err != nil {
		return nil, fmt.Errorf("rate limit: %w", err)
	}
	headers, err := rateLimitHeaders(cfg.RateLimitHeaders)
	if err != nil {
		return nil, fmt.Errorf("rate limit: %w", err)
	}
	s := &Server{
		cfg:        cfg,
		keys:       map[string][]string{},
		workspaces: map[string]*workspace{},
		stats:      Stats{ByRoute: map[string]int64{}, UserAgents: map[string]int64{}},
		rng:        rand.New(rand.NewPCG(1, 1)),
		variant:    cfg.Variant.clone(),
		rateLimit:  cfg.RateLimit,
		buckets:    map[string]*bucket{},
		closing:    make(chan struct{}),

		rateLimitHeaders: headers,
	}
	for _, k := range cfg.Keys {
		if k.APIKey == "" {
			return nil, errors.New("an API key must not be empty")
		}
		if !isUUID(k.WorkspaceID) {
			return nil, fmt.Errorf("workspace %q is not a UUID", k.WorkspaceID)
		}
		ws := strings.ToLower(k.WorkspaceID)
		if slices.Contains(s.keys[k.APIKey], ws) {
			return nil, fmt.Errorf("API key bound twice to workspace %s", ws)
		}
		s.keys[k.APIKey] = append(s.keys[k.APIKey], ws)
	}
	loaded, err := s.load()
	if err != nil {
		return nil, err
	}
	for _, ws := range s.Workspaces() {
		if _, ok := s.workspaces[ws]; !ok {
			s.workspaces[ws] = newWorkspace(ws, cfg.Jobs)
			loaded = false
		}
	}
	if !loaded {
		if err := s.saveLocked(); err != nil {
			return nil, err
		}
	}
	s.routes()
	return s, nil
}

// handlerFunc serves an authenticated request; ws is nil for routes
// without one.
type handlerFunc func(w http.ResponseWriter, r *http.Request, ws *workspace)

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	api := "/developers/workspaces/{workspace_id}"
	s.handle("GET "+api+"/jobs/{$}", s.listJobs)
	s.handle("POST "+api+"/jobs/{_id}/run/{$}", s.triggerJob)
	s.handle("DELETE "+api+"/jobs/{_id}/cancel/{$}", s.cancelJob)
	s.handle("GET "+api+"/connectors/{$}", s.listConnectors)
	s.handle("POST "+api+"/connectors/{$}", s.createConnector)
	s.handle("GET "+api+"/connectors/{_id}/{$}", s.getConnector)
	s.handle("PATCH "+api+"/connectors/{_id}/{$}", s.updateConnector)
	s.handle("DELETE "+api+"/connectors/{_id}/{$}", s.deleteConnector)

	side := "/_sandbox/workspaces/{workspace_id}"
	s.handle("POST "+side+"/jobs/{$}", s.sideCreateJob)
	s.handle("GET "+side+"/jobs/{_id}/executions/{$}", s.sideExecutions)
	// The API's create, but never rate limited: a test seeds a workspace
	// with it without spending a key's quota.
	s.handle("POST "+side+"/connectors/{$}", s.createConnector)
	s.handle("GET /_sandbox/stats", s.sideStats)
	s.handle("PUT /_sandbox/faults", s.sideFaults)
	s.handle("GET /_sandbox/variant", s.sideGetVariant)
	s.handle("PUT /_sandbox/variant", s.sidePutVariant)
	s.handle("GET /_sandbox/rate_limit", s.sideGetRateLimit)
	s.handle("PUT /_sandbox/rate_limit", s.sidePutRateLimit)

	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.count(r, "")
		writeError(w, http.StatusNotFound, "Not found.")
	})
}

func (s *Server) handle(pattern string, fn handlerFunc) {
	route := strings.TrimSuffix(pattern, "{$}")
	isAPI := strings.Contains(pattern, " /developers/")
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s.count(r, route)
		var drawn fault
		if isAPI {
			// A request refused for the rate is neither held nor faulted:
			// it changes nothing, as a gateway in front of the service.
			q, limited := s.limit(r.Header.Get("Authorization"))
			// Set now, the headers go with whatever answers: the handler's,
			// a fault's or the refusal.
			writeQuota(w, q)
			if limited {
				writeRateLimited(w, q.wait)
				return
			}
			s.hold(1)
			defer s.hold(-1)
			var answered bool
			if drawn, answered = s.injectFault(w, r); answered {
				return
			}
		}
		switch drawn.when {
		case FaultsAfter:
			// An "after" fault carries the request out and loses its answer.
			defer writeFault(w, drawn.status)
			w = &discardWriter{header: http.Header{}}
		case FaultsCut:
			cw := &cutWriter{header: http.Header{}}
			defer cw.send(w)
			w = cw
		}
		key := r.Header.Get("Authorization")
		bound, ok := s.keys[key]
		if !ok {
			msg := "Invalid API key."
			if key == "" {
				msg = "Authentication credentials were not provided."
			}
			writeError(w, http.StatusUnauthorized, msg)
			return
		}
		var ws *workspace
		if id := r.PathValue("workspace_id"); id != "" {
			if !isUUID(id) {
				writeError(w, http.StatusNotFound, "Not found.")
				return
			}
			id = strings.ToLower(id)
			if !slices.Contains(bound, id) {
				writeError(w, http.StatusForbidden, "You do not have permission to access this workspace.")
				return
			}
			s.mu.Lock()
			ws = s.workspaces[id]
			s.mu.Unlock()
		}
		fn(w, r, ws)
	})
}

// ServeHTTP serves a request and logs it when the Config has a Log.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Log == nil {
		s.mux.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	s.mux.ServeHTTP(rec, r)
	s.cfg.Log.Printf("%s %s %d %s", r.Method, r.URL.Path, rec.status, time.Since(start).Round(time.Microsecond))
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

// Unwrap lets a "cut" fault flush the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Workspaces returns the workspaces the keys are bound to, each once.
func (s *Server) Workspaces() []string {
	out := make([]string, 0, len(s.cfg.Keys))
	for _, k := range s.cfg.Keys {
		if ws := strings.ToLower(k.WorkspaceID); !slices.Contains(out, ws) {
			out = append(out, ws)
		}
	}
	return out
}
