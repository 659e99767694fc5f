package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSandbox_authorization(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Keys: []KeyBinding{{key, ws}, {key, strings.ToUpper(ws)}}}); err == nil {
		t.Error("a key bound twice to the same workspace was accepted")
	}
	other := "11111111-1111-4111-8111-111111111111"
	h := newHarness(t, Config{Jobs: 2, Keys: []KeyBinding{{key, ws}, {"second-key", other}}})
	for _, c := range []struct {
		apiKey, path string
		status       int
	}{
		{"", jobsPath(""), 401},
		{"nope", jobsPath(""), 401},
		{"Bearer " + key, jobsPath(""), 401},
		{key, jobsPath(""), 200},
		{"second-key", jobsPath(""), 403},
		{"second-key", "/developers/workspaces/" + other + "/jobs/", 200},
		{key, "/developers/workspaces/" + other + "/jobs/", 403},
		{key, "/developers/workspaces/not-a-uuid/jobs/", 404},
	} {
		if st, _, _ := h.call("GET", c.path, c.apiKey, nil); st != c.status {
			t.Errorf("key %q on %s: status %d, want %d", c.apiKey, c.path, st, c.status)
		}
	}
	third := "22222222-2222-4222-8222-222222222222"
	h = newHarness(t, Config{Jobs: 1, Keys: []KeyBinding{{key, ws}, {key, third}, {"second-key", other}}})
	if got := h.srv.Workspaces(); !slices.Equal(got, []string{ws, third, other}) {
		t.Errorf("workspaces %v", got)
	}
	for _, c := range []struct {
		apiKey, path string
		status       int
	}{
		{key, jobsPath(""), 200},
		{key, "/developers/workspaces/" + third + "/jobs/", 200},
		{key, "/developers/workspaces/" + other + "/jobs/", 403},
		{"second-key", "/developers/workspaces/" + third + "/jobs/", 403},
	} {
		if st, _, _ := h.call("GET", c.path, c.apiKey, nil); st != c.status {
			t.Errorf("key %q on %s: status %d, want %d", c.apiKey, c.path, st, c.status)
		}
	}
}

// TestSandbox_concurrentRequests: 16 clients send 1,000 mixed requests each at once
// (lists, triggers, cancels, and the create, read, update and delete of
// connectors); afterwards every count agrees with what they were answered.
// Run with -race, as `make test` does.
func TestSandbox_concurrentRequests(t *testing.T) {
	t.Parallel()
	const clients, each, seeded = 16, 1000, 40
	srv, err := New(Config{Jobs: seeded, RunDuration: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	jobs := SeedJobs(ws, seeded)
	api := "/developers/workspaces/" + ws
	var sent atomic.Int64
	send := func(method, path string, body any) (int, map[string]any) {
		sent.Add(1)
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req := httptest.NewRequest(method, path, rd)
		req.Header.Set("Authorization", key)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var out map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
		return rec.Code, out
	}
	var triggered, cancelled, created, deleted, unexpected atomic.Int64
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []string // this client's live connectors, oldest first
			expect := func(got int, want ...int) {
				if !slices.Contains(want, got) {
					unexpected.Add(1)
				}
			}
			for i := range each {
				job := jobs[(g*7+i)%seeded].ID
				switch i % 8 {
				case 0:
					st, _ := send("GET", api+"/jobs/?ordering=-name&page=2&page_size=10", nil)
					expect(st, 200)
				case 1:
					st, _ := send("POST", api+"/jobs/"+job+"/run/", nil)
					expect(st, 201, 409)
					if st == 201 {
						triggered.Add(1)
					}
				case 2:
					st, out := send("POST", api+"/connectors/", connectorBody(fmt.Sprintf("c-%d-%d", g, i)))
					expect(st, 201)
					if id, ok := out["_id"].(string); ok {
						mine = append(mine, id)
						created.Add(1)
					}
				case 3, 4:
					if len(mine) == 0 {
						continue
					}
					if i%8 == 3 {
						st, _ := send("PATCH", api+"/connectors/"+mine[len(mine)-1]+"/", map[string]any{"name": fmt.Sprintf("r-%d-%d", g, i)})
						expect(st, 200)
					} else {
						st, _ := send("GET", api+"/connectors/"+mine[len(mine)-1]+"/", nil)
						expect(st, 200)
					}
				case 5:
					if len(mine) < 3 {
						continue
					}
					st, _ := send("DELETE", api+"/connectors/"+mine[0]+"/", nil)
					expect(st, 204)
					mine = mine[1:]
					deleted.Add(1)
				case 6:
					st, _ := send("GET", "/_sandbox/stats", nil)
					expect(st, 200)
				default:
					st, _ := send("DELETE", api+"/jobs/"+job+"/cancel/", nil)
					expect(st, 204, 409)
					if st == 204 {
						cancelled.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()

	if n := unexpected.Load(); n != 0 {
		t.Errorf("%d answers had an unexpected status", n)
	}
	st := srv.Stats()
	var answered int64
	for _, n := range st.ByRoute {
		answered += n
	}
	if st.Requests != sent.Load() || answered != sent.Load() {
		t.Errorf("stats: %d requests, %d by route; %d were sent", st.Requests, answered, sent.Load())
	}
	live := created.Load() - deleted.Load()
	if n := int64(len(srv.Jobs(ws))); n != seeded+live {
		t.Errorf("%d jobs, want %d seeded and one for each of the %d live connectors", n, seeded, live)
	}
	var runs, cancels int64
	for _, j := range jobs {
		for _, e := range srv.Executions(ws, j.ID) {
			runs++
			if e.Status == StatusCancelled {
				cancels++
			}
		}
	}
	if runs != triggered.Load() || cancels != cancelled.Load() {
		t.Errorf("executions: %d, %d cancelled; answers: %d triggers and %d cancels accepted", runs, cancels, triggered.Load(), cancelled.Load())
	}
	t.Logf("%d requests: %d connectors created, %d deleted, %d triggers and %d cancels accepted",
		st.Requests, created.Load(), deleted.Load(), triggered.Load(), cancelled.Load())
}
