package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// noRefresh makes a plan of the case skip the refresh: the engine's own
// plan of the same configuration and state, which makes no request.
var noRefresh = []string{"TF_CLI_ARGS_plan=-refresh=false"}

// readsRun is the requests of each run of a case, and those refused for the rate.
type readsRun struct {
	requests, limited []int64
}

func readCases(providers []*benchProvider) []benchCase {
	var cs []benchCase
	for _, p := range providers {
		cs = append(cs, benchCase{p: p, label: "refresh"}, benchCase{p: p, label: "-refresh=false", env: noRefresh})
	}
	return cs
}

// planReads is medians, each run counted in e's sandbox; reset runs before each.
func planReads(b *testing.B, eng *acctest.Engine, e *acctest.Env, dir string, cases []benchCase, rounds int, reset func()) (map[string]usage, map[string]*readsRun) {
	b.Helper()
	runs := map[string]*readsRun{}
	for _, c := range cases {
		runs[c.name()] = &readsRun{}
	}
	if reset != nil {
		reset()
	}
	stats := e.Sandbox.Stats()
	plans := medians(b, eng, dir, e.ServiceEnv(acctest.NoLogVars...), cases, rounds, func(c benchCase) {
		now := e.Sandbox.Stats()
		r := runs[c.name()]
		r.requests = append(r.requests, now.Requests-stats.Requests)
		r.limited = append(r.limited, now.RateLimited-stats.RateLimited)
		if reset != nil {
			reset()
		}
		stats = e.Sandbox.Stats()
	}, "-detailed-exitcode")
	return plans, runs
}

func refreshCost(plans map[string]usage, p *benchProvider) (cost, refresh, plain time.Duration) {
	refresh = plans[benchCase{p: p, label: "refresh"}.name()].wall
	plain = plans[benchCase{p: p, label: "-refresh=false"}.name()].wall
	return refresh - plain, refresh, plain
}

// BenchmarkConnectorReads measures a refresh of connectors against the engine's
// own plan, at scale, over latency and behind a rate limit, beside
// BENCH_READS_BASELINE (one GET per connector) if set.
func BenchmarkConnectorReads(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	eng := acctest.NewEngine(b)
	rounds := benchRounds(b)
	current := &benchProvider{name: "after", binary: eng.Provider}
	providers := []*benchProvider{current}
	if p := baselineProvider(b, os.Getenv("BENCH_READS_BASELINE")); p != nil {
		providers = append(providers, p)
	}
	var rows []acctest.BenchRow
	var side []sideRow
	add := func(r acctest.BenchRow) {
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "measured: %s = %s\n", r.Figure, r.Value)
	}
	r := readsBench{eng: eng, providers: providers, current: current, rounds: rounds, add: add}

	// 1. A refresh of 500 connectors at 0 and 50 ms a request, against the
	// yardstick's, which is the engine's own and no provider goes below.
	b.Run("500", func(b *testing.B) { side = append(side, r.refresh500(b)...) })

	// 2. A refresh of 3 connectors in a workspace of 1,500.
	b.Run("3_of_1500", func(b *testing.B) { r.fewOfMany(b) })

	// 3. A refresh of 200 connectors behind a rate limit of 20 requests a
	// second, each plan starting with a full bucket.
	b.Run("rate_limited", func(b *testing.B) { side = append(side, r.limitedRefresh(b)...) })

	printBenchTable(eng, rows, side, rounds)
	acctest.Missed(b, rows)
}

// readsBench is what the parts of BenchmarkConnectorReads share.
type readsBench struct {
	eng       *acctest.Engine
	providers []*benchProvider
	current   *benchProvider
	rounds    int
	add       func(acctest.BenchRow)
}

// refresh500 measures a refresh of 500 connectors at 0 and 50 ms a request.
func (r readsBench) refresh500(b *testing.B) []sideRow {
	eng, providers, current, rounds, add := r.eng, r.providers, r.current, r.rounds, r.add
	var side []sideRow
	bound := client.DefaultMaxConcurrentRequests
	withYard := append(slices.Clone(providers), yardstick(b))
	fleet := acctest.NewEnv(b, sandbox.Config{Jobs: 0})
	fleet.RequireSandbox(b, "count the requests and add latency")
	dir := acctest.ConfigDir(b, acctest.FleetConnectorsHCL(500))
	eng.Run(b, dir, fleet.ServiceEnv(acctest.NoLogVars...), "apply", "-auto-approve", "-input=false")
	for _, ms := range []int{0, 50} {
		if err := fleet.Sandbox.SetFaults(sandbox.Faults{LatencyMS: ms}); err != nil {
			b.Fatal(err)
		}
		floor := acctest.Best(3, func() {
			if n, err := acctest.BareBoundedConnectors(fleet.BaseURL, bound); err != nil || n != 500 {
				b.Fatalf("bare list: %d connectors, %v", n, err)
			}
		})
		plans, runs := planReads(b, eng, fleet, dir, readCases(withYard), rounds, nil)
		plan := fmt.Sprintf("500 connectors at %d ms", ms)
		side = append(side, sideRow{plan: plan, provider: "bare loop", env: fmt.Sprintf("list: first page, then %d at once", bound), u: usage{wall: floor}, vs: "the floor"})
		var times, requests []string
		for _, p := range withYard {
			cost, refresh, plain := refreshCost(plans, p)
			side = append(side,
				sideRow{plan: plan, provider: p.name, env: "refresh", u: plans[benchCase{p: p, label: "refresh"}.name()], vs: fmt.Sprintf("less -refresh=false: %v, %.1f× the floor", cost.Round(time.Millisecond), float64(cost)/float64(floor))},
				sideRow{plan: plan, provider: p.name, env: "-refresh=false", u: plans[benchCase{p: p, label: "-refresh=false"}.name()], vs: "the engine's own plan"})
			times = append(times, fmt.Sprintf("%s %.1f× (%v: %v less %v)", p.name, float64(cost)/float64(floor), cost.Round(time.Millisecond), refresh.Round(time.Millisecond), plain.Round(time.Millisecond)))
			requests = append(requests, fmt.Sprintf("%s %v (-refresh=false %v)", p.name, runs[benchCase{p: p, label: "refresh"}.name()].requests, runs[benchCase{p: p, label: "-refresh=false"}.name()].requests))
		}
		add(acctest.BenchRow{
			Figure: fmt.Sprintf("refresh plan of 500 connectors at %d ms a request: requests, each run", ms),
			Value:  strings.Join(requests, "; "),
			Target: "report", Report: true,
		})
		cost, _, _ := refreshCost(plans, current)
		row := acctest.BenchRow{
			Figure: fmt.Sprintf("same plan: wall time less `plan -refresh=false`, against listing the workspace's 500 connectors, page 1 then the others at once (%v)", floor.Round(time.Millisecond)),
			Value:  strings.Join(times, "; "),
			Target: "report", Report: true,
		}
		add(row)
		if ms == 50 {
			// The engine's own refresh costs about 3× the floor on a small
			// machine: the provider answers for what it adds.
			engine, _, _ := refreshCost(plans, withYard[len(withYard)-1])
			add(acctest.BenchRow{
				Figure: "same plan: what the provider adds to the engine's own refresh (the yardstick's), against the same floor",
				Value:  fmt.Sprintf("after %.1f× (%v: %v less %v)", float64(cost-engine)/float64(floor), (cost - engine).Round(time.Millisecond), cost.Round(time.Millisecond), engine.Round(time.Millisecond)),
				Target: "after: at most 3×", Met: float64(cost-engine) <= 3*float64(floor),
			})
		}
	}

	return side
}

// fewOfMany measures a refresh of 3 connectors in a workspace of 1,500.
func (r readsBench) fewOfMany(b *testing.B) {
	eng, providers, current, rounds, add := r.eng, r.providers, r.current, r.rounds, r.add
	few := acctest.NewEnv(b, sandbox.Config{Jobs: 0})
	c := few.Client(b)
	for i := range 1497 {
		spec := client.ConnectorSpec{Name: fmt.Sprintf("outside %d", i), URL: "https://acme.example.com", Token: "outside-token", AgentEmail: "agent@acme.com"}
		if _, err := c.CreateConnector(context.Background(), few.WorkspaceID, spec); err != nil {
			b.Fatal(err)
		}
	}
	dir := acctest.ConfigDir(b, acctest.FleetConnectorsHCL(3))
	eng.Run(b, dir, few.ServiceEnv(acctest.NoLogVars...), "apply", "-auto-approve", "-input=false")
	if n := len(few.Sandbox.ConnectorIDs(few.WorkspaceID)); n != 1500 {
		b.Fatalf("the workspace holds %d connectors, want 1,500", n)
	}
	refreshes := readCases(providers)
	refreshes = slices.DeleteFunc(refreshes, func(c benchCase) bool { return c.label != "refresh" })
	_, runs := planReads(b, eng, few, dir, refreshes, rounds, nil)
	var parts []string
	for _, p := range providers {
		parts = append(parts, fmt.Sprintf("%s %v", p.name, runs[benchCase{p: p, label: "refresh"}.name()].requests))
	}
	afterRuns := runs[benchCase{p: current, label: "refresh"}.name()].requests
	add(acctest.BenchRow{
		Figure: "refresh plan of 3 connectors in a workspace of 1,500: requests, each run",
		Value:  strings.Join(parts, "; "),
		Target: "after: a handful, at most 7 (2×3+1)", Met: !slices.ContainsFunc(afterRuns, func(n int64) bool { return n > 7 }),
	})

}

// limitedRefresh measures a refresh of 200 connectors behind a rate limit of
// 20 requests a second told by Retry-After alone, each plan starting with a
// full bucket.
func (r readsBench) limitedRefresh(b *testing.B) []sideRow {
	eng, providers, current, rounds, add := r.eng, r.providers, r.current, r.rounds, r.add
	cases := readCases(providers)
	var side []sideRow
	limited := acctest.NewEnv(b, sandbox.Config{Jobs: 0})
	dir := acctest.ConfigDir(b, acctest.FleetConnectorsHCL(200))
	eng.Run(b, dir, limited.ServiceEnv(acctest.NoLogVars...), "apply", "-auto-approve", "-input=false")
	const rate = 20
	plans, runs := planReads(b, eng, limited, dir, cases, rounds, func() {
		if err := limited.Sandbox.SetRateLimit(rate); err != nil {
			b.Fatal(err)
		}
	})
	if err := limited.Sandbox.SetRateLimit(0); err != nil {
		b.Fatal(err)
	}
	var parts []string
	for _, p := range providers {
		cost, refresh, plain := refreshCost(plans, p)
		run := runs[benchCase{p: p, label: "refresh"}.name()]
		side = append(side,
			sideRow{plan: "200 connectors at 20 requests a second", provider: p.name, env: "refresh", u: plans[benchCase{p: p, label: "refresh"}.name()], vs: fmt.Sprintf("less -refresh=false: %v", cost.Round(time.Millisecond))},
			sideRow{plan: "200 connectors at 20 requests a second", provider: p.name, env: "-refresh=false", u: plans[benchCase{p: p, label: "-refresh=false"}.name()], vs: "the engine's own plan"})
		parts = append(parts, fmt.Sprintf("%s %v (%v less %v; requests %v, refused for the rate %v)", p.name, cost.Round(time.Millisecond), refresh.Round(time.Millisecond), plain.Round(time.Millisecond), run.requests, run.limited))
	}
	cost, _, _ := refreshCost(plans, current)
	add(acctest.BenchRow{
		Figure: fmt.Sprintf("refresh plan of 200 connectors behind a rate limit of %d requests a second (bursts of %d): wall time less `plan -refresh=false`", rate, rate),
		Value:  strings.Join(parts, "; "),
		Target: "after: at most 1.5 s", Met: cost <= 1500*time.Millisecond,
	})

	return side
}
