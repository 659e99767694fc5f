package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// requestsSince is what a sandbox served since an earlier look at its
// counts.
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

// bareRead is the floor the provider is held to: net/http and
// encoding/json fetching and decoding every page of jobs, one after
// another, nothing else.
func bareRead(base string) (int, error) {
	hc := &http.Client{}
	n := 0
	for page := 1; page != 0; {
		p, err := barePage(hc, base, page)
		if err != nil {
			return 0, err
		}
		n += len(p.Results)
		page = 0
		if p.NextPage != nil {
			page = *p.NextPage
		}
	}
	return n, nil
}

// bareBoundedRead is bareRead with the first page alone, then the others
// by bound workers at once: the floor of a read with that bound.
func bareBoundedRead(base string, bound int) (int, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: bound}}
	first, err := barePage(hc, base, 1)
	if err != nil {
		return 0, err
	}
	var (
		n    atomic.Int64
		next atomic.Int64
		errs = make(chan error, bound)
		wg   sync.WaitGroup
	)
	n.Add(int64(len(first.Results)))
	next.Store(1)
	for range bound {
		wg.Go(func() {
			for page := int(next.Add(1)); page <= first.TotalPages; page = int(next.Add(1)) {
				p, err := barePage(hc, base, page)
				if err != nil {
					errs <- err
					return
				}
				n.Add(int64(len(p.Results)))
			}
		})
	}
	wg.Wait()
	close(errs)
	return int(n.Load()), <-errs
}

// barePageOf is a page of jobs as the bare loops decode it, with
// encoding/json alone.
type barePageOf struct {
	NextPage   *int         `json:"next_page"`
	TotalPages int          `json:"total_pages"`
	Results    []client.Job `json:"results"`
}

// barePage fetches and decodes one page of 100 jobs.
func barePage(hc *http.Client, base string, page int) (*barePageOf, error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/developers/workspaces/%s/jobs/?page=%d&page_size=100", base, sandbox.DefaultWorkspaceID, page), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", sandbox.DefaultAPIKey)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var p barePageOf
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return nil, err
	}
	return &p, nil
}

// best is the shortest of n runs of fn.
func best(n int, fn func()) time.Duration {
	d := time.Duration(1<<63 - 1)
	for range n {
		start := time.Now()
		fn()
		d = min(d, time.Since(start))
	}
	return d
}

// usage is what one engine command cost: its wall time, and the CPU time
// and highest peak resident memory (VmHWM) of the provider processes it
// started (Terraform starts several a command).
type usage struct {
	wall time.Duration
	cpu  time.Duration
	peak int64
}

// clockTick is the unit of CPU times in /proc/<pid>/stat (USER_HZ).
const clockTick = 10 * time.Millisecond

// watchProviders runs fn while sampling, every 5 ms, each process running
// binary other than this one, and returns what they used: CPU time as last
// sampled, which leaves out at most the last 5 ms of each process; zero
// where /proc is not there to read.
func watchProviders(binary string, fn func()) usage {
	var (
		mu    sync.Mutex
		ticks = map[string]int64{}
		peak  int64
	)
	self := strconv.Itoa(os.Getpid())
	sample := func() {
		procs, _ := filepath.Glob("/proc/[0-9]*/exe")
		for _, exe := range procs {
			dir := filepath.Dir(exe)
			if target, err := os.Readlink(exe); err != nil || target != binary || filepath.Base(dir) == self {
				continue
			}
			stat, err1 := os.ReadFile(filepath.Join(dir, "stat"))
			status, err2 := os.ReadFile(filepath.Join(dir, "status"))
			if err1 != nil || err2 != nil {
				continue
			}
			mu.Lock()
			// utime and stime are fields 14 and 15; the command name, field
			// 2, is in parentheses and may hold spaces.
			if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 12 {
				u, _ := strconv.ParseInt(f[11], 10, 64)
				s, _ := strconv.ParseInt(f[12], 10, 64)
				ticks[dir] = max(ticks[dir], u+s)
			}
			for _, line := range strings.Split(string(status), "\n") {
				if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					if n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64); err == nil {
						peak = max(peak, n<<10)
					}
				}
			}
			mu.Unlock()
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			sample()
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	start := time.Now()
	fn()
	wall := time.Since(start)
	close(done)
	wg.Wait()
	var total int64
	for _, t := range ticks {
		total += t
	}
	return usage{wall: wall, cpu: time.Duration(total) * clockTick, peak: peak}
}

// benchProvider is a provider binary the benchmark runs Terraform with,
// through a dev override, and the environment that selects it.
type benchProvider struct {
	name   string
	binary string // the file the provider processes run, as /proc names it
	env    []string
}

// devOverride writes a CLI configuration that points both addresses a
// configuration may use at the provider binary in dir, and returns its
// path.
func devOverride(tb testing.TB, dir string) string {
	tb.Helper()
	cfg := filepath.Join(tb.TempDir(), "cli-config.tfrc")
	if err := os.WriteFile(cfg, []byte(devOverrides(dir)), 0o600); err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// baselineProvider builds the provider at a git revision, for figures of
// before and after in one run; nil when rev is empty.
func baselineProvider(tb testing.TB, rev string) *benchProvider {
	tb.Helper()
	if rev == "" {
		return nil
	}
	bin := providerAt(tb, rev)
	return &benchProvider{name: "before (" + rev + ")", binary: filepath.Join(bin, "terraform-provider-dataintegration"), env: []string{"TF_CLI_CONFIG_FILE=" + devOverride(tb, bin)}}
}

// yardstick builds the yardstick provider of testdata/yardstick, the floor
// the provider's plan of 200 connectors is held to.
func yardstick(tb testing.TB) *benchProvider {
	tb.Helper()
	dir := tb.TempDir()
	binary := filepath.Join(dir, "terraform-provider-dataintegration")
	if out, err := exec.Command("go", "build", "-o", binary, "./testdata/yardstick").CombinedOutput(); err != nil {
		tb.Fatalf("building the yardstick: %v\n%s", err, out)
	}
	return &benchProvider{name: "yardstick", binary: binary, env: []string{"TF_CLI_CONFIG_FILE=" + devOverride(tb, dir)}}
}

// benchCase is one way to run a plan: a provider, and the environment of
// the command.
type benchCase struct {
	p     *benchProvider
	label string
	env   []string
	dir   string // the configuration's folder, when not the plan's own
}

func (c benchCase) name() string { return c.p.name + ", " + c.label }

// medians runs each case's plan in dir (with args) rounds times, the cases taking turns
// so that the machine's load falls on all alike, and returns the median of
// each figure by case. after, if not nil, checks each run of a case.
func medians(tb testing.TB, eng *engine, dir string, vars []string, cases []benchCase, rounds int, after func(benchCase), args ...string) map[string]usage {
	tb.Helper()
	runs := map[string][]usage{}
	for range rounds {
		for _, c := range cases {
			in := dir
			if c.dir != "" {
				in = c.dir
			}
			u := watchProviders(c.p.binary, func() {
				eng.run(tb, in, append(append(slices.Clone(vars), c.p.env...), c.env...), append([]string{"plan", "-input=false"}, args...)...)
			})
			runs[c.name()] = append(runs[c.name()], u)
			if after != nil {
				after(c)
			}
		}
	}
	return medianUsage(runs)
}

// medianUsage is the median of each figure of each case's runs.
func medianUsage(runs map[string][]usage) map[string]usage {
	out := map[string]usage{}
	for name, us := range runs {
		median := func(f func(usage) int64) int64 {
			vs := make([]int64, len(us))
			for i, u := range us {
				vs[i] = f(u)
			}
			slices.Sort(vs)
			return vs[len(vs)/2]
		}
		out[name] = usage{
			wall: time.Duration(median(func(u usage) int64 { return int64(u.wall) })),
			cpu:  time.Duration(median(func(u usage) int64 { return int64(u.cpu) })),
			peak: median(func(u usage) int64 { return u.peak }),
		}
	}
	return out
}

// benchRow is one line of the table.
type benchRow struct {
	figure, value, target string
	met                   bool
	report                bool // a figure to report, with no target to meet
}

// sideRow is one line of the side-by-side table of plans.
type sideRow struct {
	plan, provider, env string
	u                   usage
	vs                  string // the wall time against a reference
}

// benchRounds is how many times each plan runs, from BENCH_ROUNDS.
func benchRounds(tb testing.TB) int {
	tb.Helper()
	if s := os.Getenv("BENCH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			tb.Fatalf("BENCH_ROUNDS=%q: want a whole number of at least 1", s)
		}
		return n
	}
	return 5
}

const benchConnectorsHCL = `
resource "dataintegration_customer_service_connector" "c" {
  count       = %d
  name        = "fleet ${count.index}"
  url         = "https://acme.example.com"
  agent_email = "agent@acme.com"
  token       = "fleet-token-${count.index}"
  streams     = ["tickets"]
}
`

const benchJobsHCL = `
data "dataintegration_jobs" "all" {}

output "jobs" {
  value = length(data.dataintegration_jobs.all.ids)
}
`

// debugLog is the environment of a run with the provider's logs collected
// at DEBUG, into a file.
func debugLog(tb testing.TB) []string {
	tb.Helper()
	return []string{"TF_LOG=DEBUG", "TF_LOG_PATH=" + filepath.Join(tb.TempDir(), "debug.log")}
}

// BenchmarkScale measures every figure of `make bench` in one run and prints
// them as a table beside their targets, then the plans side by side. It
// drives the Terraform CLI of TF_ACC_TERRAFORM_PATH with the provider built
// from this tree, the provider built at BENCH_BASELINE (if set), and the
// yardstick, against sandboxes on loopback. Run it through `make bench`.
func BenchmarkScale(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	eng := newEngine(b)
	rounds := benchRounds(b)
	current := &benchProvider{name: "after", binary: eng.provider}
	before := baselineProvider(b, os.Getenv("BENCH_BASELINE"))
	var rows []benchRow
	var side []sideRow
	add := func(r benchRow) {
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "measured: %s = %s\n", r.figure, r.value)
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
	jobs := newTestEnv(b, sandbox.Config{Jobs: 10000})
	jobs.requireSandbox(b, "count the requests")
	p := newProtoProvider(b, map[string]string{"base_url": jobs.baseURL, "api_key": jobs.apiKey, "workspace_id": jobs.workspaceID})
	stats := jobs.sandbox.Stats()
	if n := p.jobsInState(b, p.readJobs(b)); n != 10000 {
		b.Fatalf("%d jobs read", n)
	}
	requests, _ := requestsSince(jobs.sandbox, stats)
	add(benchRow{figure: "jobs data source over 10,000 jobs: requests", value: strconv.FormatInt(requests, 10), target: "exactly 100", met: requests == 100})

	read := clientAndConversion(b, p, jobs.baseURL)
	// Best of 5 each, in turns, so that the machine's load falls on both alike.
	ours, bare := time.Duration(1<<63-1), time.Duration(1<<63-1)
	for range 5 {
		ours = min(ours, best(1, read))
		bare = min(bare, best(1, func() {
			if n, err := bareRead(jobs.baseURL); err != nil || n != 10000 {
				b.Fatalf("bare loop: %d jobs, %v", n, err)
			}
		}))
	}
	ratio := float64(ours) / float64(bare)
	add(benchRow{
		figure: "same read: the provider's client and data-source conversion against a bare net/http + encoding/json loop, best of 5",
		value:  fmt.Sprintf("%.2f× (%v against %v)", ratio, ours.Round(time.Millisecond), bare.Round(time.Millisecond)),
		target: "at most 1.2×", met: ratio <= 1.2,
	})
	whole := best(3, func() { p.readJobs(b) })
	add(benchRow{
		figure: "same read through the plugin protocol, the framework's own work included (validation, semantic equality, msgpack)",
		value:  fmt.Sprintf("%v, %.2f× the bare loop", whole.Round(time.Millisecond), float64(whole)/float64(bare)),
		target: "report", report: true,
	})

	// 2. The same read in `terraform plan`, each way side by side.
	dir := configDir(b, benchJobsHCL)
	// The soft memory limit the provider set until issue 17, for comparison.
	limit := benchCase{p: current, label: "GOMEMLIMIT=80MiB", env: []string{"GOMEMLIMIT=80MiB"}}
	plans := medians(b, eng, dir, jobs.serviceEnv(noLogVars...), cases(limit), rounds, nil)
	for _, c := range cases(limit) {
		u := plans[c.name()]
		side = append(side, sideRow{plan: "10,000 jobs", provider: c.p.name, env: c.label, u: u, vs: fmt.Sprintf("%.1f× the bare loop", float64(u.wall)/float64(bare))})
	}
	now := plans[cases()[0].name()]
	nowRatio := float64(now.wall) / float64(bare)
	if before != nil {
		then := plans[benchCase{p: before, label: "default"}.name()]
		thenRatio := float64(then.wall) / float64(bare)
		add(benchRow{
			figure: "`terraform plan` reading 10,000 jobs: wall time against the bare loop, before and after",
			value:  fmt.Sprintf("%.1f× (%v), before %.1f× (%v): %.2f of before", nowRatio, now.wall.Round(time.Millisecond), thenRatio, then.wall.Round(time.Millisecond), nowRatio/thenRatio),
			target: "at most half of before", met: nowRatio <= thenRatio/2,
		})
	} else {
		add(benchRow{
			figure: "`terraform plan` reading 10,000 jobs: wall time against the bare loop",
			value:  fmt.Sprintf("%.1f× (%v); no BENCH_BASELINE to compare with", nowRatio, now.wall.Round(time.Millisecond)),
			target: "report (at most half of before, with BENCH_BASELINE)", report: true,
		})
	}
	add(benchRow{
		figure: "same plan: peak memory of the provider (VmHWM), no soft memory limit",
		value:  fmt.Sprintf("%.1f MiB", float64(now.peak)/(1<<20)),
		target: "at most 100 MiB", met: now.peak > 0 && now.peak <= 100<<20,
	})

	// 2b. The same plan over a link with latency, beside bare loops, now and
	// before the pages were read side by side.
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
	lookups := newTestEnv(b, sandbox.Config{Jobs: 1000})
	all := lookups.sandbox.Jobs(lookups.workspaceID)
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
	dir = configDir(b, hcl.String())
	stats = lookups.sandbox.Stats()
	eng.run(b, dir, lookups.serviceEnv(), "apply", "-auto-approve", "-input=false")
	_, byRoute := requestsSince(lookups.sandbox, stats)
	var names []string
	if err := json.Unmarshal(eng.outputs(b, dir)["names"], &names); err != nil {
		b.Fatal(err)
	}
	correct := slices.Equal(names, want)
	add(benchRow{
		figure: "50 `dataintegration_job` by id in one plan over 1,000 jobs: list requests",
		value:  fmt.Sprintf("%d (results correct: %t)", byRoute[routeListJobs], correct),
		target: "at most 10, correct results", met: byRoute[routeListJobs] <= 10 && correct,
	})

	// 4. A plan refreshing 200 connectors, side by side with the same plan
	// of the yardstick's 200.
	fleet := newTestEnv(b, sandbox.Config{})
	vars := fleet.serviceEnv(noLogVars...)
	dir = configDir(b, fmt.Sprintf(benchConnectorsHCL, 200))
	eng.run(b, dir, vars, "apply", "-auto-approve", "-input=false")
	ys := yardstick(b)
	yardDir := configDir(b, fmt.Sprintf(benchConnectorsHCL, 200))
	eng.run(b, yardDir, append(slices.Clone(vars), ys.env...), "apply", "-auto-approve", "-input=false")
	var reads, others []int64
	fleetCases := cases()
	yardCase := benchCase{p: ys, label: "default", dir: yardDir}
	plans = medians(b, eng, dir, vars, append([]benchCase{yardCase}, fleetCases...), rounds, func() func(benchCase) {
		stats := fleet.sandbox.Stats()
		return func(c benchCase) {
			total, byRoute := requestsSince(fleet.sandbox, stats)
			stats = fleet.sandbox.Stats()
			if c.p == ys {
				return
			}
			n := byRoute["GET "+routeConnectors+"{_id}/"]
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
	add(benchRow{
		figure: "`terraform plan` refreshing 200 connectors: wall time against the same plan of the yardstick (no request, no validator)",
		value:  fmt.Sprintf("%.2f× (%v against %v); provider CPU %.2f× (%v against %v)", wallRatio, now.wall.Round(time.Millisecond), yard.wall.Round(time.Millisecond), float64(now.cpu)/float64(yard.cpu), now.cpu, yard.cpu),
		target: "at most 1.2×", met: wallRatio <= 1.2,
	})
	add(benchRow{
		figure: "same plan: requests, each run of the provider",
		value:  fmt.Sprintf("connector reads %v, other requests %v", reads, others),
		target: "200 reads, nothing else", met: !slices.ContainsFunc(reads, func(n int64) bool { return n != 200 }) && !slices.ContainsFunc(others, func(n int64) bool { return n != 0 }),
	})

	// 5. An apply of 100 connectors and 100 triggers.
	apply := newTestEnv(b, sandbox.Config{Jobs: 140})
	var active []string
	for _, j := range apply.sandbox.Jobs(apply.workspaceID) {
		if j.IsActive && len(active) < 100 {
			active = append(active, j.ID)
		}
	}
	ids, err := json.Marshal(active)
	if err != nil {
		b.Fatal(err)
	}
	dir = configDir(b, fleetHCL(100, "", false))
	stats = apply.sandbox.Stats()
	start := time.Now()
	eng.run(b, dir, apply.serviceEnv("TF_VAR_jobs="+string(ids)), "apply", "-auto-approve", "-input=false")
	took := time.Since(start)
	total, byRoute := requestsSince(apply.sandbox, stats)
	checks, creates, triggers := byRoute["GET "+routeConnectors], byRoute["POST "+routeConnectors], byRoute[routeRunJob]
	add(benchRow{
		figure: "`terraform apply` of 100 connectors and 100 triggers: requests",
		value:  fmt.Sprintf("%d name checks, %d creates, %d triggers, %d requests in all (%v)", checks, creates, triggers, total, took.Round(time.Millisecond)),
		target: "100 name checks, 100 creates, 100 triggers, nothing else", met: checks == 100 && creates == 100 && triggers == 100 && total == 300,
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
	add(benchRow{figure: "allocations per decoded job in the client", value: fmt.Sprintf("%.2f", allocs/100), target: "report", report: true})

	printBenchTable(eng, rows, side, rounds)
	b.ReportMetric(ratio, "provider/bare")
	b.ReportMetric(wallRatio, "provider/yardstick")
	missed(b, rows)
}

// printBenchTable prints the figures, the plans side by side, and the
// machine they were measured on.
func printBenchTable(eng *engine, rows []benchRow, side []sideRow, rounds int) {
	cpu := "unknown CPU"
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(info), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	fmt.Printf("\nMachine: %s/%s, %d CPUs (%s), %s; %s %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpu, runtime.Version(), filepath.Base(eng.path), eng.info)
	printFigures(rows)
	fmt.Printf("\nThe plans side by side, each figure the median of %d runs:\n\n", rounds)
	fmt.Println("| plan | provider | environment | wall time | provider CPU | provider peak memory | wall time against |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range side {
		fmt.Printf("| %s | %s | %s | %v | %v | %.1f MiB | %s |\n", r.plan, r.provider, r.env, r.u.wall.Round(time.Millisecond), r.u.cpu, float64(r.u.peak)/(1<<20), r.vs)
	}
	fmt.Println()
}

// printFigures prints the table of figures, each with its target and PASS,
// MISS or report.
func printFigures(rows []benchRow) {
	fmt.Println("| figure | measured | target | |")
	fmt.Println("|---|---|---|---|")
	for _, r := range rows {
		mark := "PASS"
		switch {
		case r.report:
			mark = "report"
		case !r.met:
			mark = "MISS"
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r.figure, r.value, r.target, mark)
	}
}

// missed fails the benchmark for each row whose target was missed.
func missed(b *testing.B, rows []benchRow) {
	for _, r := range rows {
		if !r.report && !r.met {
			b.Errorf("target missed: %s: %s (target: %s)", r.figure, r.value, r.target)
		}
	}
}

// clientAndConversion returns a read of every job as the data source does
// it: the provider's client, and the encoding of each page into the state
// Terraform receives, the state itself included.
func clientAndConversion(tb testing.TB, p *protoProvider, base string) func() {
	tb.Helper()
	typ, ok := p.schemas.DataSourceSchemas[jobsTypeName].ValueType().(tftypes.Object)
	if !ok {
		tb.Fatal("the data source's type is not an object")
	}
	c, err := client.New(client.Config{BaseURL: base, APIKey: sandbox.DefaultAPIKey, Version: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	attrs := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(t, nil)
	}
	return func() {
		sink, err := newPackedJobs(typ)
		if err != nil {
			tb.Fatal(err)
		}
		if err := c.EachJobPage(context.Background(), sandbox.DefaultWorkspaceID, client.JobFilter{}, client.Visitor[client.Job]{Page: sink.add, Reset: sink.reset}); err != nil || sink.n != 10000 {
			tb.Fatalf("%d jobs, %v", sink.n, err)
		}
		if _, err := sink.state(attrs); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkClientAndConversion is the provider's client and conversion of
// 10,000 jobs, BenchmarkJobsRead the whole read through the protocol, and
// BenchmarkBareRead the bare loop, for `go test -bench`.
func BenchmarkClientAndConversion(b *testing.B) {
	s := newTestEnv(b, sandbox.Config{Jobs: 10000})
	read := clientAndConversion(b, newProtoProvider(b, map[string]string{"base_url": s.baseURL, "api_key": s.apiKey}), s.baseURL)
	b.ReportAllocs()
	for b.Loop() {
		read()
	}
}

func BenchmarkJobsRead(b *testing.B) {
	s := newTestEnv(b, sandbox.Config{Jobs: 10000})
	p := newProtoProvider(b, map[string]string{"base_url": s.baseURL, "api_key": s.apiKey, "workspace_id": s.workspaceID})
	b.ReportAllocs()
	for b.Loop() {
		p.readJobs(b)
	}
}

func BenchmarkBareRead(b *testing.B) {
	s := newTestEnv(b, sandbox.Config{Jobs: 10000})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bareRead(s.baseURL); err != nil {
			b.Fatal(err)
		}
	}
}
