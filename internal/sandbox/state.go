package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// stateFile is what -state holds.
type stateFile struct {
	Workspaces map[string]*workspace `json:"workspaces"`
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

// now is the clock, cut to the milliseconds the service shows.
func (s *Server) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Millisecond) }

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

// saveLocked writes the whole state to a temporary file beside the state
// file, syncs it and renames it over the old one, so that a crash leaves
// either the old state or the new one, never a torn file. s.mu is held.
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
