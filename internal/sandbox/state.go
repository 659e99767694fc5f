package sandbox

// The sandbox's state: a Server's configuration, the workspaces of its state
// file, and the helpers with which every handler reads and answers.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

const (
	DefaultAPIKey      = "sandbox-api-key"
	DefaultWorkspaceID = "00000000-0000-4000-8000-000000000001"
	DefaultJobs        = 25
	DefaultRunDuration = 2 * time.Second
)

// KeyBinding lets an API key reach a workspace; a key may have several.
type KeyBinding struct {
	APIKey      string
	WorkspaceID string
}

type Config struct {
	// Keys: none means DefaultAPIKey on DefaultWorkspaceID.
	Keys []KeyBinding
	// Jobs is how many generated jobs each workspace starts with.
	Jobs        int
	RunDuration time.Duration
	// StatePath, if set, is loaded at start and saved after every change.
	StatePath string
	Now       func() time.Time
	Log       *log.Logger
	Variant   Variant
	// RateLimit is requests a second per API key; 0 means no limit.
	RateLimit int
	// RateLimitHeaders, of RateLimitHeaderStyles, is how each answer under the
	// rate limit tells its quota; empty means not at all.
	RateLimitHeaders string
}

type Server struct {
	cfg  Config
	mux  *http.ServeMux
	keys map[string][]string // API key → the workspace IDs it reaches

	mu         sync.Mutex
	workspaces map[string]*workspace
	stats      Stats
	inFlight   int64
	faults     Faults
	rng        *rand.Rand
	variant    Variant
	rateLimit  int
	buckets    map[string]*bucket // API key → its token bucket
	closing    chan struct{}      // closed by Close
	closeOnce  sync.Once

	// rateLimitHeaders is of RateLimitHeaderStyles, never empty.
	rateLimitHeaders string
}

// Variant settles the points the published API leaves open, so that the
// sandbox can play each service the API allows (README.md, "Variants").
type Variant struct {
	// Envelope: nil means all of EnvelopeFields, and empty none.
	Envelope []string `json:"envelope"`
	// MaxPageSize: 0 means 100.
	MaxPageSize int    `json:"max_page_size,omitempty"`
	PastEnd     string `json:"past_end,omitempty"`
	Filters     string `json:"filters,omitempty"`
	// ExtraFields shows whether clients ignore fields the API does not list.
	ExtraFields bool `json:"extra_fields,omitempty"`
	// NullFields are of NullableFields.
	NullFields []string `json:"null_fields,omitempty"`
}

// Stats counts the requests served since start.
type Stats struct {
	Requests    int64            `json:"requests"`
	ByRoute     map[string]int64 `json:"by_route"`
	Faults      int64            `json:"faults"`
	RateLimited int64            `json:"rate_limited"`
	MaxInFlight int64            `json:"max_in_flight"`
	// UserAgents lets a test tell who called.
	UserAgents map[string]int64 `json:"user_agents"`
}

type workspace struct {
	ID         string                  `json:"id"`
	Jobs       map[string]*Job         `json:"jobs"`
	Executions map[string][]*Execution `json:"executions"` // by job ID
	Connectors map[string]*connector   `json:"connectors"`
}

type Job struct {
	ID            string    `json:"_id"`
	CreatedAt     time.Time `json:"-"`
	UpdatedAt     time.Time `json:"-"`
	DataSource    string    `json:"data_source"`
	ConnectorName string    `json:"connector_name"`
	SchemaName    string    `json:"schema_name"`
	Name          string    `json:"name"`
	IsActive      bool      `json:"is_active"`
}

// UnmarshalJSON reads a job in the service's form; timestamps may be absent.
func (j *Job) UnmarshalJSON(b []byte) error {
	type plain Job
	var v struct {
		plain
		CreatedAt *string `json:"_created_at"`
		UpdatedAt *string `json:"_updated_at"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*j = Job(v.plain)
	for _, f := range []struct {
		raw *string
		to  *time.Time
	}{{v.CreatedAt, &j.CreatedAt}, {v.UpdatedAt, &j.UpdatedAt}} {
		if f.raw == nil {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, *f.raw)
		if err != nil {
			return fmt.Errorf("timestamp %q is not ISO 8601", *f.raw)
		}
		*f.to = t.UTC()
	}
	return nil
}

type Execution struct {
	ID               string     `json:"_id"`
	Status           string     `json:"status"`
	ForceFullRefresh bool       `json:"force_full_refresh"`
	CreatedAt        time.Time  `json:"_created_at"`
	EndedAt          *time.Time `json:"_ended_at"`
}

const (
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusCancelled = "cancelled"
)

// connector is a connector as stored, token included.
type connector struct {
	ID         string    `json:"_id"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	Name       string    `json:"name"`
	URL        string    `json:"url"`
	Token      string    `json:"token"`
	AgentEmail string    `json:"agent_email"`
	Streams    []string  `json:"streams"`
	JobID      string    `json:"job_id"`
	// TokenWrites counts how many times a token was received.
	TokenWrites int `json:"token_writes"`
}

// stateFile is what -state holds.
type stateFile struct {
	Workspaces map[string]*workspace `json:"workspaces"`
}

// now is the clock, cut to the milliseconds the service shows.
func (s *Server) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Millisecond) }

// workspaceLocked finds a workspace by its ID in any letter case, so that
// every Go side door finds and fails alike; s.mu is held.
func (s *Server) workspaceLocked(id string) (*workspace, error) {
	ws := s.workspaces[strings.ToLower(id)]
	if ws == nil {
		return nil, fmt.Errorf("no workspace %s", id)
	}
	return ws, nil
}

// load reads the state file, if there is one; it tells whether it did.
func (s *Server) load() (bool, error) {
	if s.cfg.StatePath == "" {
		return false, nil
	}
	b, err := os.ReadFile(s.cfg.StatePath)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading state: %w", err)
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		return false, fmt.Errorf("state file %s is not valid: %w", s.cfg.StatePath, err)
	}
	for id, ws := range st.Workspaces {
		if ws.Jobs == nil {
			ws.Jobs = map[string]*Job{}
		}
		if ws.Executions == nil {
			ws.Executions = map[string][]*Execution{}
		}
		if ws.Connectors == nil {
			ws.Connectors = map[string]*connector{}
		}
		s.workspaces[id] = ws
	}
	return true, nil
}

// saveLocked writes a temporary file, syncs it and renames it over the state
// file, so that a crash never leaves a torn file. s.mu is held.
func (s *Server) saveLocked() error {
	if s.cfg.StatePath == "" {
		return nil
	}
	b, err := json.Marshal(stateFile{Workspaces: s.workspaces})
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.cfg.StatePath)
	f, err := os.CreateTemp(dir, filepath.Base(s.cfg.StatePath)+".*.tmp")
	if err != nil {
		return fmt.Errorf("saving state: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.cfg.StatePath)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("saving state: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// saveOrFail saves the state, answering 500 itself when it cannot.
func (s *Server) saveOrFail(w http.ResponseWriter) bool {
	if err := s.saveLocked(); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return false
	}
	return true
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidRE.MatchString(s) }

const timeFormat = "2006-01-02T15:04:05.000Z"

func stamp(t time.Time) string { return t.UTC().Format(timeFormat) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, detail string) {
	writeJSON(w, status, map[string]string{"detail": detail})
}

// object keeps its members in order, as the API lists its fields.
type object []member

type member struct {
	key   string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(m.key)
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

func readBody(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	if err := dec.Decode(&m); err != nil || m == nil {
		writeError(w, http.StatusBadRequest, "the body must be a JSON object")
		return nil, false
	}
	return m, true
}

// sidePut gives set the body, a T of no other fields: 400 with the reason and
// the shape expected when it cannot or set refuses, else 200 with the value as
// set wrote it back, as a GET shows it.
func sidePut[T any](w http.ResponseWriter, r *http.Request, what string, set func(*T) error) {
	var v T
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	err := dec.Decode(&v)
	if _, more := dec.Token(); err == nil && more != io.EOF {
		err = errors.New("the body holds more than one JSON value")
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error()+": the body must be "+what)
		return
	}
	if err := set(&v); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, v)
}
