package client

import (
	"context"
	"net/http"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
)

func TestJobs_eachPageStopsEarly(t *testing.T) {
	t.Parallel()
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) { clienttest.WritePage(w, 2, "a") })
	err := newTestClient(t, ts.URL).EachJobPage(context.Background(), testWS, JobFilter{}, Visitor[Job]{Page: func([]Job) int { return 0 }})
	if err != nil || rec.Count() != 1 {
		t.Errorf("err %v, %d requests", err, rec.Count())
	}
}

func TestJobs_triggerSendsForceFullRefreshOnlyWhenTrue(t *testing.T) {
	t.Parallel()
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) })
	c := newTestClient(t, ts.URL)
	if err := c.TriggerJob(context.Background(), testWS, "j1", false); err != nil {
		t.Fatal(err)
	}
	if err := c.TriggerJob(context.Background(), testWS, "j1", true); err != nil {
		t.Fatal(err)
	}
	if rec.Reqs[0].Method != "POST" || rec.Reqs[0].URL.Path != "/developers/workspaces/"+testWS+"/jobs/j1/run/" {
		t.Errorf("request: %s %s", rec.Reqs[0].Method, rec.Reqs[0].URL)
	}
	if rec.Reqs[0].URL.RawQuery != "" || rec.Reqs[1].URL.RawQuery != "force_full_refresh=true" {
		t.Errorf("queries %q and %q", rec.Reqs[0].URL.RawQuery, rec.Reqs[1].URL.RawQuery)
	}
}

func TestJobs_cancel(t *testing.T) {
	t.Parallel()
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })
	if err := newTestClient(t, ts.URL).CancelJob(context.Background(), testWS, "j1"); err != nil {
		t.Fatal(err)
	}
	if r := rec.Reqs[0]; r.Method != "DELETE" || r.URL.Path != "/developers/workspaces/"+testWS+"/jobs/j1/cancel/" {
		t.Errorf("request: %s %s", r.Method, r.URL)
	}
}
