package sandbox

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

func newWorkspace(id string, jobs int) *workspace {
	ws := &workspace{
		ID:         id,
		Jobs:       map[string]*Job{},
		Executions: map[string][]*Execution{},
		Connectors: map[string]*connector{},
	}
	for _, j := range SeedJobs(id, jobs) {
		ws.Jobs[j.ID] = &j
	}
	return ws
}

var seedSources = []struct{ dataSource, connectorName string }{
	{"salesforce", "crm"},
	{"hubspot", "crm"},
	{"stripe", "payments"},
	{"postgres", "database"},
	{"zendesk", "customer_service"},
}

var seedSchemas = []string{"analytics", "raw", "staging"}

// seedEpoch is when the first generated job was created.
var seedEpoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// SeedJobs returns the n jobs a new workspace starts with, the same each time:
// every fourth inactive, names unique.
func SeedJobs(workspaceID string, n int) []Job {
	ns := uuid.MustParse(strings.ToLower(workspaceID))
	jobs := make([]Job, 0, n)
	for i := 1; i <= n; i++ {
		src := seedSources[(i-1)%len(seedSources)]
		schema := seedSchemas[(i-1)%len(seedSchemas)]
		created := seedEpoch.Add(time.Duration(i) * time.Hour)
		jobs = append(jobs, Job{
			ID:            uuid.NewSHA1(ns, fmt.Appendf(nil, "job-%d", i)).String(),
			CreatedAt:     created,
			UpdatedAt:     created.Add(time.Duration(i) * time.Minute),
			DataSource:    src.dataSource,
			ConnectorName: src.connectorName,
			SchemaName:    schema,
			Name:          fmt.Sprintf("%s to %s %03d", src.dataSource, schema, i),
			IsActive:      i%4 != 0,
		})
	}
	return jobs
}

// MarshalJSON writes the job as the default variant shows it, timestamps in
// the service's format.
func (j Job) MarshalJSON() ([]byte, error) { return j.wire(Variant{}).MarshalJSON() }

// wire is the job as a list under v shows it.
func (j *Job) wire(v Variant) object {
	o := object{
		{"_id", j.ID}, {"_created_at", stamp(j.CreatedAt)}, {"_updated_at", stamp(j.UpdatedAt)},
		{"data_source", j.DataSource}, {"connector_name", j.ConnectorName},
		{"schema_name", j.SchemaName}, {"name", j.Name}, {"is_active", j.IsActive},
	}
	for i, m := range o {
		if slices.Contains(v.NullFields, m.key) {
			o[i].value = nil
		}
	}
	if v.ExtraFields {
		o = append(o, extraFields("job")...)
	}
	return o
}

// jobFields are the fields a list may be ordered by, with their comparison.
var jobFields = map[string]func(a, b *Job) int{
	"_id":            func(a, b *Job) int { return strings.Compare(a.ID, b.ID) },
	"_created_at":    func(a, b *Job) int { return a.CreatedAt.Compare(b.CreatedAt) },
	"_updated_at":    func(a, b *Job) int { return a.UpdatedAt.Compare(b.UpdatedAt) },
	"data_source":    func(a, b *Job) int { return strings.Compare(a.DataSource, b.DataSource) },
	"connector_name": func(a, b *Job) int { return strings.Compare(a.ConnectorName, b.ConnectorName) },
	"schema_name":    func(a, b *Job) int { return strings.Compare(a.SchemaName, b.SchemaName) },
	"name":           func(a, b *Job) int { return strings.Compare(a.Name, b.Name) },
	"is_active":      func(a, b *Job) int { return cmp.Compare(b2i(a.IsActive), b2i(b.IsActive)) },
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ordering parses an ordering parameter into one comparison; the default is
// _created_at then _id, and _id always breaks ties.
func ordering(param string) (func(a, b *Job) int, error) {
	if param == "" {
		param = "_created_at"
	}
	var cmps []func(a, b *Job) int
	for _, f := range strings.Split(param, ",") {
		f = strings.TrimSpace(f)
		desc := strings.HasPrefix(f, "-")
		c, ok := jobFields[strings.TrimPrefix(f, "-")]
		if !ok {
			names := make([]string, 0, len(jobFields))
			for n := range jobFields {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("invalid ordering field %q: allowed fields are %s, with '-' in front for descending", f, strings.Join(names, ", "))
		}
		if desc {
			asc := c
			c = func(a, b *Job) int { return asc(b, a) }
		}
		cmps = append(cmps, c)
	}
	cmps = append(cmps, jobFields["_id"])
	return func(a, b *Job) int {
		for _, c := range cmps {
			if r := c(a, b); r != 0 {
				return r
			}
		}
		return 0
	}, nil
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request, ws *workspace) {
	q := r.URL.Query()
	order, err := ordering(q.Get("ordering"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var active *bool
	if q.Has("is_active") {
		v, ok := parseBool(q.Get("is_active"), "True", "False")
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("is_active: %q is not a boolean: use true or false.", q.Get("is_active")))
			return
		}
		active = &v
	}
	s.mu.Lock()
	v := s.variant
	var jobs []*Job
	for _, j := range ws.Jobs {
		if (active == nil || j.IsActive == *active) &&
			v.match(q, "connector_name", j.ConnectorName) &&
			v.match(q, "data_source", j.DataSource) &&
			v.match(q, "name", j.Name) &&
			v.match(q, "schema_name", j.SchemaName) {
			jobs = append(jobs, j)
		}
	}
	slices.SortFunc(jobs, order)
	p, ok := paginate(w, r, jobs, v)
	var body []byte
	if ok {
		results := make([]object, 0, len(p.results))
		for _, j := range p.results {
			results = append(results, j.wire(v))
		}
		body, err = json.Marshal(p.wire(v, results))
	}
	s.mu.Unlock()
	if !ok {
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// page is one page of a list, before a variant shapes its envelope.
type page[T any] struct {
	count, size, total, current int
	next, previous              *int // nil at the ends
	results                     []T
}

// wire is the page's envelope as v sends it: the envelope fields v keeps,
// in the API's order, then any extra fields, then results.
func (p page[T]) wire(v Variant, results any) object {
	values := map[string]any{
		"count": p.count, "next_page": p.next, "previous_page": p.previous,
		"page_size": p.size, "total_pages": p.total, "current_page": p.current,
	}
	var o object
	for _, f := range EnvelopeFields {
		if v.Envelope == nil || slices.Contains(v.Envelope, f) {
			o = append(o, member{f, values[f]})
		}
	}
	if v.ExtraFields {
		o = append(o, extraFields("page")...)
	}
	return append(o, member{"results", results})
}

// paginate cuts the page the query asks out of items, within v's largest page.
// It answers 404 itself (ok false) for a page that is not a positive integer, or
// past the last unless v serves it empty.
func paginate[T any](w http.ResponseWriter, r *http.Request, items []T, v Variant) (page[T], bool) {
	q := r.URL.Query()
	size := min(20, v.maxPageSize())
	if n, ok := positive(q.Get("page_size")); ok {
		size = min(n, v.maxPageSize())
	}
	num := 1
	if q.Has("page") {
		n, ok := positive(q.Get("page"))
		if !ok {
			writeError(w, http.StatusNotFound, "Invalid page.")
			return page[T]{}, false
		}
		num = n
	}
	total := max((len(items)+size-1)/size, 1)
	if num > total && v.PastEnd != PastEndEmpty {
		writeError(w, http.StatusNotFound, "Invalid page.")
		return page[T]{}, false
	}
	lo := len(items) // past the last page, where (num-1)*size may overflow
	if num <= total {
		lo = (num - 1) * size
	}
	hi := min(lo+size, len(items))
	p := page[T]{count: len(items), size: size, total: total, current: num, results: items[lo:hi]}
	if num < total {
		n := num + 1
		p.next = &n
	}
	if num > 1 {
		n := num - 1
		p.previous = &n
	}
	return p, true
}

// jobOf finds the job of the path, answering 404 itself when there is none.
func (s *Server) jobOf(w http.ResponseWriter, r *http.Request, ws *workspace) (*Job, bool) {
	id := strings.ToLower(r.PathValue("_id"))
	j, ok := ws.Jobs[id]
	if !isUUID(id) || !ok {
		writeError(w, http.StatusNotFound, "Not found.")
		return nil, false
	}
	return j, true
}

// running returns the job's running execution, settling those whose time is up.
func (s *Server) running(ws *workspace, jobID string) *Execution {
	now := s.cfg.Now()
	var out *Execution
	for _, e := range ws.Executions[jobID] {
		if e.Status != StatusRunning {
			continue
		}
		if end := e.CreatedAt.Add(s.cfg.RunDuration); !now.Before(end) {
			e.Status = StatusSucceeded
			e.EndedAt = &end
			continue
		}
		out = e
	}
	return out
}

func (s *Server) triggerJob(w http.ResponseWriter, r *http.Request, ws *workspace) {
	force := false
	if q := r.URL.Query(); q.Has("force_full_refresh") {
		v, ok := parseBool(q.Get("force_full_refresh"))
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("force_full_refresh: %q is not a boolean: use true or false.", q.Get("force_full_refresh")))
			return
		}
		force = v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobOf(w, r, ws)
	if !ok {
		return
	}
	if !j.IsActive {
		writeError(w, http.StatusConflict, "job is inactive")
		return
	}
	if s.running(ws, j.ID) != nil {
		writeError(w, http.StatusConflict, "job is already running")
		return
	}
	ws.Executions[j.ID] = append(ws.Executions[j.ID], &Execution{
		ID:               uuid.NewString(),
		Status:           StatusRunning,
		ForceFullRefresh: force,
		CreatedAt:        s.cfg.Now().UTC(),
	})
	if !s.saveOrFail(w) {
		return
	}
	w.WriteHeader(http.StatusCreated)
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request, ws *workspace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobOf(w, r, ws)
	if !ok {
		return
	}
	e := s.running(ws, j.ID)
	if e == nil {
		writeError(w, http.StatusConflict, "no running execution")
		return
	}
	now := s.cfg.Now().UTC()
	e.Status = StatusCancelled
	e.EndedAt = &now
	if !s.saveOrFail(w) {
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func parseBool(v string, extra ...string) (bool, bool) {
	switch v {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	for _, e := range extra {
		if v == e {
			return strings.EqualFold(v, "true"), true
		}
	}
	return false, false
}

func positive(v string) (int, bool) {
	n, err := strconv.Atoi(v)
	return n, err == nil && n > 0
}
