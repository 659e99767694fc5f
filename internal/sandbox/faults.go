package sandbox

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Faults configures fault injection (README.md, "Faults"). An "after"
// fault plays a gateway that lost the service's answer.
type Faults struct {
	Rate      float64  `json:"rate"`
	Statuses  []int    `json:"statuses"`
	LatencyMS int      `json:"latency_ms"`
	Seed      uint64   `json:"seed"`
	When      string   `json:"when,omitempty"`
	Methods   []string `json:"methods,omitempty"`
	// FromPage lets a list fail part-way and nothing else.
	FromPage int `json:"from_page,omitempty"`
}

// The values of Faults.When; empty means FaultsBefore.
const (
	FaultsBefore = "before"
	FaultsAfter  = "after"
)

// SetFaults replaces the fault injection settings.
func (s *Server) SetFaults(f Faults) error {
	if err := checkFaults(f); err != nil {
		return err
	}
	f.Methods = slices.Clone(f.Methods)
	for i, m := range f.Methods {
		f.Methods[i] = strings.ToUpper(m)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
	s.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	return nil
}

var faultMethods = []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete}

func checkFaults(f Faults) error {
	if f.Rate < 0 || f.Rate > 1 {
		return fmt.Errorf("rate must be between 0 and 1, got %v", f.Rate)
	}
	if f.LatencyMS < 0 {
		return fmt.Errorf("latency_ms must not be negative, got %d", f.LatencyMS)
	}
	if f.Rate > 0 && len(f.Statuses) == 0 {
		return errors.New("statuses must name at least one status when rate is above 0")
	}
	if f.When != "" && f.When != FaultsBefore && f.When != FaultsAfter {
		return fmt.Errorf(`when must be "before" or "after", got %q`, f.When)
	}
	for _, st := range f.Statuses {
		if st < 400 || st > 599 {
			return fmt.Errorf("status %d is not an error status: give statuses from 400 to 599", st)
		}
		// A 429 or a 503 tells the client that nothing was done, which an
		// "after" fault would make a lie.
		if f.When == FaultsAfter && st != http.StatusInternalServerError && st != http.StatusBadGateway && st != http.StatusGatewayTimeout {
			return fmt.Errorf(`status %d cannot follow a request carried out: with "when": "after", only 500, 502 and 504`, st)
		}
	}
	if f.FromPage < 0 {
		return fmt.Errorf("from_page must not be negative, got %d", f.FromPage)
	}
	for _, m := range f.Methods {
		if !slices.Contains(faultMethods, strings.ToUpper(m)) {
			return fmt.Errorf("method %q is not one of %s", m, strings.Join(faultMethods, ", "))
		}
	}
	return nil
}

// injectFault tells whether it answered already: a "before" fault is
// answered at once, an "after" one by the caller.
func (s *Server) injectFault(w http.ResponseWriter, r *http.Request) (int, bool) {
	s.mu.Lock()
	f := s.faults
	status := 0
	applies := len(f.Methods) == 0 || slices.ContainsFunc(f.Methods, func(m string) bool { return strings.EqualFold(m, r.Method) })
	if f.FromPage > 0 {
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		applies = applies && err == nil && page >= f.FromPage
	}
	if applies && f.Rate > 0 && s.rng.Float64() < f.Rate {
		status = f.Statuses[s.rng.IntN(len(f.Statuses))]
		s.stats.Faults++
	}
	s.mu.Unlock()
	if f.LatencyMS > 0 {
		t := time.NewTimer(time.Duration(f.LatencyMS) * time.Millisecond)
		select {
		case <-t.C:
		case <-r.Context().Done():
			// As a service that never got the whole request would.
			t.Stop()
			return 0, true
		}
	}
	if status == 0 || f.When == FaultsAfter {
		return status, false
	}
	writeFault(w, status)
	return status, true
}

func writeFault(w http.ResponseWriter, status int) {
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeError(w, status, "injected fault: "+http.StatusText(status))
}

type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header { return d.header }

func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

func (d *discardWriter) WriteHeader(int) {}

func (s *Server) sideFaults(w http.ResponseWriter, r *http.Request, _ *workspace) {
	sidePut(w, r, `a faults object, {"rate": 0 to 1, "statuses": [429, 500, 502, 503, 504], "latency_ms": 0, "seed": 1, "when": "before" or "after", "methods": ["POST"]}`, s.SetFaults)
}
