package bench

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/provider"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// benchLatencies are the delays, in milliseconds, the sandbox adds to each
// request for the rows of reads over a link.
var benchLatencies = []int{0, 20, 50}

// benchEmptyHCL is a plan of nothing: Terraform's own start alone.
const benchEmptyHCL = `
output "nothing" {
  value = 0
}
`

// latencyRows measures the plan of 10,000 jobs of jobs's sandbox at each of
// benchLatencies, for the provider now and before, less the empty plan,
// beside two bare loops: one page after another, and the first page then
// client.DefaultMaxConcurrentRequests at once (the floor for that bound).
// The empty plan is the same plan over a workspace without jobs, at the
// same latency: what does not depend on the list (Terraform's start, the
// provider's three, one request, the output). A plan of nothing,
// Terraform's start alone, is measured too, for the side-by-side table.
func latencyRows(b *testing.B, eng *acctest.Engine, jobs *acctest.Env, providers []*benchProvider, rounds int) ([]acctest.BenchRow, []sideRow) {
	b.Helper()
	dir, nothing := acctest.ConfigDir(b, benchJobsHCL), acctest.ConfigDir(b, benchEmptyHCL)
	none := acctest.NewEnv(b, sandbox.Config{Jobs: 0})
	vars := jobs.ServiceEnv(acctest.NoLogVars...)
	noJobs := none.ServiceEnv()
	cases := []benchCase{{p: providers[0], label: "nothing", dir: nothing}}
	for _, p := range providers {
		cases = append(cases, benchCase{p: p, label: "10,000 jobs"}, benchCase{p: p, label: "no jobs", env: noJobs})
	}
	bound := client.DefaultMaxConcurrentRequests
	var rows []acctest.BenchRow
	var side []sideRow
	for _, ms := range benchLatencies {
		for _, e := range []*acctest.Env{jobs, none} {
			if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: ms}); err != nil {
				b.Fatal(err)
			}
		}
		read := func(fn func() (int, error)) func() {
			return func() {
				if n, err := fn(); err != nil || n != 10000 {
					b.Fatalf("bare loop: %d jobs, %v", n, err)
				}
			}
		}
		seq := acctest.Best(3, read(func() (int, error) { return acctest.BareRead(jobs.BaseURL) }))
		bounded := acctest.Best(3, read(func() (int, error) { return acctest.BareBoundedRead(jobs.BaseURL, bound) }))
		// The list requests of each plan of the provider now.
		var counts []int64
		stats := jobs.Sandbox.Stats()
		plans := medians(b, eng, dir, vars, cases, rounds, func(c benchCase) {
			_, byRoute := requestsSince(jobs.Sandbox, stats)
			stats = jobs.Sandbox.Stats()
			if c.p == providers[0] && c.label == "10,000 jobs" {
				counts = append(counts, byRoute[acctest.RouteListJobs])
			}
		})
		net := func(p *benchProvider) time.Duration {
			return plans[benchCase{p: p, label: "10,000 jobs"}.name()].wall - plans[benchCase{p: p, label: "no jobs"}.name()].wall
		}
		plan := fmt.Sprintf("10,000 jobs at %d ms", ms)
		side = append(side,
			sideRow{plan: plan, provider: "bare loop", env: "one page after another", u: usage{wall: seq}, vs: "1.00× one after another"},
			sideRow{plan: plan, provider: "bare loop", env: fmt.Sprintf("first page, then %d at once", bound), u: usage{wall: bounded}, vs: fmt.Sprintf("%.2f× one after another", float64(bounded)/float64(seq))},
			sideRow{plan: "nothing at " + strconv.Itoa(ms) + " ms", provider: "Terraform alone", env: "no configuration", u: plans[cases[0].name()], vs: "the start of any plan"})
		var parts []string
		for _, p := range providers {
			d := net(p)
			u := plans[benchCase{p: p, label: "10,000 jobs"}.name()]
			empty := plans[benchCase{p: p, label: "no jobs"}.name()]
			vs := fmt.Sprintf("less the empty plan (%v): %v, %.2f× one after another, %.2f× %d at once", empty.wall.Round(time.Millisecond), d.Round(time.Millisecond), float64(d)/float64(seq), float64(d)/float64(bounded), bound)
			side = append(side, sideRow{plan: plan, provider: p.name, env: "default", u: u, vs: vs},
				sideRow{plan: "no jobs at " + strconv.Itoa(ms) + " ms", provider: p.name, env: "default", u: empty, vs: "the empty plan"})
			parts = append(parts, fmt.Sprintf("%s %v: %.2f× and %.2f×", p.name, d.Round(time.Millisecond), float64(d)/float64(seq), float64(d)/float64(bounded)))
		}
		now := net(providers[0])
		row := acctest.BenchRow{
			Figure: fmt.Sprintf("`terraform plan` of 10,000 jobs at %d ms a request, less the empty plan (no jobs): against a bare loop one page after another (%v), and one with %d at once (%v)", ms, seq.Round(time.Millisecond), bound, bounded.Round(time.Millisecond)),
			Value:  strings.Join(parts, "; "),
			Target: "report", Report: true,
		}
		switch ms {
		case 50:
			r1, r2 := float64(now)/float64(seq), float64(now)/float64(bounded)
			row.Target, row.Report, row.Met = "after: at most 0.3× and 1.5×", false, r1 <= 0.3 && r2 <= 1.5
		case 0:
			if len(providers) > 1 {
				then := net(providers[1])
				row.Value += fmt.Sprintf("; after against before: %.2f×", float64(now)/float64(then))
				row.Target, row.Report, row.Met = "after: no slower than before (at most 1.1×, the noise of one run)", false, float64(now) <= 1.1*float64(then)
			}
		}
		rows = append(rows, row)
		rows = append(rows, acctest.BenchRow{
			Figure: fmt.Sprintf("same plan at %d ms: list requests, each run of the provider now", ms),
			Value:  fmt.Sprint(counts),
			Target: "100 each", Met: !slices.ContainsFunc(counts, func(n int64) bool { return n != 100 }),
		})
	}
	if err := jobs.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		b.Fatal(err)
	}
	return append(rows, faultsRow(b)), side
}

// faultsRow reads 10,000 jobs through the provider, as a plan would, while
// 30% of the requests are answered 429 or 503, each with Retry-After (1 s,
// which pauses every request): the jobs must be those, in the order, of one
// page after another without faults, with never more requests at once than
// the bound.
func faultsRow(b *testing.B) acctest.BenchRow {
	b.Helper()
	e := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	want := e.OneByOne(b, client.JobFilter{})
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 503}, Seed: 26}); err != nil {
		b.Fatal(err)
	}
	p := acctest.ServeProto(b, provider.NewServer("test"))
	cfg := acctest.ProtoValue(b, p.Schemas.Provider, map[string]any{"base_url": e.BaseURL, "api_key": e.APIKey, "workspace_id": e.WorkspaceID, "max_retries": big.NewFloat(10)})
	if resp, err := p.Server.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: &cfg}); err != nil || len(resp.Diagnostics) != 0 {
		b.Fatal(err, resp.Diagnostics)
	}
	start := time.Now()
	got := p.IDsInState(b, p.ReadJobs(b))
	took := time.Since(start)
	st := e.Sandbox.Stats()
	same := slices.Equal(got, want)
	return acctest.BenchRow{
		Figure: "10,000 jobs read while 30% of the requests are answered 429 or 503 (Retry-After: 1 s): the jobs and their order against one page after another without faults; requests held at once",
		Value:  fmt.Sprintf("same jobs, same order: %t; at most %d at once; %d requests, %d faults (%v)", same, st.MaxInFlight, st.ByRoute[acctest.RouteListJobs]-100, st.Faults, took.Round(time.Millisecond)),
		Target: fmt.Sprintf("the same, at most %d at once", client.DefaultMaxConcurrentRequests),
		Met:    same && st.MaxInFlight <= int64(client.DefaultMaxConcurrentRequests),
	}
}
