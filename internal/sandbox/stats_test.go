package sandbox

import (
	"net/http"
	"reflect"
	"sync"
	"testing"
)

// TestSandbox_maxInFlight: the stats keep the most requests of the API held at
// once; the side door is not counted.
// It runs serially: its three requests must overlap within their latency.
func TestSandbox_maxInFlight(t *testing.T) {
	h := newHarness(t, Config{Jobs: 1})
	h.expect("PUT", "/_sandbox/faults", map[string]any{"latency_ms": 100}, 200, "")
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { h.expect("GET", jobsPath(""), nil, 200, "") })
	}
	wg.Wait()
	h.expect("GET", jobsPath(""), nil, 200, "")
	if got := h.srv.Stats().MaxInFlight; got != 3 {
		t.Errorf("max_in_flight %d, want 3", got)
	}
}

// TestServer_countsUserAgents: each request is counted under its
// User-Agent, the side door's and a refused one's too, and Stats hands out
// a copy.
func TestServer_countsUserAgents(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 1})
	send := func(ua, apiKey string) {
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+"/developers/workspaces/"+ws+"/jobs/", nil)
		req.Header.Set("Authorization", apiKey)
		req.Header.Set("User-Agent", ua)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	send("Terraform/1.16.4 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0", key)
	send("Terraform/1.16.4 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0", key)
	send("OpenTofu/1.12.6 (+https://opentofu.org) terraform-provider-dataintegration/0.2.0", "wrong-key")
	st := h.srv.Stats()
	want := map[string]int64{
		"Terraform/1.16.4 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0": 2,
		"OpenTofu/1.12.6 (+https://opentofu.org) terraform-provider-dataintegration/0.2.0":      1,
	}
	if !reflect.DeepEqual(st.UserAgents, want) {
		t.Errorf("user agents %v, want %v", st.UserAgents, want)
	}
	st.UserAgents["changed"] = 1
	if _, ok := h.srv.Stats().UserAgents["changed"]; ok {
		t.Error("Stats shares its map with the server")
	}
}
