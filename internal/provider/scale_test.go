package provider

import (
	"maps"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccScale_requestCounts holds an apply and a refresh to the API's
// floor, as `make bench` does at 100 and 200: an apply of 20 connectors and
// 20 triggers sends one name check and one create per connector and one
// trigger per job and nothing else; a plan refreshing them sends one read per connector and
// nothing else (a trigger's refresh sends nothing).
func TestAccScale_requestCounts(t *testing.T) {
	const n = 20
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 40})
	e.RequireSandbox(t, "count the requests")
	_, jobsVar := acctest.ActiveJobIDs(t, e, n)
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
	if total != 3*n || byRoute["GET "+acctest.RouteConnectors] != n || byRoute["POST "+acctest.RouteConnectors] != n || byRoute[acctest.RouteRunJob] != n {
		t.Errorf("the apply sent %d requests %v, want %d name checks, %d creates and %d triggers only", total, byRoute, n, n, n)
	}
	total, byRoute = counts(func() { eng.ExpectConverged(t, dir, vars) })
	if total != n || byRoute["GET "+acctest.RouteConnectors+"{_id}/"] != n {
		t.Errorf("the plan sent %d requests %v, want %d connector reads only", total, byRoute, n)
	}
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}
