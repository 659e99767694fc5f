package client

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
)

func TestClient_headersAndBaseURL(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/", "/api", "/api/"} {
		var rec clienttest.Recorder
		ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { clienttest.WritePage(w, nil) })
		c := newTestClient(t, ts.URL+suffix)
		if _, err := c.ListJobs(context.Background(), testWS, JobFilter{}); err != nil {
			t.Fatal(err)
		}
		r := rec.Reqs[0]
		wantPath := strings.TrimSuffix(suffix, "/") + "/developers/workspaces/" + testWS + "/jobs/"
		if r.URL.Path != wantPath {
			t.Errorf("base %q: path %q, want %q", suffix, r.URL.Path, wantPath)
		}
		if r.Header.Get("Authorization") != "key-123" || r.Header.Get("Accept") != "application/json" ||
			r.Header.Get("User-Agent") != "terraform-provider-dataintegration/1.2.3" {
			t.Errorf("headers: %v", r.Header)
		}
	}
}
