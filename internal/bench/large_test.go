package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// largeSizes are the workspaces of BenchmarkLarge, from BENCH_LARGE_SIZES
// (numbers, comma-separated) or 1,000 and 5,000.
func largeSizes(tb testing.TB) []int {
	tb.Helper()
	s := os.Getenv("BENCH_LARGE_SIZES")
	if s == "" {
		return []int{1000, 5000}
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("BENCH_LARGE_SIZES=%q: want whole numbers of at least 1, comma-separated", s)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// BenchmarkLarge applies workspaces of 1,000 and 5,000 connectors and plans
// them with a refresh, beside the same of the yardstick: the connector's
// schema and no request, the engine's own cost. (The null provider, which
// the first figures used, is not served by the module proxy at any
// version today's engines load.) A missed target fails the run only with
// BENCH_LARGE_TARGETS=1.
func BenchmarkLarge(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	eng := acctest.NewEngine(b)
	rounds := min(benchRounds(b), 3)
	current := &benchProvider{name: "after", binary: eng.Provider}
	ys := yardstick(b)
	var rows []acctest.BenchRow
	var side []sideRow
	add := func(r acctest.BenchRow) {
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "measured: %s = %s\n", r.Figure, r.Value)
	}
	for _, n := range largeSizes(b) {
		e := acctest.NewEnv(b, sandbox.Config{Jobs: 0})
		e.RequireSandbox(b, "hold thousands of connectors on loopback")
		vars := e.ServiceEnv(acctest.NoLogVars...)
		dir, yardDir := acctest.ConfigDir(b, acctest.FleetConnectorsHCL(n)), acctest.ConfigDir(b, acctest.FleetConnectorsHCL(n))
		apply := func(p *benchProvider, in string) usage {
			return watchProviders(p.binary, func() {
				eng.Run(b, in, append(slices.Clone(vars), p.env...), "apply", "-auto-approve", "-input=false")
			})
		}
		stats := e.Sandbox.Stats()
		made := apply(current, dir)
		requests, _ := requestsSince(e.Sandbox, stats)
		expectConnectors(b, e, n, fmt.Sprintf("after the apply of %d", n))
		yardMade := apply(ys, yardDir)
		label := fmt.Sprintf("%d connectors", n)
		side = append(side,
			sideRow{plan: label + ": apply", provider: "yardstick", env: "default", u: yardMade, vs: "1.00× the yardstick"},
			sideRow{plan: label + ": apply", provider: current.name, env: "default", u: made, vs: ratioText(made, yardMade)})
		applyRatio := float64(made.wall) / float64(yardMade.wall)
		row := acctest.BenchRow{
			Figure: fmt.Sprintf("`apply` of %d connectors into an empty workspace: wall time against the yardstick's apply, requests a create", n),
			Value:  fmt.Sprintf("%.2f× (%v against %v); %.2f requests a create", applyRatio, made.wall.Round(100*time.Millisecond), yardMade.wall.Round(100*time.Millisecond), float64(requests)/float64(n)),
			Target: "report", Report: true,
		}
		if n >= 5000 {
			row.Target, row.Report, row.Met = "at most 2×", false, applyRatio <= 2
		}
		add(row)

		cases := []benchCase{{p: ys, label: "refresh", dir: yardDir}, {p: current, label: "refresh"}}
		plans := medians(b, eng, dir, vars, cases, rounds, nil, "-detailed-exitcode")
		yard, now := plans[cases[0].name()], plans[cases[1].name()]
		side = append(side,
			sideRow{plan: label + ": refresh plan", provider: "yardstick", env: "default", u: yard, vs: "1.00× the yardstick"},
			sideRow{plan: label + ": refresh plan", provider: current.name, env: "default", u: now, vs: ratioText(now, yard)})
		wall, peak := float64(now.wall)/float64(yard.wall), float64(now.peak)/float64(yard.peak)
		add(acctest.BenchRow{
			Figure: fmt.Sprintf("refresh plan of %d connectors: wall time and the provider's peak memory against the yardstick's", n),
			Value: fmt.Sprintf("%.2f× (%v against %v); %.2f× (%.0f MiB against %.0f MiB)", wall, now.wall.Round(10*time.Millisecond), yard.wall.Round(10*time.Millisecond),
				peak, float64(now.peak)/(1<<20), float64(yard.peak)/(1<<20)),
			Target: "at most 1.3×; at most 1.2×", Met: wall <= 1.3 && peak <= 1.2,
		})
		b.ReportMetric(wall, "plan-"+strconv.Itoa(n)+"/yardstick")
	}
	printBenchTable(eng, rows, side, rounds)
	if os.Getenv("BENCH_LARGE_TARGETS") == "1" {
		acctest.Missed(b, rows)
	}
}

func ratioText(u, yard usage) string {
	return fmt.Sprintf("%.2f× the yardstick", float64(u.wall)/float64(yard.wall))
}
