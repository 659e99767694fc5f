package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
)

func TestConnectors_eachPageStopsEarly(t *testing.T) {
	t.Parallel()
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) { clienttest.WritePage(w, 2, "a") })
	n := "desk"
	err := newTestClient(t, ts.URL).EachConnectorPage(context.Background(), testWS, ConnectorFilter{Name: &n}, Visitor[Connector]{Page: func([]Connector) int { return 0 }})
	if err != nil || rec.Count() != 1 {
		t.Errorf("err %v, %d requests", err, rec.Count())
	}
	if q := rec.Reqs[0].URL.Query(); q.Get("name") != "desk" || q.Get("page") != "1" {
		t.Errorf("list query %v", q)
	}
}

func TestConnectors_operations(t *testing.T) {
	t.Parallel()
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case "POST":
			w.WriteHeader(201)
			_, _ = io.WriteString(w, `{"_id": "c1", "name": "desk", "connector_name": "customer_service", "configuration": {"url": "https://a.example.com", "agent_email": "a@b.c"}, "streams": ["chats"]}`)
		case "PATCH", "GET":
			if strings.HasSuffix(r.URL.Path, "/connectors/") {
				next := any(nil)
				if r.URL.Query().Get("page") == "1" {
					next = 2
				}
				_ = json.NewEncoder(w).Encode(map[string]any{"next_page": next, "results": []Connector{{ID: "c" + r.URL.Query().Get("page")}}})
				return
			}
			_, _ = io.WriteString(w, `{"_id": "c1", "name": "renamed"}`)
		case "DELETE":
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"detail": "Not found."}`)
		}
	})
	c := newTestClient(t, ts.URL)
	ctx := context.Background()
	created, err := c.CreateConnector(ctx, testWS, ConnectorSpec{Name: "desk", URL: "https://a.example.com", Token: "tok", AgentEmail: "a@b.c", Streams: []string{"chats"}})
	if err != nil || created.ID != "c1" || created.Configuration.URL != "https://a.example.com" {
		t.Fatalf("create: %+v %v", created, err)
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(rec.Bodies[0]), &body)
	want := `map[configuration:map[agent_email:a@b.c token:tok url:https://a.example.com] connector_name:customer_service name:desk streams:[chats]]`
	if fmt.Sprint(body) != want || rec.Reqs[0].Header.Get("Content-Type") != "application/json" {
		t.Errorf("create body %v", body)
	}

	name := "renamed"
	if _, err := c.UpdateConnector(ctx, testWS, "c1", ConnectorUpdate{Name: &name}); err != nil {
		t.Fatal(err)
	}
	token := "new"
	if _, err := c.UpdateConnector(ctx, testWS, "c1", ConnectorUpdate{Token: &token, Streams: []string{"tickets"}}); err != nil {
		t.Fatal(err)
	}
	if rec.Bodies[1] != `{"name":"renamed"}` || rec.Bodies[2] != `{"configuration":{"token":"new"},"streams":["tickets"]}` {
		t.Errorf("patch bodies %s and %s", rec.Bodies[1], rec.Bodies[2])
	}
	if rec.Reqs[1].URL.Path != "/developers/workspaces/"+testWS+"/connectors/c1/" {
		t.Errorf("patch path %s", rec.Reqs[1].URL.Path)
	}
	if got, err := c.GetConnector(ctx, testWS, "c1"); err != nil || got.Name != "renamed" {
		t.Errorf("read: %+v %v", got, err)
	}
	if err := c.DeleteConnector(ctx, testWS, "c1"); !IsNotFound(err) {
		t.Errorf("delete of a gone connector: %v", err)
	}
	n := "desk"
	all, err := c.ListConnectors(ctx, testWS, ConnectorFilter{Name: &n})
	if err != nil || len(all) != 2 || all[1].ID != "c2" {
		t.Errorf("list: %+v %v", all, err)
	}
	if q := rec.Reqs[len(rec.Reqs)-1].URL.Query(); q.Get("name") != "desk" || q.Get("page") != "2" {
		t.Errorf("list query %v", q)
	}
}
