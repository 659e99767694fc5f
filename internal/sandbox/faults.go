package sandbox

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Faults configures fault injection (README.md, "Faults"). An "after"
// fault plays a gateway that lost the service's answer, a "hang" one a
// service that never answers, a "cut" one a connection lost mid-answer.
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
	// FaultsHang holds the request unhandled and never answers it.
	FaultsHang = "hang"
	// FaultsCut handles the request, then cuts its answer's body short.
	FaultsCut = "cut"
)

// statusless: these faults answer with no status of their own.
func statusless(when string) bool { return when == FaultsHang || when == FaultsCut }

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
	if !slices.Contains([]string{"", FaultsBefore, FaultsAfter, FaultsHang, FaultsCut}, f.When) {
		return fmt.Errorf(`when must be "before", "after", "hang" or "cut", got %q`, f.When)
	}
	switch {
	case statusless(f.When) && len(f.Statuses) > 0:
		return fmt.Errorf(`statuses must be left out with "when": %q, which answers no status of its own`, f.When)
	case !statusless(f.When) && f.Rate > 0 && len(f.Statuses) == 0:
		return errors.New("statuses must name at least one status when rate is above 0")
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

// fault is what injectFault drew: a status, or a statusless kind (When).
type fault struct {
	status int
	when   string
}

// injectFault tells whether it answered already: a "before" fault is
// answered at once, and a "hang" one never; an "after" or a "cut" one is
// the caller's, once the request is handled.
func (s *Server) injectFault(w http.ResponseWriter, r *http.Request) (fault, bool) {
	s.mu.Lock()
	f := s.faults
	var drawn fault
	applies := len(f.Methods) == 0 || slices.ContainsFunc(f.Methods, func(m string) bool { return strings.EqualFold(m, r.Method) })
	if f.FromPage > 0 {
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		applies = applies && err == nil && page >= f.FromPage
	}
	if applies && f.Rate > 0 && s.rng.Float64() < f.Rate {
		drawn.when = cmp.Or(f.When, FaultsBefore)
		if !statusless(f.When) {
			drawn.status = f.Statuses[s.rng.IntN(len(f.Statuses))]
		}
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
			return fault{}, true
		}
	}
	switch drawn.when {
	case "", FaultsAfter, FaultsCut:
		return drawn, false
	case FaultsHang:
		s.hang(r)
	default:
		writeFault(w, drawn.status)
	}
	return drawn, true
}

// hang holds r until its client goes away or the sandbox closes, then
// drops the connection without an answer.
func (s *Server) hang(r *http.Request) {
	// The server notices a client gone only once the body is read.
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	select {
	case <-r.Context().Done():
	case <-s.closing:
	}
	panic(http.ErrAbortHandler)
}

// Close ends the requests that "hang" faults hold, dropping their
// connections, so that a server in front of the sandbox can stop; it
// serves on. Later "hang" faults drop their connections at once.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
}

// writeFault answers a 502 or a 504 as a gateway in front of the service
// does, with its HTML page; any other status as the service does.
func writeFault(w http.ResponseWriter, status int) {
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	if status == http.StatusBadGateway || status == http.StatusGatewayTimeout {
		title := fmt.Sprintf("%d %s", status, http.StatusText(status))
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, "<html>\r\n<head><title>%s</title></head>\r\n<body>\r\n<center><h1>%s</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", title, title)
		return
	}
	writeError(w, status, "injected fault: "+http.StatusText(status))
}

// cutWriter keeps the answer of a request whose answer a "cut" fault cuts.
type cutWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *cutWriter) Header() http.Header { return c.header }

func (c *cutWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}

func (c *cutWriter) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

// send answers with the kept status and headers, and the whole body's
// Content-Length, but only the first half of a 2xx body before it drops
// the connection; an error, or an answer without a body, goes whole.
func (c *cutWriter) send(w http.ResponseWriter) {
	maps.Copy(w.Header(), c.header)
	status := cmp.Or(c.status, http.StatusOK)
	body := c.body.Bytes()
	if status < 200 || status > 299 || len(body) < 2 {
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body[:len(body)/2])
	_ = http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler)
}

type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header { return d.header }

func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

func (d *discardWriter) WriteHeader(int) {}

func (s *Server) sideFaults(w http.ResponseWriter, r *http.Request, _ *workspace) {
	sidePut(w, r, `a faults object, {"rate": 0 to 1, "statuses": [429, 500, 502, 503, 504], "latency_ms": 0, "seed": 1, "when": "before", "after", "hang" or "cut", "methods": ["POST"]}`, func(f *Faults) error { return s.SetFaults(*f) })
}
