package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

func connectorsByName(ctx context.Context, c *client.Client, ws, name string) ([]client.Connector, error) {
	f, match := connectorFilter(&name)
	v, found := client.Collect(match, 0)
	err := c.EachConnectorPage(ctx, ws, f, v)
	return *found, err
}

// connectorByName is nil, after an error, unless exactly one connector has the name.
func connectorByName(ctx context.Context, c *client.Client, ws, name string, diags *diag.Diagnostics) *client.Connector {
	listed, err := c.ConnectorsNamed(ctx, ws, name)
	_, match := connectorFilter(&name)
	found := slices.DeleteFunc(listed, func(conn client.Connector) bool { return !match(conn) })
	switch {
	case err != nil:
		addRequestError(diags, "Unable to List Connectors", ws, err)
	case len(found) == 0:
		diags.AddAttributeError(path.Root("name"), "Connector Not Found",
			fmt.Sprintf("No customer-service connector is named %q in workspace %s.", name, ws))
	case len(found) > 1:
		diags.AddAttributeError(path.Root("name"), "Several Connectors Match",
			fmt.Sprintf("%d customer-service connectors are named %q in workspace %s (IDs %s): look the connector up by id instead.",
				len(found), name, ws, connectorIDs(found)))
	default:
		return &found[0]
	}
	return nil
}

// connectorFilter is the service's filters for the customer-service connectors, named
// name unless nil, and match, which keeps exact matches: the rules are not published.
func connectorFilter(name *string) (f client.ConnectorFilter, match func(client.Connector) bool) {
	kind := client.ConnectorKindCustomerService
	return client.ConnectorFilter{Name: name, ConnectorName: &kind}, func(c client.Connector) bool {
		return c.ConnectorName == kind && (name == nil || c.Name == *name)
	}
}

func connectorIDs(cs []client.Connector) string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return strings.Join(ids, ", ")
}

func checkConnectorKind(c *client.Connector, diags *diag.Diagnostics) bool {
	if c.ConnectorName == client.ConnectorKindCustomerService {
		return true
	}
	diags.AddError("Not a Customer-Service Connector",
		fmt.Sprintf("Connector %s is a %q connector, not a %q one: this provider manages customer-service connectors only.",
			c.ID, c.ConnectorName, client.ConnectorKindCustomerService))
	return false
}
