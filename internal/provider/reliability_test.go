package provider

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// fleetHCL is n connectors and a trigger of each job in TF_VAR_jobs, with
// the provider configured from the environment and extra settings, and a
// jobs data source when listJobs is set.
func fleetHCL(n int, providerExtra string, listJobs bool) string {
	hcl := fmt.Sprintf(`
provider "dataintegration" {
  %s
}

variable "jobs" {
  type    = list(string)
  default = []
}

resource "dataintegration_customer_service_connector" "c" {
  count       = %d
  name        = "fleet ${count.index}"
  url         = "https://acme.example.com"
  agent_email = "agent@acme.com"
  token       = "fleet-token-${count.index}"
  streams     = ["tickets"]
}

resource "dataintegration_job_trigger" "t" {
  count  = length(var.jobs)
  job_id = var.jobs[count.index]
}
`, providerExtra, n)
	if listJobs {
		// Read at plan time, under whatever the service does then; the
		// output counts the seeded jobs only, which the apply does not
		// change.
		hcl += `
data "dataintegration_jobs" "all" {}

output "seeded_jobs_listed" {
  value = length([for j in data.dataintegration_jobs.all.jobs : j if !startswith(j.data_source, "fleet ")])
}
`
	}
	return hcl
}

// activeJobIDs returns the IDs of the first n active jobs, as TF_VAR_jobs.
func activeJobIDs(t *testing.T, e *testEnv, n int) ([]string, string) {
	t.Helper()
	ids, _ := activeJobs(t, e, n)
	b, err := json.Marshal(ids)
	if err != nil {
		t.Fatal(err)
	}
	return ids, "TF_VAR_jobs=" + string(b)
}

// expectStateMatchesService checks that the state holds exactly the
// connectors the sandbox holds, and a trigger for every job that ran, each
// once. A trigger whose answer was lost is recorded whether its job ran or
// not (at most once): a job with a trigger may have no execution.
func expectStateMatchesService(t testing.TB, eng *engine, dir string, e *testEnv, jobs []string) (connectors, triggered int) {
	t.Helper()
	inState := slices.Sorted(maps.Keys(eng.stateIDs(t, dir, "dataintegration_customer_service_connector")))
	if held := e.sandbox.ConnectorIDs(e.workspaceID); !slices.Equal(inState, held) {
		t.Errorf("the state holds connectors %v, the service %v", inState, held)
	}
	triggeredInState := map[string]bool{}
	for _, job := range eng.stateIDs(t, dir, "dataintegration_job_trigger") {
		triggeredInState[job] = true
	}
	for _, job := range jobs {
		if got := len(e.sandbox.Executions(e.workspaceID, job)); got > 1 || (got == 1 && !triggeredInState[job]) {
			t.Errorf("job %s: %d executions, and the state holds a trigger of it: %v", job, got, triggeredInState[job])
		}
	}
	return len(inState), len(triggeredInState)
}

// TestAccReliability_faults applies 12 connectors, 12 triggers and a jobs
// data source over 300 jobs while 30% of the requests fail (429, 500, 502,
// 503, 504) and every request waits: the apply completes, or fails with the
// status and leaves a state that matches the service. Once the faults stop,
// the next apply completes, nothing is doubled, and the plan is empty.
func TestAccReliability_faults(t *testing.T) {
	eng := newEngine(t)
	e := newTestEnv(t, sandbox.Config{Jobs: 300})
	e.requireSandbox(t, "inject faults")
	jobs, jobsVar := activeJobIDs(t, e, 12)
	dir := configDir(t, fleetHCL(12, "", true))
	vars := e.serviceEnv(jobsVar)
	if err := e.sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 500, 502, 503, 504}, LatencyMS: 5, Seed: 11}); err != nil {
		t.Fatal(err)
	}

	out, err := eng.try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	under := e.sandbox.Stats()
	if err != nil {
		if !regexp.MustCompile(`HTTP (429|500|502|503|504)`).MatchString(err.Error()) {
			t.Fatalf("the apply under faults failed without naming the status:\n%v", err)
		}
		c, tr := expectStateMatchesService(t, eng, dir, e, jobs)
		t.Logf("the apply under faults failed cleanly: %d connectors and %d triggers done, the rest refused with their status", c, tr)
	} else if !strings.Contains(out, "Apply complete!") {
		t.Fatalf("apply: %s", out)
	}
	t.Logf("under faults: %d requests served, %d faults injected", under.Requests, under.Faults)

	if err := e.sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	eng.run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if c, tr := expectStateMatchesService(t, eng, dir, e, jobs); c != 12 || tr != 12 {
		t.Errorf("after the second apply: %d connectors and %d jobs triggered, want 12 and 12", c, tr)
	}
	if got := unquoteNumber(t, eng.outputs(t, dir)["seeded_jobs_listed"]); got != 300 {
		t.Errorf("the data source listed %d seeded jobs, want 300", got)
	}
	eng.expectConverged(t, dir, vars)
	eng.run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
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
	eng := newEngine(t)
	e := newTestEnv(t, sandbox.Config{Jobs: 40})
	e.requireSandbox(t, "slow the service down")
	jobs, jobsVar := activeJobIDs(t, e, 16)
	dir := configDir(t, fleetHCL(16, "max_retries = 10", true))
	vars := e.serviceEnv(jobsVar)
	// Four answers in five are a 503 asking to come back in a second: the
	// whole apply would take about 40 seconds.
	if err := e.sandbox.SetFaults(sandbox.Faults{Rate: 0.8, Statuses: []int{503}, LatencyMS: 50, Seed: 5}); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(eng.path, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=4")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.env...), vars...)
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.sandbox.Stats().Requests < 8 && time.Now().Before(deadline) {
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
		t.Logf("Terraform exited %v after SIGINT (%v); %d requests served, %d faults", took.Round(time.Millisecond), err, e.sandbox.Stats().Requests, e.sandbox.Stats().Faults)
		if err == nil {
			t.Fatalf("the interrupted apply succeeded:\n%s", output.String())
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("Terraform still ran 15 s after SIGINT: the provider did not stop waiting\n%s", output.String())
	}
	c, tr := expectStateMatchesService(t, eng, dir, e, jobs)
	t.Logf("interrupted with %d connectors and %d triggers done", c, tr)

	if err := e.sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	eng.run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if c, tr := expectStateMatchesService(t, eng, dir, e, jobs); c != 16 || tr != 16 {
		t.Errorf("after the next apply: %d connectors and %d jobs triggered, want 16 and 16", c, tr)
	}
	eng.expectConverged(t, dir, vars)
	eng.run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccReliability_hardKill kills an apply that creates 20 connectors
// while answers are slow, with SIGKILL to Terraform and the provider (as a
// cancelled CI job or two Ctrl-C do). The engine loses what it created; the
// next apply creates the rest and refuses each name the service holds
// already, with the import block that adopts it; with those blocks, the
// apply after converges: 20 connectors in the service and the state, no
// name twice.
func TestAccReliability_hardKill(t *testing.T) {
	eng := newEngine(t)
	e := newTestEnv(t, sandbox.Config{Jobs: 0})
	e.requireSandbox(t, "slow the service down and read its connectors' names")
	const n = 20
	dir := configDir(t, fleetHCL(n, "", false))
	vars := e.serviceEnv()
	if err := e.sandbox.SetFaults(sandbox.Faults{LatencyMS: 400}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(eng.path, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.env...), vars...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the provider too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(e.sandbox.ConnectorIDs(e.workspaceID)) < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	time.Sleep(time.Second) // requests cut off end in the sandbox
	if err := e.sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	held, inState := e.sandbox.ConnectorIDs(e.workspaceID), eng.stateIDs(t, dir, "dataintegration_customer_service_connector")
	t.Logf("killed: the service holds %d connectors, the state %d", len(held), len(inState))

	out, err := eng.try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	lost := len(held) - len(inState)
	if got := strings.Count(out+fmt.Sprint(err), "Error: Connector Name Taken"); got != lost || (lost > 0) != (err != nil) {
		t.Fatalf("the apply after the kill refused %d names, want %d (held %d, in the state %d): %v\n%s", got, lost, len(held), len(inState), err, out)
	}
	byName := e.connectorsByName(t)
	inState = eng.stateIDs(t, dir, "dataintegration_customer_service_connector")
	t.Logf("next apply: %d names refused; the service holds %d connectors of %d names, the state %d", lost, len(e.sandbox.ConnectorIDs(e.workspaceID)), len(byName), len(inState))
	if len(byName) != n || len(e.sandbox.ConnectorIDs(e.workspaceID)) != n {
		t.Fatalf("the service holds %d connectors of %d names, want %d, none twice: %v", len(e.sandbox.ConnectorIDs(e.workspaceID)), len(byName), n, byName)
	}

	// Adopt what the state lost with the import blocks the errors give.
	var imports strings.Builder
	for i := range n {
		id := byName[fmt.Sprintf("fleet %d", i)][0]
		if _, ok := inState[id]; !ok {
			fmt.Fprintf(&imports, "import {\n  to = dataintegration_customer_service_connector.c[%d]\n  id = %q\n}\n\n", i, e.workspaceID+"/"+id)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "imports.tf"), []byte(imports.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	eng.run(t, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	if c, _ := expectStateMatchesService(t, eng, dir, e, nil); c != n {
		t.Errorf("after the imports: %d connectors in the state, want %d", c, n)
	}
	eng.expectConverged(t, dir, vars)
	eng.run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// connectorsByName are the IDs of the connectors of the test's workspace, by
// name, as the sandbox holds them.
func (e *testEnv) connectorsByName(t testing.TB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, id := range e.sandbox.ConnectorIDs(e.workspaceID) {
		c, ok := e.sandbox.Connector(e.workspaceID, id)
		if !ok {
			t.Fatalf("connector %s is gone", id)
		}
		out[c.Name] = append(out[c.Name], id)
	}
	return out
}

// degraded is what degradedRun measured: the apply under faults and the
// refresh plan under faulted reads.
type degraded struct {
	apply, refresh              time.Duration
	requests, faults            int64
	refreshReads, refreshFaults int64
}

// degradedRun applies connectors connectors and triggers triggers while 30%
// of the requests are answered 429 or 503 before the service acts (rate 0:
// no faults), and checks that one apply succeeds: each trigger's job ran
// exactly once, no connector is doubled, the state matches the service,
// and the next plan, under the same faults, is empty. Then, with 30% of the
// reads answered 500, 502 or 504, a plan that refreshes every connector
// succeeds in one run and is empty too. It destroys what it made.
func degradedRun(tb testing.TB, eng *engine, connectors, triggers int, rate float64) degraded {
	tb.Helper()
	e := newTestEnv(tb, sandbox.Config{Jobs: triggers + triggers/2 + 10, RunDuration: time.Millisecond})
	e.requireSandbox(tb, "inject faults")
	jobs, _ := activeJobs(tb, e, triggers)
	ids, err := json.Marshal(jobs)
	if err != nil {
		tb.Fatal(err)
	}
	dir := configDir(tb, fleetHCL(connectors, "", false))
	vars := e.serviceEnv("TF_VAR_jobs=" + string(ids))
	faults := func(f sandbox.Faults) {
		if err := e.sandbox.SetFaults(f); err != nil {
			tb.Fatal(err)
		}
	}
	var d degraded
	faults(sandbox.Faults{Rate: rate, Statuses: []int{429, 503}, Seed: 35})
	start := time.Now()
	eng.run(tb, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	d.apply = time.Since(start)
	st := e.sandbox.Stats()
	d.requests, d.faults = st.Requests, st.Faults
	if c, tr := expectStateMatchesService(tb, eng, dir, e, jobs); c != connectors || tr != triggers {
		tb.Errorf("after one apply: %d connectors and %d triggers in the state, want %d and %d", c, tr, connectors, triggers)
	}
	for _, id := range jobs {
		if n := len(e.sandbox.Executions(e.workspaceID, id)); n != 1 {
			tb.Errorf("job %s ran %d times, want once", id, n)
		}
	}
	if byName := e.connectorsByName(tb); len(byName) != connectors {
		tb.Errorf("the service holds connectors of %d names, want %d", len(byName), connectors)
	}
	eng.expectConverged(tb, dir, vars)

	faults(sandbox.Faults{Rate: rate, Statuses: []int{500, 502, 504}, Methods: []string{"GET"}, Seed: 36})
	before := e.sandbox.Stats()
	start = time.Now()
	eng.expectConverged(tb, dir, vars)
	d.refresh = time.Since(start)
	st = e.sandbox.Stats()
	d.refreshReads, d.refreshFaults = st.Requests-before.Requests, st.Faults-before.Faults
	if rate > 0 && (d.faults == 0 || d.refreshFaults == 0) {
		tb.Errorf("no fault was injected: %+v", d)
	}
	faults(sandbox.Faults{})
	eng.run(tb, dir, vars, "destroy", "-auto-approve", "-input=false")
	return d
}

// TestAccReliability_degradedService: with 30% of the requests answered
// 429 or 503, one apply of connectors and triggers succeeds, each job runs
// once, nothing is doubled, and the next plan is empty; with 30% of the
// reads answered 500, 502 or 504, a refresh plan succeeds in one run.
// make bench runs the same at 300 connectors and 60 triggers.
func TestAccReliability_degradedService(t *testing.T) {
	d := degradedRun(t, newEngine(t), 30, 12, 0.3)
	t.Logf("apply %v (%d requests, %d faults); refresh plan %v (%d requests, %d faults)",
		d.apply.Round(time.Millisecond), d.requests, d.faults, d.refresh.Round(time.Millisecond), d.refreshReads, d.refreshFaults)
}
