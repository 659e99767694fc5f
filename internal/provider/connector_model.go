package provider

import (
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

var connectorDescriptions = map[string]string{
	"id":             "The connector's ID (a UUID), given by the service.",
	"name":           "The connector's name, 1 to 255 characters, not blank, without control characters (such as a newline or a tab). The service names the connector's job after it.",
	"url":            "The base address of the account on the customer-service platform, `https://<account_host>`: an absolute `https` URL of a host name or an IP address (a port from 1 to 65535 is allowed), with no path beyond `/`, no query, no fragment and no user information.",
	"agent_email":    "The e-mail address of the platform's agent whom the token belongs to, such as `agent@example.com`: a bare address, at most 254 characters, with at most 64 before the `@` and a domain with a dot after it.",
	"streams":        "The streams the connector loads, each at most once, among `" + strings.Join(validate.CustomerServiceStreams, "`, `") + "`.",
	"connector_name": "The kind of connector, as the service names it: always `" + client.ConnectorKindCustomerService + "`.",
	"created_at":     "When the connector was created, as the service gives it (ISO 8601 with milliseconds, UTC).",
	"updated_at":     "When the connector was last changed, as the service gives it (ISO 8601 with milliseconds, UTC).",
}

// connectorModel is a connector as the resource and the data sources show it.
type connectorModel struct {
	ID            types.String `tfsdk:"id"`
	WorkspaceID   types.String `tfsdk:"workspace_id"`
	Name          types.String `tfsdk:"name"`
	URL           types.String `tfsdk:"url"`
	AgentEmail    types.String `tfsdk:"agent_email"`
	Streams       types.List   `tfsdk:"streams"`
	ConnectorName types.String `tfsdk:"connector_name"`
	CreatedAt     types.String `tfsdk:"created_at"`
	UpdatedAt     types.String `tfsdk:"updated_at"`
}

// fill keeps m's order of the streams when they are the same names.
func (m *connectorModel) fill(c *client.Connector) {
	m.ID = types.StringValue(c.ID)
	m.Name = types.StringValue(c.Name)
	m.URL = types.StringValue(c.Configuration.URL)
	m.AgentEmail = types.StringValue(c.Configuration.AgentEmail)
	m.Streams = streamsValue(c.Streams, m.Streams)
	m.ConnectorName = types.StringValue(c.ConnectorName)
	m.CreatedAt = types.StringValue(c.CreatedAt)
	m.UpdatedAt = types.StringValue(c.UpdatedAt)
}

// streamsValue keeps the prior order of the same names: it means nothing to the service.
func streamsValue(got []string, prior types.List) types.List {
	if !prior.IsNull() && !prior.IsUnknown() {
		before := listStrings(prior)
		if len(before) == len(got) && sameElements(before, got) {
			return prior
		}
	}
	return stringList(got)
}

func sameElements(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func stringList(ss []string) types.List {
	elems := make([]attr.Value, len(ss))
	for i, s := range ss {
		elems[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, elems)
}

func listStrings(l types.List) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	out := make([]string, 0, len(l.Elements()))
	for _, e := range l.Elements() {
		if s, ok := e.(types.String); ok {
			out = append(out, s.ValueString())
		}
	}
	return out
}
