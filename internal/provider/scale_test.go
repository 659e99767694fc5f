package provider

import (
	"maps"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccScale_requestCounts holds an apply and a refresh to the API's
// floor, as `make bench` does at 100 and 200: an apply of 20 connectors and
// 20 triggers sends one name check and one create per connector and one
// trigger per job and nothing else; a plan refreshing them sends one read per connector and
// nothing else (a trigger's refresh sends nothing).
func TestAccScale_requestCounts(t *testing.T) {
	const n = 20
	eng := newEngine(t)
	e := newTestEnv(t, sandbox.Config{Jobs: 40})
	e.requireSandbox(t, "count the requests")
	_, jobsVar := activeJobIDs(t, e, n)
	dir := configDir(t, fleetHCL(n, "", false))
	vars := e.serviceEnv(jobsVar)

	counts := func(run func()) (int64, map[string]int64) {
		before := e.sandbox.Stats()
		run()
		after := e.sandbox.Stats()
		diff := maps.Clone(after.ByRoute)
		for r, c := range before.ByRoute {
			if diff[r] -= c; diff[r] == 0 {
				delete(diff, r)
			}
		}
		return after.Requests - before.Requests, diff
	}
	total, byRoute := counts(func() { eng.run(t, dir, vars, "apply", "-auto-approve", "-input=false") })
	if total != 3*n || byRoute["GET "+routeConnectors] != n || byRoute["POST "+routeConnectors] != n || byRoute[routeRunJob] != n {
		t.Errorf("the apply sent %d requests %v, want %d name checks, %d creates and %d triggers only", total, byRoute, n, n, n)
	}
	total, byRoute = counts(func() { eng.expectConverged(t, dir, vars) })
	if total != n || byRoute["GET "+routeConnectors+"{_id}/"] != n {
		t.Errorf("the plan sent %d requests %v, want %d connector reads only", total, byRoute, n)
	}
	eng.run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}
