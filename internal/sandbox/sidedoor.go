package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// The side door, under /_sandbox/: not part of the service's API; tests and
// demos use it to set the scene and to look behind it.

func (s *Server) sideCreateJob(w http.ResponseWriter, r *http.Request, ws *workspace) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	raw, _ := json.Marshal(body)
	var j Job
	if err := json.Unmarshal(raw, &j); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	for _, f := range []string{"name", "data_source", "connector_name", "schema_name"} {
		if _, ok := body[f]; !ok {
			writeError(w, http.StatusBadRequest, f+": this field is required")
			return
		}
	}
	if _, ok := body["is_active"]; !ok {
		j.IsActive = true
	}
	if j.ID == "" {
		j.ID = uuid.NewString()
	}
	if !isUUID(j.ID) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("_id: %q is not a UUID", j.ID))
		return
	}
	j.ID = strings.ToLower(j.ID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := ws.Jobs[j.ID]; dup {
		writeError(w, http.StatusConflict, "_id: a job with this ID exists")
		return
	}
	now := s.now()
	if j.CreatedAt.IsZero() {
		j.CreatedAt = now
	}
	if j.UpdatedAt.IsZero() {
		j.UpdatedAt = j.CreatedAt
	}
	ws.Jobs[j.ID] = &j
	if !s.saveOrFail(w) {
		return
	}
	writeJSON(w, http.StatusCreated, j)
}

// executionView is an execution as the side door shows it.
type executionView struct {
	ID               string  `json:"_id"`
	Status           string  `json:"status"`
	ForceFullRefresh bool    `json:"force_full_refresh"`
	CreatedAt        string  `json:"_created_at"`
	EndedAt          *string `json:"_ended_at"`
}

func (s *Server) sideExecutions(w http.ResponseWriter, r *http.Request, ws *workspace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobOf(w, r, ws)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, s.executionsLocked(ws, j.ID))
}

func (s *Server) executionsLocked(ws *workspace, jobID string) []executionView {
	s.running(ws, jobID)
	out := []executionView{}
	for _, e := range ws.Executions[jobID] {
		v := executionView{ID: e.ID, Status: e.Status, ForceFullRefresh: e.ForceFullRefresh, CreatedAt: stamp(e.CreatedAt)}
		if e.EndedAt != nil {
			end := stamp(*e.EndedAt)
			v.EndedAt = &end
		}
		out = append(out, v)
	}
	return out
}

// Executions returns a job's executions, oldest first, for tests.
func (s *Server) Executions(workspaceID, jobID string) []Execution {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, err := s.workspaceLocked(workspaceID)
	if err != nil {
		return nil
	}
	s.running(ws, strings.ToLower(jobID))
	var out []Execution
	for _, e := range ws.Executions[strings.ToLower(jobID)] {
		out = append(out, *e)
	}
	return out
}

// AddJobs adds jobs to a workspace, for tests; a job without an ID gets one.
func (s *Server) AddJobs(workspaceID string, jobs ...Job) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, err := s.workspaceLocked(workspaceID)
	if err != nil {
		return err
	}
	now := s.now()
	for _, j := range jobs {
		if j.ID == "" {
			j.ID = uuid.NewString()
		}
		if j.CreatedAt.IsZero() {
			j.CreatedAt, j.UpdatedAt = now, now
		}
		ws.Jobs[j.ID] = &j
	}
	return s.saveLocked()
}

// Jobs returns a workspace's jobs in the default order, for tests.
func (s *Server) Jobs(workspaceID string) []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, err := s.workspaceLocked(workspaceID)
	if err != nil {
		return nil
	}
	order, _ := ordering("")
	ptrs := make([]*Job, 0, len(ws.Jobs))
	for _, j := range ws.Jobs {
		ptrs = append(ptrs, j)
	}
	slices.SortFunc(ptrs, order)
	out := make([]Job, len(ptrs))
	for i, j := range ptrs {
		out[i] = *j
	}
	return out
}
