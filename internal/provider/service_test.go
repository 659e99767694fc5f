// The provider against a service that fails or differs from the sandbox's
// default, across resources and data sources: requests refused or lost,
// an apply interrupted or killed, a degraded service, scale, lists read
// side by side, and the services the published API allows (the sandbox's
// variants).

package provider

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccReliability_faults applies 12 connectors, 12 triggers and a jobs
// data source over 300 jobs while 30% of the requests fail (429, 500, 502,
// 503, 504) and every request waits: the apply completes, or fails with the
// status and leaves a state that matches the service. Once the faults stop,
// the next apply completes, nothing is doubled, and the plan is empty.
func TestAccReliability_faults(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 300})
	e.RequireSandbox(t, "inject faults")
	jobs, _ := acctest.ActiveJobs(t, e, 12)
	jobsVar := acctest.JobsVar(t, jobs)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(12, "", true))
	vars := e.ServiceEnv(jobsVar)
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 500, 502, 503, 504}, LatencyMS: 5, Seed: 11}); err != nil {
		t.Fatal(err)
	}

	out, err := eng.Try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	under := e.Sandbox.Stats()
	if err != nil {
		if !regexp.MustCompile(`HTTP (429|500|502|503|504)`).MatchString(err.Error()) {
			t.Fatalf("the apply under faults failed without naming the status:\n%v", err)
		}
		c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs)
		t.Logf("the apply under faults failed cleanly: %d connectors and %d triggers done, the rest refused with their status", c, tr)
	} else if !strings.Contains(out, "Apply complete!") {
		t.Fatalf("apply: %s", out)
	}
	t.Logf("under faults: %d requests served, %d faults injected", under.Requests, under.Faults)

	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs); c != 12 || tr != 12 {
		t.Errorf("after the second apply: %d connectors and %d jobs triggered, want 12 and 12", c, tr)
	}
	if got := unquoteNumber(t, eng.Outputs(t, dir)["seeded_jobs_listed"]); got != 300 {
		t.Errorf("the data source listed %d seeded jobs, want 300", got)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

func unquoteNumber(t *testing.T, raw json.RawMessage) int {
	t.Helper()
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatalf("output %s is not a number: %v", raw, err)
	}
	return n
}

// TestAccReliability_interrupt interrupts an apply (SIGINT, as Ctrl-C does)
// while the provider waits out 503s with a Retry-After: Terraform exits
// promptly, the state matches the service, and the next apply converges
// with nothing doubled.
func TestAccReliability_interrupt(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 40})
	e.RequireSandbox(t, "slow the service down")
	jobs, _ := acctest.ActiveJobs(t, e, 16)
	jobsVar := acctest.JobsVar(t, jobs)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(16, "max_retries = 10", true))
	vars := e.ServiceEnv(jobsVar)
	// Four answers in five are a 503 asking to come back in a second, so
	// that the apply is still running when it is interrupted.
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.8, Statuses: []int{503}, LatencyMS: 50, Seed: 5}); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(eng.Path, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=4")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.Env...), vars...)
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.Sandbox.Stats().Requests < 8 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	interrupted := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		took := time.Since(interrupted)
		t.Logf("Terraform exited %v after SIGINT (%v); %d requests served, %d faults", took.Round(time.Millisecond), err, e.Sandbox.Stats().Requests, e.Sandbox.Stats().Faults)
		if err == nil {
			t.Fatalf("the interrupted apply succeeded:\n%s", output.String())
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("Terraform still ran 15 s after SIGINT: the provider did not stop waiting\n%s", output.String())
	}
	c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs)
	t.Logf("interrupted with %d connectors and %d triggers done", c, tr)

	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs); c != 16 || tr != 16 {
		t.Errorf("after the next apply: %d connectors and %d jobs triggered, want 16 and 16", c, tr)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccReliability_hardKill kills an apply that creates 20 connectors
// while answers are slow, with SIGKILL to Terraform and the provider (as a
// cancelled CI job or two Ctrl-C do). The engine loses what it created; the
// next apply creates the rest and refuses each name the service holds
// already, with the import block that adopts it; with those blocks, the
// apply after converges: 20 connectors in the service and the state, no
// name twice.
func TestAccReliability_hardKill(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "slow the service down and read its connectors' names")
	const n = 20
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
	vars := e.ServiceEnv()
	if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: 400}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(eng.Path, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.Env...), vars...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the provider too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(e.Sandbox.ConnectorIDs(e.WorkspaceID)) < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	time.Sleep(time.Second) // requests cut off end in the sandbox
	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	held, inState := e.Sandbox.ConnectorIDs(e.WorkspaceID), eng.StateIDs(t, dir, "dataintegration_customer_service_connector")
	t.Logf("killed: the service holds %d connectors, the state %d", len(held), len(inState))

	out, err := eng.Try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	lost := len(held) - len(inState)
	if got := strings.Count(out+fmt.Sprint(err), "Error: Connector Name Taken"); got != lost || (lost > 0) != (err != nil) {
		t.Fatalf("the apply after the kill refused %d names, want %d (held %d, in the state %d): %v\n%s", got, lost, len(held), len(inState), err, out)
	}
	byName := e.ConnectorsByName(t)
	inState = eng.StateIDs(t, dir, "dataintegration_customer_service_connector")
	t.Logf("next apply: %d names refused; the service holds %d connectors of %d names, the state %d", lost, len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), len(byName), len(inState))
	if len(byName) != n || len(e.Sandbox.ConnectorIDs(e.WorkspaceID)) != n {
		t.Fatalf("the service holds %d connectors of %d names, want %d, none twice: %v", len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), len(byName), n, byName)
	}

	// Adopt what the state lost with the import blocks the errors give.
	var imports strings.Builder
	for i := range n {
		id := byName[fmt.Sprintf("fleet %d", i)][0]
		if _, ok := inState[id]; !ok {
			fmt.Fprintf(&imports, "import {\n  to = dataintegration_customer_service_connector.c[%d]\n  id = %q\n}\n\n", i, e.WorkspaceID+"/"+id)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "imports.tf"), []byte(imports.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	if c, _ := acctest.ExpectStateMatchesService(t, eng, dir, e, nil); c != n {
		t.Errorf("after the imports: %d connectors in the state, want %d", c, n)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccReliability_degradedService: with 30% of the requests answered
// 429 or 503, one apply of connectors and triggers succeeds, each job runs
// once, nothing is doubled, and the next plan is empty; with 30% of the
// reads answered 500, 502 or 504, a refresh plan succeeds in one run.
// make bench runs the same at 300 connectors and 60 triggers.
func TestAccReliability_degradedService(t *testing.T) {
	d := acctest.DegradedRun(t, acctest.NewEngine(t), 30, 12, 0.3)
	t.Logf("apply %v (%d requests, %d faults); refresh plan %v (%d requests, %d faults)",
		d.Apply.Round(time.Millisecond), d.Requests, d.Faults, d.Refresh.Round(time.Millisecond), d.RefreshReads, d.RefreshFaults)
}

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

// TestAccLostAnswers_connectorsAndTriggers: 20 connectors and 10 triggers applied while the
// answers of 30% of the POSTs are lost after the service carried them out.
// The first apply converges: each connector whose answer was lost is found
// and recorded, each trigger whose answer was lost is recorded, so the
// service holds 20 connectors, each job ran once, and the next plan is
// empty. Nothing was sent twice. The executions last an hour: a trigger
// sent again would fail with Job Already Running, as long as they run.
func TestAccLostAnswers_connectorsAndTriggers(t *testing.T) {
	e := acctest.NewEngine(t)
	env := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Hour})
	env.RequireSandbox(t, "lose the service's answers")
	jobs, _ := acctest.ActiveJobs(t, env, 10)
	jobsVar := acctest.JobsVar(t, jobs)
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
	jobs, _ := acctest.ActiveJobs(t, env, 10)
	jobsVar := acctest.JobsVar(t, jobs)
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

// TestAccScale_requestCounts holds an apply and a refresh to the API's
// floor, as `make bench` does at 100 and 200: an apply of 20 connectors and
// 20 triggers sends, per connector, a name check, a create and the list of
// the name that settles a race, and one trigger per job, and nothing else; a plan refreshing them sends one read per connector and
// nothing else (a trigger's refresh sends nothing).
func TestAccScale_requestCounts(t *testing.T) {
	const n = 20
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 40})
	e.RequireSandbox(t, "count the requests")
	jobs, _ := acctest.ActiveJobs(t, e, n)
	jobsVar := acctest.JobsVar(t, jobs)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
	vars := e.ServiceEnv(jobsVar)

	counts := func(run func()) (int64, map[string]int64) {
		before := e.Sandbox.Stats()
		run()
		after := e.Sandbox.Stats()
		diff := maps.Clone(after.ByRoute)
		for r, c := range before.ByRoute {
			if diff[r] -= c; diff[r] == 0 {
				delete(diff, r)
			}
		}
		return after.Requests - before.Requests, diff
	}
	total, byRoute := counts(func() { eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false") })
	if total != 4*n || byRoute["GET "+acctest.RouteConnectors] != 2*n || byRoute["POST "+acctest.RouteConnectors] != n || byRoute[acctest.RouteRunJob] != n {
		t.Errorf("the apply sent %d requests %v, want %d name lists, %d creates and %d triggers only", total, byRoute, 2*n, n, n)
	}
	// The workspace's list is one page: the first read asks by ID, the
	// second reads the list, which answers the rest.
	total, byRoute = counts(func() { eng.ExpectConverged(t, dir, vars) })
	if total != 2 || byRoute["GET "+acctest.RouteConnectors+"{_id}/"] != 1 || byRoute["GET "+acctest.RouteConnectors] != 1 {
		t.Errorf("the plan sent %d requests %v, want one connector read and one list", total, byRoute)
	}
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// expectHeldAtMost checks that the sandbox never held more than bound
// requests at once, and, when atLeast, that it held more than one: the
// pages were read side by side.
func expectHeldAtMost(e *acctest.Env, bound int64, atLeast bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		held := e.Sandbox.Stats().MaxInFlight
		if held > bound || atLeast && held < 2 {
			return fmt.Errorf("the sandbox held %d requests at once, want 2 to %d", held, bound)
		}
		return nil
	}
}

const pagingHCL = `
data "dataintegration_jobs" "test" {}

data "dataintegration_jobs" "by_name" {
  ordering = "-name"
}
`

// TestAccPaging_sideBySide: over a link with latency, two lists of 1,000
// jobs (ten pages each) are read side by side, never more requests at once
// than max_concurrent_requests, each page once, and give exactly what one
// page after another gives, in the service's order and in another.
func TestAccPaging_sideBySide(t *testing.T) {
	testPaging(t, 1000, 3, 30)
}

// TestAccPaging_oneAtATime: max_concurrent_requests = 1 reads one page after
// another: the sandbox never holds two requests.
func TestAccPaging_oneAtATime(t *testing.T) {
	testPaging(t, 300, 1, 20)
}

// testPaging reads pagingHCL over a sandbox of jobs jobs, with
// max_concurrent_requests = bound, each request latencyMS late: both lists
// are those of one page after another, each page is read once, and the
// sandbox held at most bound requests at once (at least 2 when bound is).
func testPaging(t *testing.T, jobs, bound, latencyMS int) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: jobs})
	e.RequireSandbox(t, "add latency and count the requests held at once")
	all, byName := acctest.JobIDs(e.JobsOneByOne(t, client.JobFilter{})), acctest.JobIDs(e.JobsOneByOne(t, client.JobFilter{Ordering: "-name"}))
	if slices.Equal(all, byName) {
		t.Fatal("the two orders are the same: the test could not tell them apart")
	}
	if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: latencyMS}); err != nil {
		t.Fatal(err)
	}
	before := e.Sandbox.Stats().ByRoute[acctest.RouteListJobs]
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig(fmt.Sprintf("max_concurrent_requests = %d", bound)) + pagingHCL,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectIDs(all),
				statecheck.ExpectKnownValue("data.dataintegration_jobs.by_name", tfjsonpath.New("ids"), acctest.StringsExact(byName...)),
			},
			Check: resource.ComposeTestCheckFunc(
				e.ExpectRouteCount(acctest.RouteListJobs, before+int64(2*jobs/client.PageSize)),
				expectHeldAtMost(e, int64(bound), bound > 1),
			),
		}},
	})
}

// TestAccPaging_faults: with 30% of the requests answered 429 or 503 (each
// with Retry-After, which pauses every request), the jobs are the same, in
// the same order, and the bound holds.
func TestAccPaging_faults(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 1000})
	e.RequireSandbox(t, "inject faults and count the requests held at once")
	all := acctest.JobIDs(e.JobsOneByOne(t, client.JobFilter{}))
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 503}, Seed: 7, LatencyMS: 10}); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            e.ProviderConfig("max_retries = 10", "max_concurrent_requests = 4") + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(all)},
			Check: resource.ComposeTestCheckFunc(
				expectHeldAtMost(e, 4, false),
				func(*terraform.State) error {
					if e.Sandbox.Stats().Faults == 0 {
						return fmt.Errorf("no fault was injected: the test proved nothing")
					}
					return nil
				},
			),
		}},
	})
}

// serviceVariants are services the published API allows, each settling
// its open points another way than the sandbox's default: which envelope
// fields a page carries, how many items it holds at most, what a page past
// the last answers, how filters match, fields beyond those listed, and
// null for a listed string.
var serviceVariants = map[string]sandbox.Variant{
	"default":                          {},
	"next_page only, 25 a page":        {Envelope: []string{"next_page"}, MaxPageSize: 25},
	"results only, 404 past the end":   {Envelope: []string{}, PastEnd: sandbox.PastEnd404},
	"results only, empty past the end": {Envelope: []string{}, PastEnd: sandbox.PastEndEmpty, MaxPageSize: 25},
	"count only, 25 a page":            {Envelope: []string{"count"}, MaxPageSize: 25},
	"count and total_pages, no next":   {Envelope: []string{"count", "total_pages"}},
	"partial filters, extra, null":     {Envelope: []string{"total_pages", "page_size"}, Filters: sandbox.FiltersPartial, ExtraFields: true, NullFields: []string{"data_source"}},
	"ignored filters, next and count":  {Envelope: []string{"next_page", "count"}, Filters: sandbox.FiltersIgnored, ExtraFields: true, MaxPageSize: 25},
	"everything left out but results":  {Envelope: []string{}, Filters: sandbox.FiltersIgnored, NullFields: []string{"data_source", "schema_name"}, MaxPageSize: 30},
}

// variantEnv is a sandbox playing variant v, whose workspace holds 260
// jobs: 256 generated, the job of a connector made outside Terraform whose
// name contains name in upper case, and three jobs last in the service's
// order (on page 3 of 100) whose names a partial or ignored name filter
// confuses with "nightly", the last of them.
type variantEnv struct {
	*acctest.Env
	jobs    []sandbox.Job
	nightly sandbox.Job
	// other is the connector made outside Terraform: a name check that a
	// partial filter misleads would take it for the one to create.
	other *client.Connector
}

func newVariantEnv(t *testing.T, v sandbox.Variant, name string, run time.Duration) *variantEnv {
	t.Helper()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 256, Variant: v, RunDuration: run})
	e.RequireSandbox(t, "play a service that settles the API's open points another way")
	ve := &variantEnv{Env: e, other: e.MakeConnector(t, strings.ToUpper(name)+" (old)")}
	now := time.Now().UTC()
	for i, n := range []string{"nightly (copy)", "Nightly", "nightly"} {
		at := now.Add(time.Duration(i) * time.Second)
		if err := e.Sandbox.AddJobs(e.WorkspaceID, sandbox.Job{
			Name: n, DataSource: "zendesk", ConnectorName: "customer_service", SchemaName: "raw", IsActive: true, CreatedAt: at, UpdatedAt: at,
		}); err != nil {
			t.Fatal(err)
		}
	}
	ve.jobs = e.Sandbox.Jobs(e.WorkspaceID)
	ve.nightly = ve.jobs[len(ve.jobs)-1]
	if ve.nightly.Name != "nightly" || len(ve.jobs) != 260 {
		t.Fatalf("the sandbox's last job is %q of %d", ve.nightly.Name, len(ve.jobs))
	}
	return ve
}

// expectOnlyNightlyRan checks that "nightly" has the executions want
// (their statuses, oldest first) and every other job none, and that the
// connector made outside Terraform is still there.
func (ve *variantEnv) expectOnlyNightlyRan(want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, j := range ve.jobs {
			ex := ve.Sandbox.Executions(ve.WorkspaceID, j.ID)
			if j.ID != ve.nightly.ID {
				if len(ex) != 0 {
					return fmt.Errorf("job %q ran %d times, want none: only %q was named", j.Name, len(ex), ve.nightly.Name)
				}
				continue
			}
			got := make([]string, len(ex))
			for i, x := range ex {
				got[i] = x.Status
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("job %q has executions %v, want %v", j.Name, got, want)
			}
		}
		if _, ok := ve.Sandbox.Connector(ve.WorkspaceID, ve.other.ID); !ok {
			return fmt.Errorf("the connector %q made outside Terraform is gone", ve.other.Name)
		}
		return nil
	}
}

// TestAccLists_serviceVariants runs every list and lookup of resources and
// data sources against each service of serviceVariants, over 260 jobs: the
// jobs data source holds all of them, each once, in the service's order; a
// job on page 3 is found by ID and by name; a trigger by job_name runs
// exactly the job of that name, not one whose name a partial or ignored
// filter also matches; a connector's name check, and the connector data
// source by name, find exactly theirs; a null is null. The plan after is
// empty.
func TestAccLists_serviceVariants(t *testing.T) {
	for label, v := range serviceVariants {
		t.Run(label, func(t *testing.T) {
			name := acctest.Name("variant")
			e := newVariantEnv(t, v, name, time.Millisecond)
			ids := make([]string, len(e.jobs))
			for i, j := range e.jobs {
				ids[i] = j.ID
			}
			page3 := e.jobs[210]
			config := e.ProviderConfig() + fmt.Sprintf(`
data "dataintegration_jobs" "all" {}

data "dataintegration_job" "by_id" {
  id = %q
}

data "dataintegration_job" "by_name" {
  name = "nightly"
}

resource "dataintegration_job_trigger" "nightly" {
  job_name = "nightly"
}

resource "dataintegration_customer_service_connector" "c" {
  name        = %q
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = "platform-token-1"
}

data "dataintegration_customer_service_connector" "by_name" {
  name = dataintegration_customer_service_connector.c.name
}
`, page3.ID, name)
			// A field the service sends as null is null; else it is set.
			nulls := func(addr, prefix, field string) resource.TestCheckFunc {
				if slices.Contains(v.NullFields, field) {
					return resource.TestCheckNoResourceAttr(addr, prefix+field)
				}
				return resource.TestCheckResourceAttrSet(addr, prefix+field)
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: config,
						Check: resource.ComposeAggregateTestCheckFunc(
							expectList("data.dataintegration_jobs.all", "ids", ids),
							resource.TestCheckResourceAttr("data.dataintegration_jobs.all", "jobs.#", "260"),
							resource.TestCheckResourceAttr("data.dataintegration_job.by_id", "name", page3.Name),
							nulls("data.dataintegration_job.by_id", "", "data_source"),
							nulls("data.dataintegration_job.by_id", "", "schema_name"),
							nulls("data.dataintegration_jobs.all", "jobs.259.", "data_source"),
							resource.TestCheckResourceAttr("data.dataintegration_job.by_name", "id", e.nightly.ID),
							resource.TestCheckResourceAttr("dataintegration_job_trigger.nightly", "job_id", e.nightly.ID),
							resource.TestCheckResourceAttrPair("data.dataintegration_customer_service_connector.by_name", "id", "dataintegration_customer_service_connector.c", "id"),
							e.expectOnlyNightlyRan(sandbox.StatusSucceeded),
						),
					},
					{Config: config, PlanOnly: true},
				},
			})
		})
	}
}

// TestAccLists_serviceVariantsActionsAndQuery runs the lookups of the
// actions and the list resource against each service of serviceVariants
// (Terraform 1.14+): run_job and cancel_job by job_name reach exactly the
// job of that name; `terraform query` lists every connector, each once,
// over more than one page where the service serves 25, and by name finds
// exactly the one of that name.
func TestAccLists_serviceVariantsActionsAndQuery(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActions)
	acctest.RequireCapability(t, acctest.CapListResources)
	for label, v := range serviceVariants {
		t.Run(label, func(t *testing.T) {
			name := acctest.Name("variant")
			e := newVariantEnv(t, v, name, time.Hour)
			made := []string{e.other.ID}
			for i := range 30 {
				made = append(made, e.MakeConnector(t, fmt.Sprintf("%s %02d", name, i)).ID)
			}
			exact := e.MakeConnector(t, name)
			made = append(made, exact.ID)
			run := e.ProviderConfig() + acctest.RunJobHCL("run", "a", `    job_name = "nightly"`)
			cancel := run + `
action "dataintegration_cancel_job" "cancel" {
  config {
    job_name = "nightly"
  }
}

resource "terraform_data" "cancel" {
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.dataintegration_cancel_job.cancel]
    }
  }
}
`
			all := []querycheck.QueryResultCheck{querycheck.ExpectLength(acctest.ConnectorType+".all", len(made))}
			for _, id := range made {
				all = append(all, querycheck.ExpectIdentity(acctest.ConnectorType+".all", acctest.ConnectorIdentityCheck(id, e.WorkspaceID)))
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{Config: run, Check: e.expectOnlyNightlyRan(sandbox.StatusRunning)},
					{Config: cancel, Check: e.expectOnlyNightlyRan(sandbox.StatusCancelled)},
					{
						Query: true,
						Config: acctest.ListBlock("all", nil, nil) +
							acctest.ListBlock("by_name", nil, []string{fmt.Sprintf("name = %q", name)}),
						QueryResultChecks: append(all,
							querycheck.ExpectLength(acctest.ConnectorType+".by_name", 1),
							querycheck.ExpectIdentity(acctest.ConnectorType+".by_name", acctest.ConnectorIdentityCheck(exact.ID, e.WorkspaceID)),
						),
					},
				},
			})
		})
	}
}

// expectList checks that the list attribute attr of the resource at addr
// holds want, in order.
func expectList(addr, attr string, want []string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s is not in the state", addr)
		}
		got := make([]string, 0, len(want))
		for i := 0; ; i++ {
			v, ok := rs.Primary.Attributes[fmt.Sprintf("%s.%d", attr, i)]
			if !ok {
				break
			}
			got = append(got, v)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s.%s holds %d items, want %d in the service's order (first difference at %d)", addr, attr, len(got), len(want), firstDifference(got, want))
		}
		return nil
	}
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
