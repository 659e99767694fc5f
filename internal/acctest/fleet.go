package acctest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// JobsVar is the TF_VAR_jobs variable of FleetHCL that lists ids.
func JobsVar(tb testing.TB, ids []string) string {
	tb.Helper()
	b, err := json.Marshal(ids)
	if err != nil {
		tb.Fatal(err)
	}
	return "TF_VAR_jobs=" + string(b)
}

// ConnectorsByName are the sandbox's connector IDs by name.
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

// DegradedRun applies connectors and triggers while a share rate of the
// requests fails, and checks that nothing is doubled and the plans converge.
func DegradedRun(tb testing.TB, eng *Engine, connectors, triggers int, rate float64) Degraded {
	tb.Helper()
	e := NewEnv(tb, sandbox.Config{Jobs: triggers + triggers/2 + 10, RunDuration: time.Millisecond})
	e.RequireSandbox(tb, "inject faults")
	jobs, _ := ActiveJobs(tb, e, triggers)
	dir := ConfigDir(tb, FleetHCL(connectors, "", false))
	vars := e.ServiceEnv(JobsVar(tb, jobs))
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

// Degraded is what DegradedRun measured.
type Degraded struct {
	Apply, Refresh              time.Duration
	Requests, Faults            int64
	RefreshReads, RefreshFaults int64
}
