package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"

	"github.com/google/uuid"
)

// wire is the connector as the service under v answers it: never the token.
func (c *connector) wire(v Variant) map[string]any {
	out := map[string]any{
		"_id":            c.ID,
		"_created_at":    stamp(c.CreatedAt),
		"_updated_at":    stamp(c.UpdatedAt),
		"name":           c.Name,
		"connector_name": connectorKind,
		"configuration":  map[string]string{"url": c.URL, "agent_email": c.AgentEmail},
		"streams":        c.Streams,
	}
	if v.ExtraFields {
		for _, m := range extraFields("connector") {
			out[m.key] = m.value
		}
	}
	return out
}

// ConnectorView is a connector as tests see it, token included.
type ConnectorView struct {
	ID, Name, URL, Token, AgentEmail string
	Streams                          []string
	JobID                            string
	TokenWrites                      int
}

// Connector returns a stored connector, token included, for tests.
func (s *Server) Connector(workspaceID, id string) (ConnectorView, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, err := s.workspaceLocked(workspaceID)
	if err != nil {
		return ConnectorView{}, false
	}
	c, ok := ws.Connectors[strings.ToLower(id)]
	if !ok {
		return ConnectorView{}, false
	}
	return c.view(), true
}

// ConnectorIDs returns the IDs of a workspace's connectors, sorted.
func (s *Server) ConnectorIDs(workspaceID string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	if ws, err := s.workspaceLocked(workspaceID); err == nil {
		for id := range ws.Connectors {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func (c *connector) view() ConnectorView {
	return ConnectorView{
		ID: c.ID, Name: c.Name, URL: c.URL, Token: c.Token, AgentEmail: c.AgentEmail,
		Streams: slices.Clone(c.Streams), JobID: c.JobID, TokenWrites: c.TokenWrites,
	}
}

// connectorInput is what a create or update body holds, each key parsed and
// validated; nil means absent.
type connectorInput struct {
	name, url, token, agentEmail *string
	streams                      []string
}

// parseConnector validates a body against the contract, with the sandbox's
// own rules (rules.go). On create every required key must be there.
func parseConnector(body map[string]json.RawMessage, create bool) (connectorInput, error) {
	var in connectorInput
	if err := knownKeys(body, "", "name", "connector_name", "configuration", "streams"); err != nil {
		return in, err
	}
	var err error
	if in.name, err = stringField(body, "name", "name", checkName); err != nil {
		return in, err
	}
	kind, err := stringField(body, "connector_name", "connector_name", checkKind)
	if err != nil {
		return in, err
	}
	if kind == nil && create {
		return in, fmt.Errorf("connector_name: %w", checkKind(""))
	}
	if err := in.parseConfiguration(body); err != nil {
		return in, err
	}
	if in.streams, err = parseStreams(body); err != nil {
		return in, err
	}
	if create {
		return in, in.complete()
	}
	return in, nil
}

func (in *connectorInput) parseConfiguration(body map[string]json.RawMessage) error {
	raw, ok := body["configuration"]
	if !ok {
		return nil
	}
	var conf map[string]json.RawMessage
	if json.Unmarshal(raw, &conf) != nil || conf == nil {
		return errors.New("configuration: must be an object")
	}
	if err := knownKeys(conf, "configuration.", "url", "token", "agent_email"); err != nil {
		return err
	}
	var err error
	if in.url, err = stringField(conf, "url", "configuration.url", checkURL); err != nil {
		return err
	}
	if in.token, err = stringField(conf, "token", "configuration.token", checkToken); err != nil {
		return err
	}
	in.agentEmail, err = stringField(conf, "agent_email", "configuration.agent_email", checkEmail)
	return err
}

// parseStreams reads the streams, if the body has them; nil means absent.
func parseStreams(body map[string]json.RawMessage) ([]string, error) {
	raw, ok := body["streams"]
	if !ok {
		return nil, nil
	}
	var streams []string
	if err := json.Unmarshal(raw, &streams); err != nil || streams == nil {
		return nil, errors.New("streams: must be an array of stream names")
	}
	if err := checkStreams(streams); err != nil {
		return nil, fmt.Errorf("streams: %w; known streams: %s", err, strings.Join(AllStreams, ", "))
	}
	return streams, nil
}

func (in *connectorInput) complete() error {
	for _, req := range []struct {
		v    *string
		name string
	}{{in.name, "name"}, {in.url, "configuration.url"}, {in.token, "configuration.token"}, {in.agentEmail, "configuration.agent_email"}} {
		if req.v == nil {
			return fmt.Errorf("%s: this field is required", req.name)
		}
	}
	return nil
}

// knownKeys refuses a key of m that is not one of keys; prefix names the
// object m is in.
func knownKeys(m map[string]json.RawMessage, prefix string, keys ...string) error {
	for k := range m {
		if !slices.Contains(keys, k) {
			return fmt.Errorf("%s%s: unknown field", prefix, k)
		}
	}
	return nil
}

// stringField reads key of m as a string check accepts; absent gives nil.
func stringField(m map[string]json.RawMessage, key, label string, check func(string) error) (*string, error) {
	raw, ok := m[key]
	if !ok {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: must be a string", label)
	}
	if err := check(s); err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return &s, nil
}

// schemaName is the connector job's schema: the name in lower case, each run
// of characters other than letters and digits turned into "_".
func schemaName(name string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	return b.String()
}

func (s *Server) connectorOf(w http.ResponseWriter, r *http.Request, ws *workspace) (*connector, bool) {
	id := strings.ToLower(r.PathValue("_id"))
	c, ok := ws.Connectors[id]
	if !isUUID(id) || !ok {
		writeError(w, http.StatusNotFound, "Not found.")
		return nil, false
	}
	return c, true
}

func (s *Server) createConnector(w http.ResponseWriter, r *http.Request, ws *workspace) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	in, err := parseConnector(body, true)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.addConnectorLocked(ws, &connector{Name: *in.name, URL: *in.url, Token: *in.token, AgentEmail: *in.agentEmail, Streams: in.streams})
	if !s.saveOrFail(w) {
		return
	}
	writeJSON(w, http.StatusCreated, c.wire(s.variant))
}

// addConnectorLocked stores c (every stream when it names none) and the job
// created with it, as a create does; called with s.mu held.
func (s *Server) addConnectorLocked(ws *workspace, c *connector) *connector {
	if c.Streams == nil {
		c.Streams = slices.Clone(AllStreams)
	}
	now := s.now()
	c.ID, c.CreatedAt, c.UpdatedAt, c.TokenWrites = uuid.NewString(), now, now, 1
	job := &Job{
		ID: uuid.NewString(), CreatedAt: now, UpdatedAt: now, ConnectorName: connectorKind, IsActive: true,
	}
	job.Name, job.DataSource, job.SchemaName = c.Name, c.Name, schemaName(c.Name)
	c.JobID = job.ID
	ws.Connectors[c.ID] = c
	ws.Jobs[job.ID] = job
	return c
}

// AddConnectors adds a connector of each name to a workspace, each with its
// job, as creates through the API would but spending no rate limit, for
// tests; names are not checked against the API's rules.
func (s *Server) AddConnectors(workspaceID string, names ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, err := s.workspaceLocked(workspaceID)
	if err != nil {
		return err
	}
	for _, name := range names {
		s.addConnectorLocked(ws, &connector{Name: name, URL: "https://acme.example.com", Token: "added-token", AgentEmail: "agent@acme.com"})
	}
	return s.saveLocked()
}

func (s *Server) getConnector(w http.ResponseWriter, r *http.Request, ws *workspace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.connectorOf(w, r, ws); ok {
		writeJSON(w, http.StatusOK, c.wire(s.variant))
	}
}

func (s *Server) updateConnector(w http.ResponseWriter, r *http.Request, ws *workspace) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.connectorOf(w, r, ws)
	if !ok {
		return
	}
	in, err := parseConnector(body, false)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	now := s.now()
	if in.name != nil {
		c.Name = *in.name
		// The connector's job follows its name.
		if j := ws.Jobs[c.JobID]; j != nil {
			j.Name, j.DataSource, j.SchemaName, j.UpdatedAt = c.Name, c.Name, schemaName(c.Name), now
		}
	}
	if in.url != nil {
		c.URL = *in.url
	}
	if in.token != nil {
		c.Token = *in.token
		c.TokenWrites++
	}
	if in.agentEmail != nil {
		c.AgentEmail = *in.agentEmail
	}
	if in.streams != nil {
		c.Streams = in.streams
	}
	c.UpdatedAt = now
	if !s.saveOrFail(w) {
		return
	}
	writeJSON(w, http.StatusOK, c.wire(s.variant))
}

func (s *Server) deleteConnector(w http.ResponseWriter, r *http.Request, ws *workspace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.connectorOf(w, r, ws)
	if !ok {
		return
	}
	delete(ws.Connectors, c.ID)
	delete(ws.Jobs, c.JobID)
	delete(ws.Executions, c.JobID)
	if !s.saveOrFail(w) {
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) listConnectors(w http.ResponseWriter, r *http.Request, ws *workspace) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.variant
	var cs []*connector
	for _, c := range ws.Connectors {
		if v.match(q, "name", c.Name) && v.match(q, "connector_name", connectorKind) {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b *connector) int {
		if r := a.CreatedAt.Compare(b.CreatedAt); r != 0 {
			return r
		}
		return strings.Compare(a.ID, b.ID)
	})
	p, ok := paginate(w, r, cs, v)
	if !ok {
		return
	}
	results := make([]map[string]any, 0, len(p.results))
	for _, c := range p.results {
		results = append(results, c.wire(v))
	}
	writeJSON(w, http.StatusOK, p.wire(v, results))
}
