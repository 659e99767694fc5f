package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"
)

// ConnectorSpec is the whole configuration of a new connector.
type ConnectorSpec struct {
	Name       string
	URL        string
	Token      string
	AgentEmail string
	Streams    []string
}

// ConnectorUpdate holds what changes; nil fields are not sent.
type ConnectorUpdate struct {
	Name       *string
	URL        *string
	Token      *string
	AgentEmail *string
	Streams    []string
}

// CreateConnector creates a customer-service connector.
func (c *Client) CreateConnector(ctx context.Context, workspaceID string, s ConnectorSpec) (*Connector, error) {
	defer c.reads.wrote(workspaceID)
	var out Connector
	err := c.Do(ctx, request.Call{
		Op:     "create connector",
		Method: http.MethodPost,
		Path:   fmt.Sprintf(pathConnectors, url.PathEscape(workspaceID)),
		Body: connectorCreateBody{
			Name:          s.Name,
			ConnectorName: ConnectorKindCustomerService,
			Configuration: ConnectorConfiguration{URL: s.URL, Token: s.Token, AgentEmail: s.AgentEmail},
			Streams:       s.Streams,
		},
		Want:    http.StatusCreated,
		Read:    checked(&out, createdAs(s)),
		Secrets: []string{s.Token},
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// GetConnector reads a connector; IsNotFound tells when it is gone.
func (c *Client) GetConnector(ctx context.Context, workspaceID, id string) (*Connector, error) {
	var out Connector
	err := c.Do(ctx, request.Call{
		Op:     "read connector",
		Method: http.MethodGet,
		Path:   fmt.Sprintf(pathConnector, url.PathEscape(workspaceID), url.PathEscape(id)),
		Want:   http.StatusOK,
		Read:   checked(&out, connectorID(id)),
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// connectorID checks that an answer is of connector id, in any letter case,
// as IDs are.
func connectorID(id string) func(*Connector) error {
	return func(c *Connector) error {
		if !strings.EqualFold(c.ID, id) {
			return &UnexpectedAnswerError{Asked: fmt.Sprintf("connector %q", id), Answered: fmt.Sprintf("connector %q", c.ID)}
		}
		return nil
	}
}

// createdAs checks that a create's answer is of the connector sent: another is
// a lost answer, which the caller settles by listing.
func createdAs(s ConnectorSpec) func(*Connector) error {
	return func(c *Connector) error {
		if c.ID == "" || c.Name != s.Name || c.ConnectorName != "" && c.ConnectorName != ConnectorKindCustomerService {
			return &UnexpectedAnswerError{Asked: fmt.Sprintf("the create of a %s connector named %q", ConnectorKindCustomerService, s.Name),
				Answered: fmt.Sprintf("connector %q named %q of kind %q", c.ID, c.Name, c.ConnectorName)}
		}
		return nil
	}
}

// checked decodes an answer into out, then checks it.
func checked(out *Connector, check func(*Connector) error) func(io.Reader) error {
	return func(body io.Reader) error {
		if err := request.Decode(body, out); err != nil {
			return err
		}
		return check(out)
	}
}

// UpdateConnector sends only what u sets.
func (c *Client) UpdateConnector(ctx context.Context, workspaceID, id string, u ConnectorUpdate) (*Connector, error) {
	defer c.reads.wrote(workspaceID)
	body := connectorPatchBody{Name: u.Name, Streams: u.Streams}
	if u.URL != nil || u.Token != nil || u.AgentEmail != nil {
		body.Configuration = &connectorConfigurationPatch{URL: u.URL, Token: u.Token, AgentEmail: u.AgentEmail}
	}
	var secrets []string
	if u.Token != nil {
		secrets = []string{*u.Token}
	}
	var out Connector
	err := c.Do(ctx, request.Call{
		Op:      "update connector",
		Method:  http.MethodPatch,
		Path:    fmt.Sprintf(pathConnector, url.PathEscape(workspaceID), url.PathEscape(id)),
		Body:    body,
		Want:    http.StatusOK,
		Read:    checked(&out, connectorID(id)),
		Secrets: secrets,
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteConnector deletes a connector.
func (c *Client) DeleteConnector(ctx context.Context, workspaceID, id string) error {
	defer c.reads.wrote(workspaceID)
	return c.Do(ctx, request.Call{
		Op:     "delete connector",
		Method: http.MethodDelete,
		Path:   fmt.Sprintf(pathConnector, url.PathEscape(workspaceID), url.PathEscape(id)),
		Want:   http.StatusNoContent,
	})
}

// ListConnectors returns every connector of the workspace that f selects.
func (c *Client) ListConnectors(ctx context.Context, workspaceID string, f ConnectorFilter) ([]Connector, error) {
	v, all := Collect[Connector](nil, 0)
	err := c.EachConnectorPage(ctx, workspaceID, f, v)
	return *all, err
}

// EachConnectorPage gives v the pages of the connectors that f selects.
func (c *Client) EachConnectorPage(ctx context.Context, workspaceID string, f ConnectorFilter, v Visitor[Connector]) error {
	return walk(ctx, c.Client, connectorListing(workspaceID, f), v)
}

// EachConnectorPageAsItGrows is EachConnectorPage for a list that others may
// add to while it is read: one page after another, each connector once
// (README.md, "Pages").
func (c *Client) EachConnectorPageAsItGrows(ctx context.Context, workspaceID string, f ConnectorFilter, v Visitor[Connector]) error {
	return walkGrowing(ctx, c.Client, connectorListing(workspaceID, f), v, func(c Connector) string { return c.ID })
}

// ReadConnector is GetConnector, answered from the workspace's shared list
// when that costs fewer requests (README.md, "Reads of connectors").
func (c *Client) ReadConnector(ctx context.Context, workspaceID, id string) (*Connector, error) {
	if got, ok := c.reads.find(ctx, c.Client, workspaceID, id); ok {
		return got, nil
	}
	return c.GetConnector(ctx, workspaceID, id)
}

// WorkspaceConnectors returns the customer-service connectors of the shared list.
func (c *Client) WorkspaceConnectors(ctx context.Context, workspaceID string) ([]Connector, error) {
	listed, err := c.reads.all(ctx, c.Client, workspaceID)
	if err != nil {
		return nil, err
	}
	return c.complete(ctx, workspaceID, listed)
}

// ConnectorsNamed returns the connectors the service selects for name, from
// the shared list when there is one; callers keep the exact matches.
func (c *Client) ConnectorsNamed(ctx context.Context, workspaceID, name string) ([]Connector, error) {
	listed, held := c.reads.held(ctx, workspaceID)
	if held {
		// A summary without its name may still be of the name: it is read.
		listed = slices.DeleteFunc(slices.Clone(listed), func(it listedConnector) bool {
			return it.Name != name && (it.full || it.Name != "")
		})
	} else {
		kind := ConnectorKindCustomerService
		v, all := Collect[listedConnector](nil, 0)
		if err := walk(ctx, c.Client, connectorListing(workspaceID, ConnectorFilter{Name: &name, ConnectorName: &kind}), v); err != nil {
			return nil, err
		}
		listed = *all
	}
	return c.complete(ctx, workspaceID, listed)
}

// complete reads each summary by ID, and leaves out one deleted meanwhile.
func (c *Client) complete(ctx context.Context, workspaceID string, listed []listedConnector) ([]Connector, error) {
	got := make([]*Connector, len(listed))
	errs := make([]error, len(listed))
	var wg sync.WaitGroup
	for i, it := range listed {
		if it.full {
			got[i] = &listed[i].Connector
			continue
		}
		wg.Go(func() { got[i], errs[i] = c.GetConnector(ctx, workspaceID, it.ID) })
	}
	wg.Wait()
	out := make([]Connector, 0, len(listed))
	for i, err := range errs {
		switch {
		case IsNotFound(err):
		case err != nil:
			return nil, err
		default:
			out = append(out, *got[i])
		}
	}
	return out, nil
}

// CheckWorkspace tells whether the API key reaches the workspace, and how
// many customer-service connectors it holds (-1 when the answer does not
// say): one item of the list of connectors is asked, not the whole list.
func (c *Client) CheckWorkspace(ctx context.Context, workspaceID string) (connectors int, err error) {
	q := url.Values{queryPage: {"1"}, queryPageSize: {"1"}}
	kind := ConnectorKindCustomerService
	setConnectorFilter(q, ConnectorFilter{ConnectorName: &kind})
	var p Page[json.RawMessage]
	err = c.Do(ctx, request.Call{
		Op:     "check workspace",
		Method: http.MethodGet,
		Path:   fmt.Sprintf(pathConnectors, url.PathEscape(workspaceID)),
		Query:  q,
		Want:   http.StatusOK,
		Read:   request.Into(&p),
	})
	connectors = -1
	if err == nil && p.Count != nil && *p.Count >= 0 && *p.Count <= math.MaxInt32 {
		connectors = int(*p.Count)
	}
	return connectors, err
}
