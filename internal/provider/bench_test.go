package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
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

// benchSandbox is a sandbox served on loopback, counting the connections
// made to it.
type benchSandbox struct {
	*sandbox.Server
	url   string
	conns atomic.Int64
}

func newBenchSandbox(tb testing.TB, cfg sandbox.Config) *benchSandbox {
	tb.Helper()
	srv, err := sandbox.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	s := &benchSandbox{Server: srv}
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	ts.Start()
	tb.Cleanup(ts.Close)
	s.url = ts.URL
	return s
}

func (s *benchSandbox) env() []string {
	return []string{EnvBaseURL + "=" + s.url, EnvAPIKey + "=" + sandbox.DefaultAPIKey, EnvWorkspaceID + "=" + sandbox.DefaultWorkspaceID}
}

// since is what the sandbox served since an earlier look at its counts.
func (s *benchSandbox) since(before sandbox.Stats) (total int64, byRoute map[string]int64) {
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
// encoding/json fetching and decoding every page of jobs, nothing else.
func bareRead(base string) (int, error) {
	hc := &http.Client{}
	n := 0
	for page := 1; page != 0; {
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/developers/workspaces/%s/jobs/?page=%d&page_size=100", base, sandbox.DefaultWorkspaceID, page), nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", sandbox.DefaultAPIKey)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		var p struct {
			NextPage *int `json:"next_page"`
			Results  []struct {
				ID            string `json:"_id"`
				CreatedAt     string `json:"_created_at"`
				UpdatedAt     string `json:"_updated_at"`
				DataSource    string `json:"data_source"`
				ConnectorName string `json:"connector_name"`
				SchemaName    string `json:"schema_name"`
				Name          string `json:"name"`
				IsActive      bool   `json:"is_active"`
			} `json:"results"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
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

// peakRSS runs fn while watching every process running the provider binary,
// and returns the highest peak resident memory (VmHWM) seen, in bytes; 0
// where /proc is not there to read.
func peakRSS(binary string, fn func()) int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			procs, _ := filepath.Glob("/proc/[0-9]*/exe")
			for _, exe := range procs {
				if target, err := os.Readlink(exe); err != nil || target != binary {
					continue
				}
				status, err := os.ReadFile(filepath.Join(filepath.Dir(exe), "status"))
				if err != nil {
					continue
				}
				for _, line := range strings.Split(string(status), "\n") {
					if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						if n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64); err == nil && n<<10 > peak.Load() {
							peak.Store(n << 10)
						}
					}
				}
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	return peak.Load()
}

// benchRow is one line of the table.
type benchRow struct {
	figure, value, target string
	met                   bool
	report                bool // a figure to report, with no target to meet
}

// BenchmarkScale measures every figure of `make bench` in one run and prints
// them as a table beside their targets. It drives the Terraform CLI of
// TF_ACC_TERRAFORM_PATH with the provider built from this tree, against
// sandboxes on loopback. Run it through `make bench`.
func BenchmarkScale(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	e := newEngine(b)
	var rows []benchRow
	add := func(r benchRow) {
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "measured: %s = %s\n", r.figure, r.value)
	}

	// 1-3. The jobs data source over 10,000 jobs.
	jobs := newBenchSandbox(b, sandbox.Config{Jobs: 10000})
	p := newProtoProvider(b, map[string]string{"base_url": jobs.url, "api_key": sandbox.DefaultAPIKey, "workspace_id": sandbox.DefaultWorkspaceID})
	before := jobs.Stats()
	if n := p.jobsInState(b, p.readJobs(b)); n != 10000 {
		b.Fatalf("%d jobs read", n)
	}
	requests, _ := jobs.since(before)
	add(benchRow{figure: "jobs data source over 10,000 jobs: requests", value: strconv.FormatInt(requests, 10), target: "exactly 100", met: requests == 100})

	read := clientAndConversion(b, p, jobs.url)
	ours := best(5, func() { read() })
	bare := best(5, func() {
		if n, err := bareRead(jobs.url); err != nil || n != 10000 {
			b.Fatalf("bare loop: %d jobs, %v", n, err)
		}
	})
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

	dir := configDir(b, `
data "dataintegration_jobs" "all" {}

output "jobs" {
  value = length(data.dataintegration_jobs.all.ids)
}
`)
	var planned time.Duration
	peak := peakRSS(e.provider, func() {
		start := time.Now()
		e.run(b, dir, jobs.env(), "plan", "-input=false")
		planned = time.Since(start)
	})
	add(benchRow{
		figure: "same read in `terraform plan`: peak memory of the provider process (VmHWM)",
		value:  fmt.Sprintf("%.1f MiB (plan took %v)", float64(peak)/(1<<20), planned.Round(time.Millisecond)),
		target: "report; at most 100 MiB", met: peak > 0 && peak <= 100<<20,
	})

	// 4. 50 lookups by ID in one plan over 1,000 jobs.
	lookups := newBenchSandbox(b, sandbox.Config{Jobs: 1000})
	all := lookups.Jobs(sandbox.DefaultWorkspaceID)
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
	before = lookups.Stats()
	e.run(b, dir, lookups.env(), "apply", "-auto-approve", "-input=false")
	_, byRoute := lookups.since(before)
	var names []string
	if err := json.Unmarshal(e.outputs(b, dir)["names"], &names); err != nil {
		b.Fatal(err)
	}
	correct := slices.Equal(names, want)
	add(benchRow{
		figure: "50 `dataintegration_job` by id in one plan over 1,000 jobs: list requests",
		value:  fmt.Sprintf("%d (results correct: %t)", byRoute[routeListJobs], correct),
		target: "at most 10, correct results", met: byRoute[routeListJobs] <= 10 && correct,
	})

	// 5. A plan refreshing 200 connectors, the service answering in 20 ms.
	fleet := newBenchSandbox(b, sandbox.Config{})
	dir = configDir(b, fleetHCL(200, "", false))
	e.run(b, dir, fleet.env(), "apply", "-auto-approve", "-input=false")
	if err := fleet.SetFaults(sandbox.Faults{LatencyMS: 20}); err != nil {
		b.Fatal(err)
	}
	before, conns := fleet.Stats(), fleet.conns.Load()
	start := time.Now()
	e.run(b, dir, fleet.env(), "plan", "-input=false", "-detailed-exitcode")
	took := time.Since(start)
	total, byRoute := fleet.since(before)
	reads := byRoute["GET "+routeConnectors+"{_id}/"]
	add(benchRow{
		figure: "`terraform plan` refreshing 200 connectors, 20 ms a request: requests",
		value:  fmt.Sprintf("%d connector reads, %d requests in all", reads, total),
		target: "exactly 200 reads, nothing else", met: reads == 200 && total == 200,
	})
	add(benchRow{
		figure: "same plan: wall time, against 200 × 20 ms / 10 (Terraform's parallelism)",
		value:  fmt.Sprintf("%v against %v; %d connections opened", took.Round(time.Millisecond), 400*time.Millisecond, fleet.conns.Load()-conns),
		target: "report", report: true,
	})

	// 6. An apply of 100 connectors and 100 triggers.
	apply := newBenchSandbox(b, sandbox.Config{Jobs: 140})
	var active []string
	for _, j := range apply.Jobs(sandbox.DefaultWorkspaceID) {
		if j.IsActive && len(active) < 100 {
			active = append(active, j.ID)
		}
	}
	ids, err := json.Marshal(active)
	if err != nil {
		b.Fatal(err)
	}
	dir = configDir(b, fleetHCL(100, "", false))
	before = apply.Stats()
	start = time.Now()
	e.run(b, dir, append(apply.env(), "TF_VAR_jobs="+string(ids)), "apply", "-auto-approve", "-input=false")
	took = time.Since(start)
	total, byRoute = apply.since(before)
	creates, triggers := byRoute["POST "+routeConnectors], byRoute[routeRunJob]
	add(benchRow{
		figure: "`terraform apply` of 100 connectors and 100 triggers: requests",
		value:  fmt.Sprintf("%d creates, %d triggers, %d requests in all (%v)", creates, triggers, total, took.Round(time.Millisecond)),
		target: "100 creates, 100 triggers, nothing else", met: creates == 100 && triggers == 100 && total == 200,
	})

	// 7. Allocations per decoded job in the client.
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

	printBenchTable(e, rows)
	b.ReportMetric(ratio, "provider/bare")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	for _, r := range rows {
		if !r.report && !r.met {
			b.Errorf("target missed: %s: %s (target: %s)", r.figure, r.value, r.target)
		}
	}
}

// printBenchTable prints the figures, and the machine they were measured on.
func printBenchTable(e *engine, rows []benchRow) {
	cpu := "unknown CPU"
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(info), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	fmt.Printf("\nMachine: %s/%s, %d CPUs (%s), %s; %s %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpu, runtime.Version(), filepath.Base(e.path), e.info)
	fmt.Println("| figure | measured | target | |")
	fmt.Println("|---|---|---|---|")
	for _, r := range rows {
		mark := "met"
		switch {
		case r.report:
			mark = "reported"
		case !r.met:
			mark = "MISSED"
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r.figure, r.value, r.target, mark)
	}
	fmt.Println()
}

// clientAndConversion returns a read of every job as the data source does
// it: the provider's client, and the conversion of each page into the
// state's values.
func clientAndConversion(tb testing.TB, p *protoProvider, base string) func() {
	tb.Helper()
	typ, ok := p.schemas.DataSourceSchemas["dataintegration_jobs"].ValueType().(tftypes.Object)
	if !ok {
		tb.Fatal("the data source's type is not an object")
	}
	c, err := client.New(client.Config{BaseURL: base, APIKey: sandbox.DefaultAPIKey, Version: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	return func() {
		v, ok := newJobValues(typ)
		if !ok {
			tb.Fatal("no list of jobs in the data source's type")
		}
		if err := c.EachJobPage(context.Background(), sandbox.DefaultWorkspaceID, client.JobFilter{}, v.add); err != nil || len(v.jobs) != 10000 {
			tb.Fatalf("%d jobs, %v", len(v.jobs), err)
		}
	}
}

// BenchmarkClientAndConversion is the provider's client and conversion of
// 10,000 jobs, BenchmarkJobsRead the whole read through the protocol, and
// BenchmarkBareRead the bare loop, for `go test -bench`.
func BenchmarkClientAndConversion(b *testing.B) {
	s := newBenchSandbox(b, sandbox.Config{Jobs: 10000})
	read := clientAndConversion(b, newProtoProvider(b, map[string]string{"base_url": s.url, "api_key": sandbox.DefaultAPIKey}), s.url)
	b.ReportAllocs()
	for b.Loop() {
		read()
	}
}

func BenchmarkJobsRead(b *testing.B) {
	s := newBenchSandbox(b, sandbox.Config{Jobs: 10000})
	p := newProtoProvider(b, map[string]string{"base_url": s.url, "api_key": sandbox.DefaultAPIKey, "workspace_id": sandbox.DefaultWorkspaceID})
	b.ReportAllocs()
	for b.Loop() {
		p.readJobs(b)
	}
}

func BenchmarkBareRead(b *testing.B) {
	s := newBenchSandbox(b, sandbox.Config{Jobs: 10000})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bareRead(s.url); err != nil {
			b.Fatal(err)
		}
	}
}
