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

// BenchmarkDegraded applies 300 connectors and 60 triggers, then plans a
// refresh of them, against a healthy service and against one that answers
// 30% of the requests 429 or 503 (the reads of the plan: 500, 502 or 504),
// under the engine of TF_ACC_TERRAFORM_PATH: one apply and one plan must
// succeed, with nothing run twice or doubled (DegradedRun checks it); the
// figures are the time each takes under faults against without.
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

// gaveUpAfter is how a request that ran out of retries says so.
var gaveUpAfter = regexp.MustCompile(`gave up after (\d+) attempts over (\S+)(?:, at the end of|: the next attempt would wait \S+, past the end of) the retry budget \(5m0s\)`)

// BenchmarkServiceDown applies one connector against a service that answers
// every request 503 (Retry-After: 1 s): the apply fails within the default
// retry budget, with an error that says how many attempts it made over how
// long; the figure is how long it took to fail. Then it plans a refresh of
// 40 connectors against a loopback port where nothing listens: the plan
// fails within one default budget and 30 s, not one budget per batch of
// refreshes, every error naming the cause.
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

// BenchmarkServiceSilent plans a refresh of 40 connectors against a
// loopback port that accepts connections and never answers, on the
// defaults: the plan fails within one retry budget and one request_timeout,
// every error naming the host and port.
func BenchmarkServiceSilent(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	rows := []acctest.BenchRow{deadServicePlan(b, acctest.NewEngine(b), silentPort(b))}
	acctest.PrintFigures(rows)
	acctest.Missed(b, rows)
}

// deadService is a base_url where no service answers, and what each error
// must say of it.
type deadService struct {
	addr, what, summary, cause string
	limit                      time.Duration
}

// closedPort: nothing listens, so every connection is refused.
func closedPort(b *testing.B) deadService {
	addr := nettest.RefusingAddr(b)
	return deadService{addr: addr, what: "where nothing listens", summary: "Service Unreachable",
		cause: "nothing accepts connections at " + addr + " (connection refused)", limit: client.DefaultRetryBudget + 30*time.Second}
}

// silentPort accepts connections and never answers: no answer counts as not
// reaching the service, so the plan fails within one retry budget and one
// request_timeout, not a budget per request in turn.
func silentPort(b *testing.B) deadService {
	addr := nettest.SilentAddr(b)
	return deadService{addr: addr, what: "that accepts connections and never answers", summary: "Service Not Answering",
		cause: "nothing answered at " + addr + " within request_timeout", limit: client.DefaultRetryBudget + client.DefaultRequestTimeout + 5*time.Second}
}

// deadServicePlan applies 40 connectors, then plans their refresh with
// base_url at the dead service's address, on the defaults: the row of how
// long the plan took to fail, and whether each error named the cause.
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
