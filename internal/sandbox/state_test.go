package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestState_file(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	h := newHarness(t, Config{Jobs: 3, StatePath: path})
	c := h.expect("POST", "/developers/workspaces/"+ws+"/connectors/", connectorBody("kept"), 201, "").(map[string]any)
	h.expect("POST", jobsPath(SeedJobs(ws, 3)[0].ID+"/run/"), nil, 201, "")

	again := newHarness(t, Config{Jobs: 3, StatePath: path})
	if v, ok := again.srv.Connector(ws, c["_id"].(string)); !ok || v.Name != "kept" || v.Token != "secret-token" {
		t.Errorf("connector after restart: %+v %v", v, ok)
	}
	if n := len(again.srv.Jobs(ws)); n != 4 {
		t.Errorf("%d jobs after restart, want 3 seeded and the connector's", n)
	}
	if n := len(again.srv.Executions(ws, SeedJobs(ws, 3)[0].ID)); n != 1 {
		t.Errorf("%d executions after restart", n)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp"))
	if len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

// startSandbox runs the sandbox command with a state file and returns its
// process and base URL.
func startSandbox(t *testing.T, bin, state string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-jobs", "2", "-state", state)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "export DATAINTEGRATION_BASE_URL="); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return cmd, u
		}
	}
	_ = cmd.Wait()
	t.Fatalf("the sandbox did not start: %s", stderr.String())
	return nil, ""
}

// TestState_survivesSIGKILL kills the sandbox in the middle of writes, three
// times, and restarts it each time on the same state file: it starts, and
// holds every connector whose creation it had acknowledged.
// It runs serially: it kills sandboxes after fixed delays.
func TestState_survivesSIGKILL(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sandbox")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/sandbox").CombinedOutput(); err != nil {
		t.Fatalf("building the sandbox: %v\n%s", err, out)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	acked := map[string]bool{}
	for round := range 3 {
		cmd, base := startSandbox(t, bin, state)
		list := listConnectors(t, base)
		for id := range acked {
			if !list[id] {
				t.Fatalf("round %d: acknowledged connector %s is gone after the restart", round, id)
			}
		}
		// Each of the 8 writers had at most one creation in flight at each
		// kill: done, but never acknowledged.
		if len(list) > len(acked)+8*round {
			t.Errorf("round %d: %d connectors, but only %d were acknowledged and %d could be in flight", round, len(list), len(acked), 8*round)
		}

		var mu sync.Mutex
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					body, _ := json.Marshal(connectorBody(fmt.Sprintf("r%d-g%d-%d", round, g, i)))
					req, _ := http.NewRequest("POST", base+"/developers/workspaces/"+ws+"/connectors/", bytes.NewReader(body))
					req.Header.Set("Authorization", key)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						return // killed
					}
					var c struct {
						ID string `json:"_id"`
					}
					err = json.NewDecoder(resp.Body).Decode(&c)
					resp.Body.Close()
					if resp.StatusCode == http.StatusCreated && err == nil {
						mu.Lock()
						acked[c.ID] = true
						mu.Unlock()
					}
				}
			}()
		}
		time.Sleep(time.Duration(150+100*round) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		close(stop)
		wg.Wait()
	}
	cmd, base := startSandbox(t, bin, state)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	list := listConnectors(t, base)
	for id := range acked {
		if !list[id] {
			t.Fatalf("acknowledged connector %s is gone after the last restart", id)
		}
	}
	if len(acked) == 0 {
		t.Fatal("no creation was acknowledged before the kills: the test proved nothing")
	}
	t.Logf("%d connectors acknowledged over 3 kills, %d held after the last restart", len(acked), len(list))
}

// listConnectors returns the IDs of every connector of the workspace.
func listConnectors(t *testing.T, base string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for page := 1; ; page++ {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/developers/workspaces/%s/connectors/?page=%d&page_size=100", base, ws, page), nil)
		req.Header.Set("Authorization", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			NextPage *int `json:"next_page"`
			Results  []struct {
				ID string `json:"_id"`
			} `json:"results"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("listing connectors: %d, %v", resp.StatusCode, err)
		}
		for _, c := range p.Results {
			ids[c.ID] = true
		}
		if p.NextPage == nil {
			return ids
		}
	}
}

// TestSideDoor_oneValue: a side-door body of two JSON values, or of one with
// trailing text, is refused, and sets nothing.
func TestSideDoor_oneValue(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 1})
	for _, c := range []struct{ path, body string }{
		{"/_sandbox/variant", `{"envelope": []} trailing`},
		{"/_sandbox/faults", `{"rate": 0}{"rate": 1, "statuses": [503]}`},
	} {
		req, _ := http.NewRequest("PUT", h.ts.URL+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), "the body holds more than one JSON value") {
			t.Errorf("PUT %s %s: %d %s", c.path, c.body, resp.StatusCode, b)
		}
	}
	if v := h.srv.Variant(); v.Envelope != nil {
		t.Errorf("a refused body set the variant %+v", v)
	}
	// No fault was set: the list answers.
	h.expect("GET", jobsPath(""), nil, 200, "")
}
