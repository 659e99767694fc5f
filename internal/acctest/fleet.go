package acctest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// FleetHCL is n connectors and a trigger of each job in TF_VAR_jobs, with
// the provider configured from the environment and extra settings, and a
// jobs data source when listJobs is set.
func FleetHCL(n int, providerExtra string, listJobs bool) string {
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

// ActiveJobIDs returns the IDs of the first n active jobs, as TF_VAR_jobs.
func ActiveJobIDs(t *testing.T, e *Env, n int) ([]string, string) {
	t.Helper()
	ids, _ := ActiveJobs(t, e, n)
	b, err := json.Marshal(ids)
	if err != nil {
		t.Fatal(err)
	}
	return ids, "TF_VAR_jobs=" + string(b)
}

// ExpectStateMatchesService checks that the state holds exactly the
// connectors the sandbox holds, and a trigger for every job that ran, each
// once. A trigger whose answer was lost is recorded whether its job ran or
// not (at most once): a job with a trigger may have no execution.
func ExpectStateMatchesService(t testing.TB, eng *Engine, dir string, e *Env, jobs []string) (connectors, triggered int) {
	t.Helper()
	inState := slices.Sorted(maps.Keys(eng.StateIDs(t, dir, "dataintegration_customer_service_connector")))
	if held := e.Sandbox.ConnectorIDs(e.WorkspaceID); !slices.Equal(inState, held) {
		t.Errorf("the state holds connectors %v, the service %v", inState, held)
	}
	triggeredInState := map[string]bool{}
	for _, job := range eng.StateIDs(t, dir, "dataintegration_job_trigger") {
		triggeredInState[job] = true
	}
	for _, job := range jobs {
		if got := len(e.Sandbox.Executions(e.WorkspaceID, job)); got > 1 || (got == 1 && !triggeredInState[job]) {
			t.Errorf("job %s: %d executions, and the state holds a trigger of it: %v", job, got, triggeredInState[job])
		}
	}
	return len(inState), len(triggeredInState)
}

// ConnectorsByName are the IDs of the connectors of the test's workspace, by
// name, as the sandbox holds them.
func (e *Env) ConnectorsByName(t testing.TB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, id := range e.Sandbox.ConnectorIDs(e.WorkspaceID) {
		c, ok := e.Sandbox.Connector(e.WorkspaceID, id)
		if !ok {
			t.Fatalf("connector %s is gone", id)
		}
		out[c.Name] = append(out[c.Name], id)
	}
	return out
}

// DegradedRun applies connectors connectors and triggers triggers while 30%
// of the requests are answered 429 or 503 before the service acts (rate 0:
// no faults), and checks that one apply succeeds: each trigger's job ran
// exactly once, no connector is doubled, the state matches the service,
// and the next plan, under the same faults, is empty. Then, with 30% of the
// reads answered 500, 502 or 504, a plan that refreshes every connector
// succeeds in one run and is empty too. It destroys what it made.
func DegradedRun(tb testing.TB, eng *Engine, connectors, triggers int, rate float64) Degraded {
	tb.Helper()
	e := NewEnv(tb, sandbox.Config{Jobs: triggers + triggers/2 + 10, RunDuration: time.Millisecond})
	e.RequireSandbox(tb, "inject faults")
	jobs, _ := ActiveJobs(tb, e, triggers)
	ids, err := json.Marshal(jobs)
	if err != nil {
		tb.Fatal(err)
	}
	dir := ConfigDir(tb, FleetHCL(connectors, "", false))
	vars := e.ServiceEnv("TF_VAR_jobs=" + string(ids))
	faults := func(f sandbox.Faults) {
		if err := e.Sandbox.SetFaults(f); err != nil {
			tb.Fatal(err)
		}
	}
	var d Degraded
	faults(sandbox.Faults{Rate: rate, Statuses: []int{429, 503}, Seed: 35})
	start := time.Now()
	eng.Run(tb, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	d.Apply = time.Since(start)
	st := e.Sandbox.Stats()
	d.Requests, d.Faults = st.Requests, st.Faults
	if c, tr := ExpectStateMatchesService(tb, eng, dir, e, jobs); c != connectors || tr != triggers {
		tb.Errorf("after one apply: %d connectors and %d triggers in the state, want %d and %d", c, tr, connectors, triggers)
	}
	for _, id := range jobs {
		if n := len(e.Sandbox.Executions(e.WorkspaceID, id)); n != 1 {
			tb.Errorf("job %s ran %d times, want once", id, n)
		}
	}
	if byName := e.ConnectorsByName(tb); len(byName) != connectors {
		tb.Errorf("the service holds connectors of %d names, want %d", len(byName), connectors)
	}
	eng.ExpectConverged(tb, dir, vars)

	faults(sandbox.Faults{Rate: rate, Statuses: []int{500, 502, 504}, Methods: []string{"GET"}, Seed: 36})
	before := e.Sandbox.Stats()
	start = time.Now()
	eng.ExpectConverged(tb, dir, vars)
	d.Refresh = time.Since(start)
	st = e.Sandbox.Stats()
	d.RefreshReads, d.RefreshFaults = st.Requests-before.Requests, st.Faults-before.Faults
	if rate > 0 && (d.Faults == 0 || d.RefreshFaults == 0) {
		tb.Errorf("no fault was injected: %+v", d)
	}
	faults(sandbox.Faults{})
	eng.Run(tb, dir, vars, "destroy", "-auto-approve", "-input=false")
	return d
}

// Degraded is what DegradedRun measured: the apply under faults and the
// refresh plan under faulted reads.
type Degraded struct {
	Apply, Refresh              time.Duration
	Requests, Faults            int64
	RefreshReads, RefreshFaults int64
}
