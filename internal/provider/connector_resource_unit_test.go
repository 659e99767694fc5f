package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// A destroy planned from a stale state (terraform destroy -refresh=false)
// finds the connector gone already: that is success, without a warning.
func TestConnectorDeleteOfAConnectorAlreadyGone(t *testing.T) {
	_, data := unitSandbox(t, sandbox.Config{Jobs: 0}, sandbox.DefaultAPIKey)
	r := configured(t, NewConnectorResource(), data)
	diags := destroy(t, r, connectorState(data.workspaceID, "0f0f0f0f-0000-4000-8000-00000000abcd"))
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
}

// Through a base_url whose path is wrong, every answer is a 404. A delete
// must not take it for a connector gone: the workspace's connector list
// fails too, so the delete fails and the connector stays in the state.
func TestConnectorDeleteThroughAWrongPath(t *testing.T) {
	_, data := unitSandboxAt(t, sandbox.Config{Jobs: 0}, sandbox.DefaultAPIKey, "/api/v1")
	r := configured(t, NewConnectorResource(), data)
	diags := destroy(t, r, connectorState(data.workspaceID, "0f0f0f0f-0000-4000-8000-00000000abcd"))
	if !diags.HasError() || diags[0].Summary() != "Unable to Delete Connector" ||
		!strings.Contains(diags[0].Detail(), "listing the connectors of workspace") || !strings.Contains(diags[0].Detail(), "/api/v1/developers/") {
		t.Errorf("diagnostics: %v", diags)
	}
}

// Any other refusal of a delete is an error: the connector stays in state.
func TestConnectorDeleteRefused(t *testing.T) {
	_, data := unitSandbox(t, sandbox.Config{Jobs: 0}, "not-the-key")
	r := configured(t, NewConnectorResource(), data)
	diags := destroy(t, r, connectorState(data.workspaceID, "0f0f0f0f-0000-4000-8000-00000000abcd"))
	if !diags.HasError() || diags[0].Summary() != "Authentication Failed" || !strings.Contains(diags[0].Detail(), "HTTP 401") {
		t.Errorf("diagnostics: %v", diags)
	}
}

func connectorState(ws, id string) connectorResourceModel {
	return connectorResourceModel{
		connectorModel: connectorModel{
			ID: types.StringValue(id), WorkspaceID: types.StringValue(ws), Name: types.StringValue("desk"),
			URL: types.StringValue("https://acme.example.com"), AgentEmail: types.StringValue("agent@acme.com"),
			Streams: stringList([]string{"chats"}), ConnectorName: types.StringValue("customer_service"),
			CreatedAt: types.StringValue("2026-11-21T09:30:00.123Z"), UpdatedAt: types.StringValue("2026-11-21T09:30:00.123Z"),
		},
		Token: types.StringValue("platform-token-1"), TokenWO: types.StringNull(), TokenWOVersion: types.NumberNull(),
	}
}

// The service may answer the streams in another order: that is not a change.
func TestStreamsValueKeepsThePriorOrder(t *testing.T) {
	prior := stringList([]string{"tickets", "chats"})
	for _, c := range []struct {
		got  []string
		want types.List
	}{
		{[]string{"chats", "tickets"}, prior},
		{[]string{"tickets", "chats"}, prior},
		{[]string{"chats"}, stringList([]string{"chats"})},
		{[]string{"chats", "messages"}, stringList([]string{"chats", "messages"})},
		{[]string{"chats", "tickets", "events"}, stringList([]string{"chats", "tickets", "events"})},
	} {
		if got := streamsValue(c.got, prior); !got.Equal(c.want) {
			t.Errorf("streamsValue(%q) = %v, want %v", c.got, got, c.want)
		}
	}
	if got := streamsValue([]string{"chats"}, types.ListNull(types.StringType)); !got.Equal(stringList([]string{"chats"})) {
		t.Errorf("after import: %v", got)
	}
}

// TestConnectorEmptyNameOneError: name = "" is one mistake, and gets one
// error (the name is blank), not a second about its length.
func TestConnectorEmptyNameOneError(t *testing.T) {
	p := serveProto(t)
	const connector = "dataintegration_customer_service_connector"
	cfg := acctest.ProtoValue(t, p.Schemas.ResourceSchemas[connector], map[string]string{
		"name": "", "url": "https://acme.example.com", "agent_email": "agent@acme.com", "token": "platform-token-1",
	})
	resp, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: connector, Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || !strings.Contains(resp.Diagnostics[0].Detail, "name: the value is blank") {
		t.Errorf("want one error, that the name is blank: %s", protoDiags(resp.Diagnostics))
	}
}
