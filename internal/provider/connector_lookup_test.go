package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestConnectorLookup_exactCustomerServiceMatchesOnly: the filter asks the
// service for customer-service connectors of the name, and keeps only
// those whose name is exactly it: the service's matching rules are not
// published. A connector of another kind is refused, naming both kinds.
func TestConnectorLookup_exactCustomerServiceMatchesOnly(t *testing.T) {
	t.Parallel()
	name := "desk"
	f, match := connectorFilter(&name)
	if f.Name == nil || *f.Name != name || f.ConnectorName == nil || *f.ConnectorName != client.ConnectorKindCustomerService {
		t.Errorf("filter %+v, want the name %q and the kind %q", f, name, client.ConnectorKindCustomerService)
	}
	for _, c := range []struct {
		conn client.Connector
		want bool
	}{
		{client.Connector{Name: "desk", ConnectorName: client.ConnectorKindCustomerService}, true},
		{client.Connector{Name: "Desk", ConnectorName: client.ConnectorKindCustomerService}, false},
		{client.Connector{Name: "desk 2", ConnectorName: client.ConnectorKindCustomerService}, false},
		{client.Connector{Name: "desk", ConnectorName: "crm"}, false},
	} {
		if got := match(c.conn); got != c.want {
			t.Errorf("match(%+v) = %v, want %v", c.conn, got, c.want)
		}
	}
	if _, anyName := connectorFilter(nil); !anyName(client.Connector{Name: "any", ConnectorName: client.ConnectorKindCustomerService}) {
		t.Error("without a name, a customer-service connector does not match")
	}

	var diags diag.Diagnostics
	if !checkConnectorKind(&client.Connector{ID: "c-1", ConnectorName: client.ConnectorKindCustomerService}, &diags) || diags.HasError() {
		t.Errorf("a customer-service connector refused: %v", diags)
	}
	if checkConnectorKind(&client.Connector{ID: "c-2", ConnectorName: "crm"}, &diags) {
		t.Error("a crm connector passes")
	}
	onlyError(t, diags, "Not a Customer-Service Connector", "Connector c-2", `"crm"`, `"customer_service"`)
}

// TestConnectorLookup_byName: a name no connector has is an error on name; a
// name one connector has finds it.
func TestConnectorLookup_byName(t *testing.T) {
	t.Parallel()
	_, data := unitSandbox(t, sandbox.Config{}, sandbox.DefaultAPIKey)
	ctx := context.Background()
	made, err := data.client.CreateConnector(ctx, data.workspaceID, client.ConnectorSpec{
		Name: "desk", URL: "https://acme.example.com", Token: "tok-1", AgentEmail: "agent@acme.com",
	})
	if err != nil {
		t.Fatal(err)
	}
	var diags diag.Diagnostics
	if got := connectorByName(ctx, data.client, data.workspaceID, "desk", &diags); got == nil || got.ID != made.ID || diags.HasError() {
		t.Errorf("desk: %+v, %v", got, diags)
	}
	if got := connectorByName(ctx, data.client, data.workspaceID, "no such desk", &diags); got != nil {
		t.Errorf("no such desk: %+v", got)
	}
	onlyError(t, diags, "Connector Not Found", `"no such desk"`, data.workspaceID)
}
