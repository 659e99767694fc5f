package bench

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// BenchmarkDegraded applies 300 connectors and 60 triggers and plans their
// refresh, healthy and with 30% of requests failing (429 or 503; the plan's
// reads 500, 502 or 504): both succeed, nothing doubled (DegradedRun checks).
func BenchmarkDegraded(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	eng := acctest.NewEngine(b)
	healthy := acctest.DegradedRun(b, eng, 300, 60, 0)
	faulty := acctest.DegradedRun(b, eng, 300, 60, 0.3)
	name := eng.Info.String()
	rows := []acctest.BenchRow{
		{
			Figure: name + ": `apply` of 300 connectors and 60 triggers, 30% of the requests answered 429 or 503 (Retry-After: 1 s), against the same apply without faults",
			Value: fmt.Sprintf("%.1f× (%v against %v); %d requests, %d faults; one apply, each job run once, no connector doubled, next plan empty",
				float64(faulty.Apply)/float64(healthy.Apply), faulty.Apply.Round(100*time.Millisecond), healthy.Apply.Round(100*time.Millisecond), faulty.Requests, faulty.Faults),
			Target: "one apply succeeds", Met: !b.Failed(),
		},
		{
			Figure: name + ": `plan` refreshing the 300 connectors, 30% of the reads answered 500, 502 or 504, against the same plan without faults",
			Value: fmt.Sprintf("%.1f× (%v against %v); %d requests, %d faults; empty",
				float64(faulty.Refresh)/float64(healthy.Refresh), faulty.Refresh.Round(100*time.Millisecond), healthy.Refresh.Round(100*time.Millisecond), faulty.RefreshReads, faulty.RefreshFaults),
			Target: "one plan succeeds", Met: !b.Failed(),
		},
	}
	acctest.PrintFigures(rows)
	acctest.Missed(b, rows)
}

var gaveUpAfter = regexp.MustCompile(`gave up after (\d+) attempts over (\S+)(?:, at the end of|: the next attempt would wait \S+, past the end of) the retry budget \(5m0s\)`)

// BenchmarkServiceDown: an apply against a service answering only 503 fails
// within the retry budget, naming its attempts; a refresh of 40 connectors
// where nothing listens fails within one budget, not one per batch.
func BenchmarkServiceDown(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	eng := acctest.NewEngine(b)
	e := acctest.NewEnv(b, sandbox.Config{Jobs: 0})
	e.RequireSandbox(b, "answer every request 503")
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 1, Statuses: []int{503}}); err != nil {
		b.Fatal(err)
	}
	dir := acctest.ConfigDir(b, acctest.FleetHCL(1, "", false))
	start := time.Now()
	_, err := eng.Try(dir, e.ServiceEnv(), "apply", "-auto-approve", "-input=false", "-no-color")
	took := time.Since(start)
	var said string
	// The engine wraps the error's lines.
	m := gaveUpAfter.FindStringSubmatch(strings.Join(strings.Fields(fmt.Sprint(err)), " "))
	if m != nil {
		said = fmt.Sprintf("%s attempts over %s", m[1], m[2])
	}
	closed := deadServicePlan(b, eng, closedPort(b))
	rows := []acctest.BenchRow{{
		Figure: "`apply` of one connector against a service that answers every request 503 (Retry-After: 1 s), default retry budget (" + client.DefaultRetryBudget.String() + ")",
		Value:  fmt.Sprintf("failed after %v; the error says: %s", took.Round(100*time.Millisecond), said),
		Target: "fails within the budget, saying how long it tried and how many times",
		Met:    err != nil && m != nil && took < client.DefaultRetryBudget+time.Minute,
	}, closed}
	fmt.Printf("\nMachine: %s/%s, %d CPUs, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	acctest.PrintFigures(rows)
	if m == nil {
		fmt.Fprintln(os.Stderr, err)
	}
	acctest.Missed(b, rows)
}

// BenchmarkServiceSilent: a refresh of 40 connectors against a port that never
// answers fails within one retry budget and one request_timeout.
func BenchmarkServiceSilent(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	rows := []acctest.BenchRow{deadServicePlan(b, acctest.NewEngine(b), silentPort(b))}
	acctest.PrintFigures(rows)
	acctest.Missed(b, rows)
}

// deadService is a base_url where no service answers, and what errors say.
type deadService struct {
	addr, what, summary, cause string
	limit                      time.Duration
}

func closedPort(b *testing.B) deadService {
	addr := nettest.RefusingAddr(b)
	return deadService{addr: addr, what: "where nothing listens", summary: "Service Unreachable",
		cause: "nothing accepts connections at " + addr + " (connection refused)", limit: client.DefaultRetryBudget + 30*time.Second}
}

// silentPort never answers, which counts as not reaching the service: one
// budget for the plan, not one per request in turn.
func silentPort(b *testing.B) deadService {
	addr := nettest.SilentAddr(b)
	return deadService{addr: addr, what: "that accepts connections and never answers", summary: "Service Not Answering",
		cause: "nothing answered at " + addr + " within request_timeout", limit: client.DefaultRetryBudget + client.DefaultRequestTimeout + 5*time.Second}
}

// deadServicePlan applies 40 connectors, then times their refresh against
// dead, checking each error names the cause.
func deadServicePlan(b *testing.B, eng *acctest.Engine, dead deadService) acctest.BenchRow {
	e := acctest.NewEnv(b, sandbox.Config{Jobs: 0})
	dir := acctest.ConfigDir(b, acctest.FleetHCL(40, "", false))
	eng.Run(b, dir, e.ServiceEnv(), "apply", "-auto-approve", "-input=false", "-no-color")
	start := time.Now()
	_, err := eng.Try(dir, e.ServiceEnv(providerenv.BaseURL+"=http://"+dead.addr), "plan", "-input=false", "-no-color")
	took := time.Since(start)
	out := strings.Join(strings.Fields(fmt.Sprint(err)), " ")
	failed := strings.Count(out, "Error: ")
	named := strings.Count(out, "Error: "+dead.summary)
	caused := strings.Count(out, dead.cause)
	return acctest.BenchRow{
		Figure: fmt.Sprintf("`plan` refreshing 40 connectors against a loopback port %s, defaults (retry budget %s, request_timeout %s)",
			dead.what, client.DefaultRetryBudget, client.DefaultRequestTimeout),
		Value:  fmt.Sprintf("failed after %v; %d errors, %d of them %s, %d naming the cause", took.Round(100*time.Millisecond), failed, named, dead.summary, caused),
		Target: fmt.Sprintf("fails within %s, each error naming the cause", dead.limit),
		Met:    err != nil && failed > 0 && named == failed && caused >= failed && took < dead.limit,
	}
}
