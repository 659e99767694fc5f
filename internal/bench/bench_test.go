package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/provider"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// requestsSince is what a sandbox served since before.
func requestsSince(s *sandbox.Server, before sandbox.Stats) (total int64, byRoute map[string]int64) {
	now := s.Stats()
	byRoute = map[string]int64{}
	for r, n := range now.ByRoute {
		if d := n - before.ByRoute[r]; d != 0 {
			byRoute[r] = d
		}
	}
	return now.Requests - before.Requests, byRoute
}

// benchProvider is a provider binary and the dev override that selects it.
type benchProvider struct {
	name   string
	binary string // the file the provider processes run, as /proc names it
	env    []string
}

// baselineProvider builds the provider at a name of testdata/baselines.txt or
// a git revision, for before and after in one run; nil when name is empty.
func baselineProvider(tb testing.TB, name string) *benchProvider {
	tb.Helper()
	if name == "" {
		return nil
	}
	rev := name
	if b, ok := readBaselines(tb)[name]; ok {
		rev = b.rev
	}
	bin := acctest.ProviderAt(tb, rev)
	return &benchProvider{name: "before (" + name + ")", binary: filepath.Join(bin, "terraform-provider-dataintegration"), env: []string{"TF_CLI_CONFIG_FILE=" + acctest.DevOverrideFile(tb, bin)}}
}

// yardstick builds testdata/yardstick, the floor of the plan of 200 connectors.
func yardstick(tb testing.TB) *benchProvider {
	tb.Helper()
	dir := tb.TempDir()
	binary := filepath.Join(dir, "terraform-provider-dataintegration")
	if out, err := exec.Command("go", "build", "-o", binary, "./testdata/yardstick").CombinedOutput(); err != nil {
		tb.Fatalf("building the yardstick: %v\n%s", err, out)
	}
	return &benchProvider{name: "yardstick", binary: binary, env: []string{"TF_CLI_CONFIG_FILE=" + acctest.DevOverrideFile(tb, dir)}}
}

const benchJobsHCL = `
data "dataintegration_jobs" "all" {}

output "jobs" {
  value = length(data.dataintegration_jobs.all.ids)
}
`

func debugLog(tb testing.TB) []string {
	tb.Helper()
	return []string{"TF_LOG=DEBUG", "TF_LOG_PATH=" + filepath.Join(tb.TempDir(), "debug.log")}
}

// BenchmarkScale prints every figure of `make bench` beside its target, then
// the plans side by side: this tree's provider, BENCH_BASELINE's if set, and
// the yardstick, against sandboxes on loopback.
func BenchmarkScale(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	eng := acctest.NewEngine(b)
	rounds := benchRounds(b)
	current := &benchProvider{name: "after", binary: eng.Provider}
	before := baselineProvider(b, os.Getenv("BENCH_BASELINE"))
	var rows []acctest.BenchRow
	var side []sideRow
	add := func(r acctest.BenchRow) {
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "measured: %s = %s\n", r.Figure, r.Value)
	}
	cases := func(extra ...benchCase) []benchCase {
		cs := []benchCase{{p: current, label: "default"}, {p: current, label: "TF_LOG=DEBUG", env: debugLog(b)}}
		cs = append(cs, extra...)
		if before != nil {
			cs = append(cs, benchCase{p: before, label: "default"}, benchCase{p: before, label: "TF_LOG=DEBUG", env: debugLog(b)})
		}
		return cs
	}

	// 1. The jobs data source over 10,000 jobs.
	jobs := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	jobs.RequireSandbox(b, "count the requests")
	p := acctest.NewProtoProvider(b, provider.NewServer("test"), map[string]string{"base_url": jobs.BaseURL, "api_key": jobs.APIKey, "workspace_id": jobs.WorkspaceID})
	stats := jobs.Sandbox.Stats()
	if n := p.JobsInState(b, p.ReadJobs(b)); n != 10000 {
		b.Fatalf("%d jobs read", n)
	}
	requests, _ := requestsSince(jobs.Sandbox, stats)
	add(acctest.BenchRow{Figure: "jobs data source over 10,000 jobs: requests", Value: strconv.FormatInt(requests, 10), Target: "exactly 100", Met: requests == 100})

	// The floor of the ratios below (the provider package's
	// BenchmarkJobsDataSource_againstBareLoop holds its client to it).
	bare := acctest.Best(5, func() {
		if n, err := acctest.BareRead(jobs.BaseURL); err != nil || n != 10000 {
			b.Fatalf("bare loop: %d jobs, %v", n, err)
		}
	})
	whole := acctest.Best(3, func() { p.ReadJobs(b) })
	add(acctest.BenchRow{
		Figure: "same read through the plugin protocol, the framework's own work included (validation, semantic equality, msgpack)",
		Value:  fmt.Sprintf("%v, %.2f× the bare loop", whole.Round(time.Millisecond), float64(whole)/float64(bare)),
		Target: "report", Report: true,
	})

	// 2. The same read in `terraform plan`, each way side by side.
	dir := acctest.ConfigDir(b, benchJobsHCL)
	limit := benchCase{p: current, label: "GOMEMLIMIT=80MiB", env: []string{"GOMEMLIMIT=80MiB"}}
	plans := medians(b, eng, dir, jobs.ServiceEnv(acctest.NoLogVars...), cases(limit), rounds, nil)
	for _, c := range cases(limit) {
		u := plans[c.name()]
		side = append(side, sideRow{plan: "10,000 jobs", provider: c.p.name, env: c.label, u: u, vs: fmt.Sprintf("%.1f× the bare loop", float64(u.wall)/float64(bare))})
	}
	now := plans[cases()[0].name()]
	nowRatio := float64(now.wall) / float64(bare)
	if before != nil {
		then := plans[benchCase{p: before, label: "default"}.name()]
		thenRatio := float64(then.wall) / float64(bare)
		add(acctest.BenchRow{
			Figure: "`terraform plan` reading 10,000 jobs: wall time against the bare loop, before and after",
			Value:  fmt.Sprintf("%.1f× (%v), before %.1f× (%v): %.2f of before", nowRatio, now.wall.Round(time.Millisecond), thenRatio, then.wall.Round(time.Millisecond), nowRatio/thenRatio),
			Target: "at most half of before", Met: nowRatio <= thenRatio/2,
		})
	} else {
		add(acctest.BenchRow{
			Figure: "`terraform plan` reading 10,000 jobs: wall time against the bare loop",
			Value:  fmt.Sprintf("%.1f× (%v); no BENCH_BASELINE to compare with", nowRatio, now.wall.Round(time.Millisecond)),
			Target: "report (at most half of before, with BENCH_BASELINE)", Report: true,
		})
	}
	add(acctest.BenchRow{
		Figure: "same plan: peak memory of the provider (VmHWM), no soft memory limit",
		Value:  fmt.Sprintf("%.1f MiB", float64(now.peak)/(1<<20)),
		Target: "at most 100 MiB", Met: now.peak > 0 && now.peak <= 100<<20,
	})

	// 2b. The same plan over a link with latency, beside bare loops.
	paging := []*benchProvider{current}
	if p := baselineProvider(b, os.Getenv("BENCH_PAGING_BASELINE")); p != nil {
		paging = append(paging, p)
	}
	latency, latencySide := latencyRows(b, eng, jobs, paging, rounds)
	for _, r := range latency {
		add(r)
	}
	side = append(side, latencySide...)

	// 3. 50 lookups by ID in one plan over 1,000 jobs.
	lookups := acctest.NewEnv(b, sandbox.Config{Jobs: 1000})
	all := lookups.Sandbox.Jobs(lookups.WorkspaceID)
	var hcl strings.Builder
	var want []string
	for i := range 50 {
		j := all[i*20+19]
		want = append(want, j.Name)
		fmt.Fprintf(&hcl, "data \"dataintegration_job\" \"j%02d\" {\n  id = %q\n}\n\n", i, j.ID)
	}
	hcl.WriteString("output \"names\" {\n  value = [\n")
	for i := range 50 {
		fmt.Fprintf(&hcl, "    data.dataintegration_job.j%02d.name,\n", i)
	}
	hcl.WriteString("  ]\n}\n")
	dir = acctest.ConfigDir(b, hcl.String())
	stats = lookups.Sandbox.Stats()
	eng.Run(b, dir, lookups.ServiceEnv(), "apply", "-auto-approve", "-input=false")
	_, byRoute := requestsSince(lookups.Sandbox, stats)
	var names []string
	if err := json.Unmarshal(eng.Outputs(b, dir)["names"], &names); err != nil {
		b.Fatal(err)
	}
	correct := slices.Equal(names, want)
	add(acctest.BenchRow{
		Figure: "50 `dataintegration_job` by id in one plan over 1,000 jobs: list requests",
		Value:  fmt.Sprintf("%d (results correct: %t)", byRoute[acctest.RouteListJobs], correct),
		Target: "at most 10, correct results", Met: byRoute[acctest.RouteListJobs] <= 10 && correct,
	})

	// 4. A plan refreshing 200 connectors, beside the yardstick's.
	fleet := acctest.NewEnv(b, sandbox.Config{})
	vars := fleet.ServiceEnv(acctest.NoLogVars...)
	dir = acctest.ConfigDir(b, acctest.FleetConnectorsHCL(200))
	eng.Run(b, dir, vars, "apply", "-auto-approve", "-input=false")
	ys := yardstick(b)
	yardDir := acctest.ConfigDir(b, acctest.FleetConnectorsHCL(200))
	eng.Run(b, yardDir, append(slices.Clone(vars), ys.env...), "apply", "-auto-approve", "-input=false")
	var reads, others, beforeReads []int64
	fleetCases := cases()
	yardCase := benchCase{p: ys, label: "default", dir: yardDir}
	plans = medians(b, eng, dir, vars, append([]benchCase{yardCase}, fleetCases...), rounds, func() func(benchCase) {
		stats := fleet.Sandbox.Stats()
		return func(c benchCase) {
			total, byRoute := requestsSince(fleet.Sandbox, stats)
			stats = fleet.Sandbox.Stats()
			if c.p == ys {
				return
			}
			n := byRoute["GET "+acctest.RouteConnectors+"{_id}/"] + byRoute["GET "+acctest.RouteConnectors]
			if c.p != current {
				beforeReads = append(beforeReads, n)
				return
			}
			reads, others = append(reads, n), append(others, total-n)
		}
	}(), "-detailed-exitcode")
	yard := plans[yardCase.name()]
	side = append(side, sideRow{plan: "200 connectors", provider: "yardstick", env: "default", u: yard, vs: "1.00× the yardstick"})
	for _, c := range fleetCases {
		u := plans[c.name()]
		side = append(side, sideRow{plan: "200 connectors", provider: c.p.name, env: c.label, u: u, vs: fmt.Sprintf("%.2f× the yardstick", float64(u.wall)/float64(yard.wall))})
	}
	now = plans[fleetCases[0].name()]
	wallRatio := float64(now.wall) / float64(yard.wall)
	add(acctest.BenchRow{
		Figure: "`terraform plan` refreshing 200 connectors: wall time against the same plan of the yardstick (no request, no validator)",
		Value:  fmt.Sprintf("%.2f× (%v against %v); provider CPU %.2f× (%v against %v)", wallRatio, now.wall.Round(time.Millisecond), yard.wall.Round(time.Millisecond), float64(now.cpu)/float64(yard.cpu), now.cpu, yard.cpu),
		Target: "at most 1.2×", Met: wallRatio <= 1.2,
	})
	add(acctest.BenchRow{
		Figure: "same plan: requests, each run of the provider now (and before)",
		Value:  fmt.Sprintf("connector reads and list pages %v (before: %v), other requests %v", reads, beforeReads, others),
		Target: "at most 5 (2 × 2 pages + 1), nothing else", Met: !slices.ContainsFunc(reads, func(n int64) bool { return n > 5 }) && !slices.ContainsFunc(others, func(n int64) bool { return n != 0 }),
	})

	// 5. An apply of 100 connectors and 100 triggers.
	apply := acctest.NewEnv(b, sandbox.Config{Jobs: 140})
	var active []string
	for _, j := range apply.Sandbox.Jobs(apply.WorkspaceID) {
		if j.IsActive && len(active) < 100 {
			active = append(active, j.ID)
		}
	}
	ids, err := json.Marshal(active)
	if err != nil {
		b.Fatal(err)
	}
	dir = acctest.ConfigDir(b, acctest.FleetHCL(100, "", false))
	stats = apply.Sandbox.Stats()
	start := time.Now()
	eng.Run(b, dir, apply.ServiceEnv("TF_VAR_jobs="+string(ids)), "apply", "-auto-approve", "-input=false")
	took := time.Since(start)
	total, byRoute := requestsSince(apply.Sandbox, stats)
	// The key checks list connectors too, once in the plan and in the apply.
	lists, creates, triggers := byRoute["GET "+acctest.RouteConnectors]-2, byRoute["POST "+acctest.RouteConnectors], byRoute[acctest.RouteRunJob]
	add(acctest.BenchRow{
		Figure: "`terraform apply` of 100 connectors and 100 triggers: requests",
		Value:  fmt.Sprintf("%d name lists (%.2f a create), %d creates, %d triggers, 2 key checks, %d requests in all (%v)", lists, float64(lists)/100, creates, triggers, total, took.Round(time.Millisecond)),
		Target: "fewer than 200 name lists (the checks before and after each create share lists), 100 creates, 100 triggers, a key check in each of the plan's and the apply's processes, nothing else",
		Met:    lists >= 2 && lists < 200 && creates == 100 && triggers == 100 && total == lists+202,
	})

	// 6. Allocations per decoded job in the client.
	var page bytes.Buffer
	if err := json.NewEncoder(&page).Encode(map[string]any{"next_page": 2, "results": all[:100]}); err != nil {
		b.Fatal(err)
	}
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := client.DecodePage[client.Job](bytes.NewReader(page.Bytes())); err != nil {
			b.Fatal(err)
		}
	})
	add(acctest.BenchRow{Figure: "allocations per decoded job in the client", Value: fmt.Sprintf("%.2f", allocs/100), Target: "report", Report: true})

	printBenchTable(eng, rows, side, rounds)
	b.ReportMetric(wallRatio, "provider/yardstick")
	acctest.Missed(b, rows)
}

func BenchmarkJobsRead(b *testing.B) {
	s := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	p := acctest.NewProtoProvider(b, provider.NewServer("test"), map[string]string{"base_url": s.BaseURL, "api_key": s.APIKey, "workspace_id": s.WorkspaceID})
	b.ReportAllocs()
	for b.Loop() {
		p.ReadJobs(b)
	}
}

func BenchmarkBareRead(b *testing.B) {
	s := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := acctest.BareRead(s.BaseURL); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMain(m *testing.M) { acctest.Main(m) }

// benchLatencies are the sandbox's delays, in milliseconds, for reads over a link.
var benchLatencies = []int{0, 20, 50}

// benchEmptyHCL is a plan of nothing: Terraform's own start alone.
const benchEmptyHCL = `
output "nothing" {
  value = 0
}
`

// latencyRows measures the plan of 10,000 jobs at each of benchLatencies, less
// the same plan over no jobs (what does not depend on the list), beside two bare
// loops: pages one after another, and page 1 then the default bound at once.
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

// faultsRow reads 10,000 jobs while 30% of requests get 429 or 503 with
// Retry-After: the same jobs in the same order as without faults, and never
// more requests at once than the bound.
func faultsRow(b *testing.B) acctest.BenchRow {
	b.Helper()
	e := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	want := acctest.JobIDs(e.JobsOneByOne(b, client.JobFilter{}))
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
