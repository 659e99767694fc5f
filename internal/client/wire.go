package client

// What goes on the wire, so that the service's real connector names can
// replace this project's own in one place (README.md, "The connector's wire contract").

import (
	"encoding/json"
	"fmt"
	"net/url"
)

const (
	pathJobs       = "developers/workspaces/%s/jobs/"
	pathJobRun     = "developers/workspaces/%s/jobs/%s/run/"
	pathJobCancel  = "developers/workspaces/%s/jobs/%s/cancel/"
	pathConnectors = "developers/workspaces/%s/connectors/"
	pathConnector  = "developers/workspaces/%s/connectors/%s/"
)

const (
	queryPage             = "page"
	queryPageSize         = "page_size"
	queryOrdering         = "ordering"
	queryConnectorName    = "connector_name"
	queryDataSource       = "data_source"
	queryName             = "name"
	querySchemaName       = "schema_name"
	queryIsActive         = "is_active"
	queryForceFullRefresh = "force_full_refresh"
)

// PageSize is the page_size of every list request.
const PageSize = 100

// ConnectorKindCustomerService is the connector_name of the connector.
const ConnectorKindCustomerService = "customer_service"

// Job is a job of a workspace (README.md, "Jobs"). The API does not say its
// strings are never null, hence the pointers.
type Job struct {
	ID            string  `json:"_id"`
	CreatedAt     *string `json:"_created_at"`
	UpdatedAt     *string `json:"_updated_at"`
	DataSource    *string `json:"data_source"`
	ConnectorName *string `json:"connector_name"`
	SchemaName    *string `json:"schema_name"`
	Name          *string `json:"name"`
	IsActive      bool    `json:"is_active"`
}

// Page is the envelope of a list answer (README.md, "Pages"); every field
// is optional, so pointers tell absent from zero.
type Page[T any] struct {
	Count        *int64   `json:"count"`
	NextPage     NextPage `json:"next_page,omitzero"`
	PreviousPage *int64   `json:"previous_page"`
	PageSize     *int64   `json:"page_size"`
	TotalPages   *int64   `json:"total_pages"`
	CurrentPage  *int64   `json:"current_page"`
	Results      []T      `json:"results"`
}

// NextPage tells null, which ends the list, from absent.
type NextPage struct {
	Sent   bool
	Number *int64 // nil when null
}

// Ends tells whether next_page was sent as null: there is no next page.
func (n NextPage) Ends() bool { return n.Sent && n.Number == nil }

// IsZero leaves out of the JSON a next_page that was left out.
func (n NextPage) IsZero() bool { return !n.Sent }

func (n *NextPage) UnmarshalJSON(b []byte) error {
	n.Sent, n.Number = true, nil
	if string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, &n.Number)
}

func (n NextPage) MarshalJSON() ([]byte, error) { return json.Marshal(n.Number) }

// Connector is a customer-service connector as the service returns it.
type Connector struct {
	ID            string                 `json:"_id"`
	CreatedAt     string                 `json:"_created_at"`
	UpdatedAt     string                 `json:"_updated_at"`
	Name          string                 `json:"name"`
	ConnectorName string                 `json:"connector_name"`
	Configuration ConnectorConfiguration `json:"configuration"`
	Streams       []string               `json:"streams"`
}

// listedConnector is not full when it lacks a key a read by ID returns: a
// read does not answer from such a summary.
type listedConnector struct {
	Connector
	full bool
}

func (l *listedConnector) UnmarshalJSON(b []byte) error {
	var w struct {
		ID            *string              `json:"_id"`
		CreatedAt     *string              `json:"_created_at"`
		UpdatedAt     *string              `json:"_updated_at"`
		Name          *string              `json:"name"`
		ConnectorName *string              `json:"connector_name"`
		Configuration *listedConfiguration `json:"configuration"`
		Streams       *[]string            `json:"streams"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	conf := w.Configuration
	if conf == nil {
		conf = &listedConfiguration{}
	}
	l.full = w.ID != nil && w.CreatedAt != nil && w.UpdatedAt != nil && w.Name != nil && w.ConnectorName != nil &&
		conf.URL != nil && conf.AgentEmail != nil && w.Streams != nil
	l.Connector = Connector{
		ID: deref(w.ID), CreatedAt: deref(w.CreatedAt), UpdatedAt: deref(w.UpdatedAt),
		Name: deref(w.Name), ConnectorName: deref(w.ConnectorName),
		Configuration: ConnectorConfiguration{URL: deref(conf.URL), AgentEmail: deref(conf.AgentEmail)},
	}
	if w.Streams != nil {
		l.Streams = *w.Streams
	}
	return nil
}

type listedConfiguration struct {
	URL        *string `json:"url"`
	AgentEmail *string `json:"agent_email"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ConnectorConfiguration is the form of the connector; Token is only sent.
type ConnectorConfiguration struct {
	URL        string `json:"url,omitempty"`
	Token      string `json:"token,omitempty"`
	AgentEmail string `json:"agent_email,omitempty"`
}

type connectorCreateBody struct {
	Name          string                 `json:"name"`
	ConnectorName string                 `json:"connector_name"`
	Configuration ConnectorConfiguration `json:"configuration"`
	Streams       []string               `json:"streams,omitempty"`
}

// connectorPatchBody: only the keys sent change.
type connectorPatchBody struct {
	Name          *string                      `json:"name,omitempty"`
	Configuration *connectorConfigurationPatch `json:"configuration,omitempty"`
	Streams       []string                     `json:"streams,omitempty"`
}

type connectorConfigurationPatch struct {
	URL        *string `json:"url,omitempty"`
	Token      *string `json:"token,omitempty"`
	AgentEmail *string `json:"agent_email,omitempty"`
}

func setIf(q url.Values, key string, v *string) {
	if v != nil {
		q.Set(key, *v)
	}
}

type listing struct {
	op, path string
	query    url.Values
}

// ConnectorFilter selects connectors; nil fields are not sent.
type ConnectorFilter struct {
	Name          *string
	ConnectorName *string
}

func setConnectorFilter(q url.Values, f ConnectorFilter) {
	setIf(q, queryName, f.Name)
	setIf(q, queryConnectorName, f.ConnectorName)
}

func connectorListing(workspaceID string, f ConnectorFilter) listing {
	q := url.Values{}
	setConnectorFilter(q, f)
	return listing{op: "list connectors", path: fmt.Sprintf(pathConnectors, url.PathEscape(workspaceID)), query: q}
}

// JobFilter selects and orders jobs; nil fields are not sent.
type JobFilter struct {
	ConnectorName *string
	DataSource    *string
	Name          *string
	SchemaName    *string
	IsActive      *bool
	Ordering      string
}

func setJobFilter(q url.Values, f JobFilter) {
	setIf(q, queryConnectorName, f.ConnectorName)
	setIf(q, queryDataSource, f.DataSource)
	setIf(q, queryName, f.Name)
	setIf(q, querySchemaName, f.SchemaName)
	if f.IsActive != nil {
		if *f.IsActive {
			q.Set(queryIsActive, "true")
		} else {
			q.Set(queryIsActive, "false")
		}
	}
	if f.Ordering != "" {
		q.Set(queryOrdering, f.Ordering)
	}
}

func jobListing(workspaceID string, f JobFilter) listing {
	q := url.Values{}
	setJobFilter(q, f)
	return listing{op: "list jobs", path: fmt.Sprintf(pathJobs, url.PathEscape(workspaceID)), query: q}
}
