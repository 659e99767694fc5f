package provider

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// Summaries of the diagnostics a lost answer gives.
const (
	summaryAdopted       = "Connector Created, Its Answer Lost"
	summaryNotCreated    = "Connector Not Created"
	summaryTriggerLost   = "Job Triggered, Its Answer Lost"
	routeCreateConnector = "POST /developers/workspaces/{workspace_id}/connectors/"
	routeTriggerJob      = "POST /developers/workspaces/{workspace_id}/jobs/{_id}/run/"
)

// lostAnswerFaults loses the answer of 30% of the POSTs, once the sandbox
// has carried them out, as a gateway that lost the service's answer would.
var lostAnswerFaults = sandbox.Faults{Rate: 0.3, Statuses: []int{500, 502, 504}, When: sandbox.FaultsAfter, Methods: []string{"POST"}, Seed: 18}

// applyJSON applies dir with machine-readable output, and counts the
// diagnostics by severity and summary, such as "warning: Connector Not
// Created". Terraform's human output folds similar warnings into one.
func applyJSON(e *acctest.Engine, t *testing.T, dir string, env []string) (map[string]int, error) {
	t.Helper()
	out, err := e.Try(dir, env, "apply", "-auto-approve", "-input=false", "-json")
	counts := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity string `json:"severity"`
				Summary  string `json:"summary"`
			} `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "diagnostic" {
			counts[line.Diagnostic.Severity+": "+line.Diagnostic.Summary]++
		}
	}
	return counts, err
}

// expectAtMostOnce checks what the issue of lost answers is about: the state
// holds exactly the connectors the service holds, and no job ran more than
// once. It returns how many jobs ran.
func expectAtMostOnce(t *testing.T, e *acctest.Engine, dir string, env *acctest.Env, jobs []string, connectors int) (ran int) {
	t.Helper()
	acctest.ExpectStateMatchesService(t, e, dir, env, jobs)
	if held := len(env.Sandbox.ConnectorIDs(env.WorkspaceID)); held != connectors {
		t.Errorf("the service holds %d connectors for %d configured", held, connectors)
	}
	for _, job := range jobs {
		ran += min(len(env.Sandbox.Executions(env.WorkspaceID, job)), 1)
	}
	return ran
}

// TestAccLostAnswers: 20 connectors and 10 triggers applied while the
// answers of 30% of the POSTs are lost after the service carried them out.
// The first apply converges: each connector whose answer was lost is found
// and recorded, each trigger whose answer was lost is recorded, so the
// service holds 20 connectors, each job ran once, and the next plan is
// empty. Nothing was sent twice. The executions last an hour: a trigger
// sent again would fail with Job Already Running, as long as they run.
func TestAccLostAnswers(t *testing.T) {
	e := acctest.NewEngine(t)
	env := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour})
	env.RequireSandbox(t, "lose the service's answers")
	jobs, jobsVar := acctest.ActiveJobIDs(t, env, 10)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(20, "", false))
	vars := env.ServiceEnv(jobsVar)
	if err := env.Sandbox.SetFaults(lostAnswerFaults); err != nil {
		t.Fatal(err)
	}

	diags, err := applyJSON(e, t, dir, vars)
	if err != nil {
		t.Fatalf("the first apply failed: %v", err)
	}
	st := env.Sandbox.Stats()
	adopted, triggersLost := diags["warning: "+summaryAdopted], diags["warning: "+summaryTriggerLost]
	t.Logf("%d answers lost of %d POSTs: %d connectors adopted, %d triggers recorded without their answer; diagnostics %v",
		st.Faults, st.ByRoute[routeCreateConnector]+st.ByRoute[routeTriggerJob], adopted, triggersLost, diags)
	if st.Faults == 0 || int64(adopted+triggersLost) != st.Faults {
		t.Errorf("%d answers lost, but %d adoptions and %d lost triggers reported", st.Faults, adopted, triggersLost)
	}
	if c, tr := st.ByRoute[routeCreateConnector], st.ByRoute[routeTriggerJob]; c != 20 || tr != 10 {
		t.Errorf("%d creates and %d triggers sent, want 20 and 10: nothing is sent twice", c, tr)
	}
	if ran := expectAtMostOnce(t, e, dir, env, jobs, 20); ran != 10 {
		t.Errorf("%d of 10 jobs ran, want each once: every trigger was carried out", ran)
	}
	e.ExpectConverged(t, dir, vars)
	if err := env.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	e.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// loseBefore answers a share rate of the POSTs with a 502 without passing
// them on to the service: a gateway that failed before the service saw the
// request. Together with the sandbox's own "after" faults, the provider
// cannot tell which 502 did nothing and which lost an answer.
func loseBefore(h http.Handler, rate float64, seed uint64) (http.Handler, func() int) {
	var mu sync.Mutex
	rng, count := rand.New(rand.NewPCG(seed, seed)), 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fail := r.Method == http.MethodPost && rng.Float64() < rate
		if fail {
			count++
		}
		mu.Unlock()
		if fail {
			http.Error(w, `{"detail": "bad gateway"}`, http.StatusBadGateway)
			return
		}
		h.ServeHTTP(w, r)
	}), func() int { mu.Lock(); defer mu.Unlock(); return count }
}

// TestAccLostAnswers_mixedFaults: 15% of the POSTs fail before the service
// sees them, and the answers of 15% of the rest are lost after it carried
// them out, in every apply. A connector whose 502 came before is not
// created: that apply fails saying so, and the next creates it. A trigger
// whose 502 came before is recorded all the same, and its job does not
// run: at most once. Within five applies the configuration converges with
// 20 connectors, no job run twice, and an empty plan.
func TestAccLostAnswers_mixedFaults(t *testing.T) {
	e := acctest.NewEngine(t)
	env := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: 100 * time.Millisecond})
	env.RequireSandbox(t, "lose the service's answers")
	jobs, jobsVar := acctest.ActiveJobIDs(t, env, 10)
	front, refused := loseBefore(env.Sandbox, 0.15, 9)
	ts := httptest.NewServer(front)
	t.Cleanup(ts.Close)
	mixed := *env
	mixed.BaseURL = ts.URL
	dir := acctest.ConfigDir(t, acctest.FleetHCL(20, "", false))
	vars := mixed.ServiceEnv(jobsVar)
	after := lostAnswerFaults
	after.Rate = 0.15
	if err := env.Sandbox.SetFaults(after); err != nil {
		t.Fatal(err)
	}

	total := map[string]int{}
	applies := 0
	for done := false; !done; {
		if applies++; applies > 5 {
			t.Fatalf("no convergence in 5 applies: %v", total)
		}
		diags, err := applyJSON(e, t, dir, vars)
		for k, n := range diags {
			total[k] += n
		}
		done = err == nil
		if !done && diags["error: "+summaryNotCreated] == 0 {
			t.Fatalf("apply %d failed without a connector found not created: %v", applies, err)
		}
		acctest.ExpectStateMatchesService(t, e, dir, &mixed, jobs)
	}
	st := env.Sandbox.Stats()
	ran := expectAtMostOnce(t, e, dir, &mixed, jobs, 20)
	t.Logf("converged in %d applies: %d POSTs refused before the service, %d answers lost after it; "+
		"%d connectors adopted, %d found not created (made by a later apply); %d triggers recorded without their answer; %d of 10 jobs ran",
		applies, refused(), st.Faults, total["warning: "+summaryAdopted], total["error: "+summaryNotCreated], total["warning: "+summaryTriggerLost], ran)
	if refused() == 0 || st.Faults == 0 {
		t.Errorf("%d POSTs refused before the service and %d answers lost after it: the faults were not mixed", refused(), st.Faults)
	}
	if total["warning: "+summaryTriggerLost] != 10-ran+int(st.Faults)-total["warning: "+summaryAdopted] {
		t.Errorf("%d jobs did not run and %d trigger answers were lost after the service, but %d lost triggers were reported",
			10-ran, int(st.Faults)-total["warning: "+summaryAdopted], total["warning: "+summaryTriggerLost])
	}
	e.ExpectConverged(t, dir, vars)
	if err := env.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	e.Run(t, dir, env.ServiceEnv(jobsVar), "destroy", "-auto-approve", "-input=false")
}
