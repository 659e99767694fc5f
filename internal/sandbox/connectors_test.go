package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestConnectors_lifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 2})
	base := "/developers/workspaces/" + ws + "/connectors/"
	c := h.expect("POST", base, connectorBody("Support Desk (EU)"), 201, "").(map[string]any)
	id := c["_id"].(string)
	if _, leaked := c["configuration"].(map[string]any)["token"]; leaked {
		t.Fatal("create answered the token")
	}
	if len(c["streams"].([]any)) != 15 || c["connector_name"] != "customer_service" {
		t.Errorf("created connector: %v", c)
	}
	// The connector's own job.
	p := h.expect("GET", jobsPath("?data_source=Support%20Desk%20(EU)"), nil, 200, "").(map[string]any)
	job := p["results"].([]any)[0].(map[string]any)
	if p["count"] != 1.0 || job["schema_name"] != "support_desk_eu_" || job["connector_name"] != "customer_service" || job["is_active"] != true {
		t.Errorf("connector job: %v", p)
	}

	got := h.expect("GET", base+id+"/", nil, 200, "").(map[string]any)
	if got["name"] != "Support Desk (EU)" || got["configuration"].(map[string]any)["url"] != "https://acme.example.com" {
		t.Errorf("read: %v", got)
	}
	upd := h.expect("PATCH", base+id+"/", map[string]any{"streams": []string{"chats", "tickets"}, "configuration": map[string]any{"token": "new"}}, 200, "").(map[string]any)
	if len(upd["streams"].([]any)) != 2 || upd["name"] != "Support Desk (EU)" || upd["configuration"].(map[string]any)["agent_email"] != "agent@acme.com" {
		t.Errorf("patch changed more than it sent: %v", upd)
	}
	if v, _ := h.srv.Connector(ws, id); v.Token != "new" || v.TokenWrites != 2 {
		t.Errorf("token after patch: %+v", v)
	}
	list := h.expect("GET", base+"?name=Support%20Desk%20(EU)", nil, 200, "").(map[string]any)
	if list["count"] != 1.0 {
		t.Errorf("list: %v", list)
	}
	h.expect("DELETE", base+id+"/", nil, 204, "")
	h.expect("GET", base+id+"/", nil, 404, "Not found.")
	h.expect("DELETE", base+id+"/", nil, 404, "")
	h.expect("PATCH", base+id+"/", map[string]any{"name": "x"}, 404, "")
	if p := h.expect("GET", jobsPath("?data_source=Support%20Desk%20(EU)"), nil, 200, "").(map[string]any); p["count"] != 0.0 {
		t.Error("deleting the connector left its job")
	}
}

func TestConnectors_validation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 0})
	base := "/developers/workspaces/" + ws + "/connectors/"
	with := func(edit func(m map[string]any)) map[string]any {
		m := connectorBody("desk")
		edit(m)
		return m
	}
	conf := func(k string, v any) func(map[string]any) {
		return func(m map[string]any) { m["configuration"].(map[string]any)[k] = v }
	}
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{with(func(m map[string]any) { m["name"] = "" }), "name: must be 1 to 255"},
		{with(func(m map[string]any) { m["name"] = strings.Repeat("n", 256) }), "name: must be 1 to 255"},
		{with(func(m map[string]any) { delete(m, "name") }), "name: this field is required"},
		{with(func(m map[string]any) { m["connector_name"] = "crm" }), "connector_name"},
		{with(func(m map[string]any) { m["colour"] = "red" }), "colour: unknown field"},
		{with(conf("url", "http://acme.example.com")), "configuration.url"},
		{with(conf("url", "https://acme.example.com/path")), "configuration.url"},
		{with(conf("url", "https://acme.example.com?q=1")), "configuration.url"},
		{with(conf("url", "https://acme.example.com#f")), "configuration.url"},
		{with(conf("token", "")), "configuration.token"},
		{with(conf("agent_email", "not-an-email")), "configuration.agent_email"},
		{with(conf("agent_email", "Agent <a@b.com>")), "configuration.agent_email"},
		{with(func(m map[string]any) { m["streams"] = []string{"chats", "gossip"} }), `streams: "gossip" is not a stream`},
		{with(func(m map[string]any) { m["streams"] = []string{"chats", "chats"} }), `streams: "chats" is listed twice`},
		{with(func(m map[string]any) { delete(m["configuration"].(map[string]any), "token") }), "configuration.token: this field is required"},
	} {
		h.expect("POST", base, c.body, 400, c.want)
	}
	if st := h.srv.Stats(); st.ByRoute["POST /developers/workspaces/{workspace_id}/connectors/"] != 15 {
		t.Errorf("stats: %v", st.ByRoute)
	}
}

// TestConnectors_parseFollowsTheContract: a body the contract allows is
// accepted even where the provider's own rules are stricter, so that the
// sandbox never simply agrees with the provider.
func TestConnectors_parseFollowsTheContract(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(m map[string]any)
	}{
		{"blank name", func(m map[string]any) { m["name"] = "  " }},
		{"name with a newline", func(m map[string]any) { m["name"] = "desk\nEU" }},
		{"blank token", func(m map[string]any) { m["configuration"].(map[string]any)["token"] = " " }},
		{"dotless e-mail domain", func(m map[string]any) { m["configuration"].(map[string]any)["agent_email"] = "agent@localhost" }},
		{"host with an underscore", func(m map[string]any) { m["configuration"].(map[string]any)["url"] = "https://acme_eu.example.com" }},
		{"no streams", func(m map[string]any) { m["streams"] = []string{} }},
	} {
		body := connectorBody("desk")
		c.edit(body)
		in, err := parseConnector(rawBody(t, body), true)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.name == "no streams" && (in.streams == nil || len(in.streams) != 0) {
			t.Errorf("%s: streams %q, want an empty list, not all of them", c.name, in.streams)
		}
	}
}

func TestConnectors_parseUpdate(t *testing.T) {
	t.Parallel()
	in, err := parseConnector(rawBody(t, map[string]any{"configuration": map[string]any{"token": "new"}}), false)
	if err != nil || in.token == nil || *in.token != "new" || in.name != nil || in.url != nil || in.agentEmail != nil || in.streams != nil {
		t.Errorf("a patch of the token alone: %+v, %v", in, err)
	}
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"configuration": "x"}, "configuration: must be an object"},
		{map[string]any{"configuration": map[string]any{"colour": "red"}}, "configuration.colour: unknown field"},
		{map[string]any{"configuration": map[string]any{"url": 1}}, "configuration.url: must be a string"},
		{map[string]any{"streams": nil}, "streams: must be an array"},
		{map[string]any{"streams": []string{"gossip"}}, "known streams: " + strings.Join(AllStreams, ", ")},
		{map[string]any{"connector_name": "crm"}, `connector_name: must be "customer_service"`},
	} {
		if _, err := parseConnector(rawBody(t, c.body), false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.body, err, c.want)
		}
	}
}

func rawBody(t *testing.T, m map[string]any) map[string]json.RawMessage {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
