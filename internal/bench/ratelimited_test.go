package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The rate limit in BenchmarkRateLimited: requests a second per key, bursts alike.
const benchRate = 20

// rateStyle is a kind of rate-limited service, and the share an apply may see refused.
type rateStyle struct {
	label, headers string
	refused        float64 // percent, the target of one apply
	unlimited      bool    // no rate limit: the requests alone are measured
}

var rateStyles = []rateStyle{
	{label: "Retry-After alone", headers: sandbox.RateLimitHeadersNone, refused: 10},
	{label: "ietf", headers: sandbox.RateLimitHeadersIETF, refused: 2},
	{label: "x-ratelimit", headers: sandbox.RateLimitHeadersX, refused: 2},
	{label: "no limit", headers: sandbox.RateLimitHeadersNone, unlimited: true},
}

// perCreate is the requests a create cost, refusals included.
func (r rateRun) perCreate(creates int) float64 {
	return float64(r.requests) / float64(creates)
}

type rateRun struct {
	requests, refused, creates int64
	wall                       time.Duration
	failed                     int
}

func (r rateRun) refusedPercent() float64 {
	if r.requests == 0 {
		return 0
	}
	return 100 * float64(r.refused) / float64(r.requests)
}

// teamApplies runs teams applies of perTeam connectors at once under one key;
// it returns the run, the connectors made and the wall time against the floor.
// env selects a provider other than the tree's (nil: the tree's).
func teamApplies(b *testing.B, eng *acctest.Engine, style rateStyle, teams, perTeam int, oneWorkspace bool, env []string) (rateRun, int, float64) {
	var workspaces []string
	var applies []rateApply
	for t := range teams {
		a := rateApply{dir: acctest.ConfigDir(b, prefixedConnectorsHCL(perTeam, fmt.Sprintf("team %c", 'a'+t))), env: env}
		if !oneWorkspace {
			a.workspace = fmt.Sprintf("00000000-0000-4000-8000-%012d", t+1)
			workspaces = append(workspaces, a.workspace)
		}
		applies = append(applies, a)
	}
	e := limitedEnv(b, style, workspaces...)
	run := applyAtOnce(b, eng, e, applies...)
	if oneWorkspace {
		workspaces = []string{e.WorkspaceID}
	}
	made := 0
	for _, ws := range workspaces {
		made += len(e.Sandbox.ConnectorIDs(ws))
	}
	return run, made, float64(run.wall) / float64(floorOf(teams*perTeam))
}

func (r rateRun) teamsValue(made int, ratio float64) string {
	return fmt.Sprintf("%d failed (%d connectors made); %.2f requests a create; %.1f%% (%d of %d requests); %.2f× (%v)",
		r.failed, made, r.perCreate(made), r.refusedPercent(), r.refused, r.requests, ratio, r.wall.Round(100*time.Millisecond))
}

// floorOf is creates ÷ rate: no engine start, no first burst.
func floorOf(creates int) time.Duration {
	return time.Duration(creates) * time.Second / benchRate
}

// prefixedConnectorsHCL names by prefix, so applies sharing a workspace never
// ask for one name twice.
func prefixedConnectorsHCL(n int, prefix string) string {
	return fmt.Sprintf(`
resource "dataintegration_customer_service_connector" "c" {
  count       = %d
  name        = "%s ${count.index}"
  url         = "https://acme.example.com"
  agent_email = "agent@acme.com"
  token       = "%s-token-${count.index}"
  streams     = ["tickets"]
}
`, n, prefix, prefix)
}

// limitedEnv is a sandbox behind the bench's rate limit, its key bound to
// workspaces (none: the default one).
func limitedEnv(b *testing.B, style rateStyle, workspaces ...string) *acctest.Env {
	b.Helper()
	cfg := sandbox.Config{Jobs: 0, RateLimit: benchRate, RateLimitHeaders: style.headers}
	if style.unlimited {
		cfg.RateLimit = 0
	}
	for _, ws := range workspaces {
		cfg.Keys = append(cfg.Keys, sandbox.KeyBinding{APIKey: sandbox.DefaultAPIKey, WorkspaceID: ws})
	}
	e := acctest.NewEnv(b, cfg)
	e.RequireSandbox(b, "limit the rate and count the requests refused")
	return e
}

// rateApply is one apply of applyAtOnce; an empty workspace is e's.
type rateApply struct {
	dir, workspace string
	env            []string
}

// applyAtOnce runs applies at once and returns what they cost e's sandbox; a
// failed apply is counted and its output printed.
func applyAtOnce(b *testing.B, eng *acctest.Engine, e *acctest.Env, applies ...rateApply) rateRun {
	b.Helper()
	before := e.Sandbox.Stats()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
	)
	start := time.Now()
	for _, a := range applies {
		dir := a.dir
		// The last of a name wins in a command's environment.
		env := e.ServiceEnv(append([]string{"TF_DATA_DIR=" + filepath.Join(dir, ".data")}, acctest.NoLogVars...)...)
		if a.workspace != "" {
			env = append(env, providerenv.WorkspaceID+"="+a.workspace)
		}
		env = append(env, a.env...)
		wg.Go(func() {
			if _, err := eng.Try(dir, env, "apply", "-auto-approve", "-input=false", "-no-color"); err != nil {
				mu.Lock()
				failed++
				mu.Unlock()
				// The plan and progress before the errors run to thousands of lines.
				msg := err.Error()
				if i := strings.Index(msg, "\nError: "); i >= 0 {
					msg = msg[i:]
				}
				fmt.Fprintf(os.Stderr, "apply in %s failed:%s\n", dir, msg)
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	after := e.Sandbox.Stats()
	return rateRun{
		requests: after.Requests - before.Requests,
		refused:  after.RateLimited - before.RateLimited,
		creates:  after.ByRoute["POST "+acctest.RouteConnectors] - before.ByRoute["POST "+acctest.RouteConnectors],
		wall:     wall,
		failed:   failed,
	}
}

// seedConnectors goes through the side door, which spends none of the quota.
func seedConnectors(b *testing.B, e *acctest.Env, n int) {
	b.Helper()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("seeded %d", i)
	}
	if err := e.Sandbox.AddConnectors(e.WorkspaceID, names...); err != nil {
		b.Fatal(err)
	}
}

// fewBesideMany applies newOnes connectors beside seeded ones (p nil: the tree's).
func fewBesideMany(b *testing.B, eng *acctest.Engine, style rateStyle, p *benchProvider, seeded, newOnes int) rateRun {
	b.Helper()
	e := limitedEnv(b, style)
	seedConnectors(b, e, seeded)
	a := rateApply{dir: acctest.ConfigDir(b, acctest.FleetConnectorsHCL(newOnes))}
	if p != nil {
		a.env = p.env
	}
	few := applyAtOnce(b, eng, e, a)
	if few.failed > 0 {
		b.Fatalf("%s: the apply of %d connectors beside %d failed", style.label, newOnes, seeded)
	}
	expectConnectors(b, e, seeded+newOnes, fmt.Sprintf("after the apply of %d beside %d", newOnes, seeded))
	return few
}

func (r rateRun) fewValue() string {
	return fmt.Sprintf("%d answered, %d refused (%v)", r.requests-r.refused-2, r.refused, r.wall.Round(100*time.Millisecond))
}

func expectConnectors(b *testing.B, e *acctest.Env, n int, what string) {
	b.Helper()
	if got := len(e.Sandbox.ConnectorIDs(e.WorkspaceID)); got != n {
		b.Fatalf("%s: the workspace holds %d connectors, want %d", what, got, n)
	}
}

// BenchmarkRateLimited applies connectors behind 20 requests a second per key,
// against each way of telling the quota (Retry-After alone, IETF, X-RateLimit),
// and with no limit; a style alone: -bench 'BenchmarkRateLimited/ietf'.
// A missed target fails the run only with BENCH_RATE_TARGETS=1.
func BenchmarkRateLimited(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	eng := acctest.NewEngine(b)
	var rows []acctest.BenchRow
	before := baselineProvider(b, os.Getenv("BENCH_RATE_BASELINE"))
	for _, style := range rateStyles {
		b.Run(strings.ReplaceAll(style.label, " ", "_"), func(b *testing.B) {
			rows = append(rows, rateRows(b, eng, style, before)...)
		})
	}
	fmt.Printf("\nMachine: %s/%s, %d CPUs, %s; %s %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), filepath.Base(eng.Path), eng.Info)
	fmt.Printf("Rate limit %d requests a second per key, bursts of %d; the floor is the creates ÷ %d a second, computed.\n\n", benchRate, benchRate, benchRate)
	acctest.PrintFigures(rows)
	if os.Getenv("BENCH_RATE_TARGETS") == "1" {
		acctest.Missed(b, rows)
	}
}

// rateRows measures one style: an apply of 200, four of 100 at once (a
// workspace each, then one workspace), and 20 beside 1,500 behind a limit.
func rateRows(b *testing.B, eng *acctest.Engine, style rateStyle, before *benchProvider) []acctest.BenchRow {
	const (
		fleet    = 200
		teams    = 4
		perTeam  = 100
		seeded   = 1500
		newOnes  = 20
		teamsAll = teams * perTeam
	)
	var rows []acctest.BenchRow
	add := func(r acctest.BenchRow) {
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "measured: %s = %s\n", r.Figure, r.Value)
	}
	metric := strings.ReplaceAll(style.headers, "-", "")
	if style.unlimited {
		metric = "nolimit"
	}

	// 1. One apply of 200 connectors into an empty workspace.
	e := limitedEnv(b, style)
	one := applyAtOnce(b, eng, e, rateApply{dir: acctest.ConfigDir(b, acctest.FleetConnectorsHCL(fleet))})
	if one.failed > 0 {
		b.Fatalf("%s: the apply of %d connectors failed", style.label, fleet)
	}
	expectConnectors(b, e, fleet, "after the apply of 200")
	perCreate := one.perCreate(fleet)
	ratio := float64(one.wall) / float64(floorOf(fleet))
	if style.unlimited {
		add(acctest.BenchRow{
			Figure: fmt.Sprintf("%s: `apply` of %d connectors into an empty workspace: requests per create", style.label, fleet),
			Value:  fmt.Sprintf("%.2f (%d requests, %d of them creates; %v)", perCreate, one.requests, one.creates, one.wall.Round(100*time.Millisecond)),
			Target: "at most 1.5 requests a create", Met: perCreate <= 1.5,
		})
	} else {
		add(acctest.BenchRow{
			Figure: fmt.Sprintf("%s: `apply` of %d connectors into an empty workspace: requests per create, %% refused with 429, wall time against the floor (%v)", style.label, fleet, floorOf(fleet)),
			Value: fmt.Sprintf("%.2f (%d requests, %d of them creates); %.1f%% (%d); %.2f× (%v)",
				perCreate, one.requests, one.creates, one.refusedPercent(), one.refused, ratio, one.wall.Round(100*time.Millisecond)),
			Target: fmt.Sprintf("at most 1.5 requests a create; at most %g%% refused; at most 1.7×", style.refused),
			Met:    perCreate <= 1.5 && one.refusedPercent() <= style.refused && ratio <= 1.7,
		})
		b.ReportMetric(one.refusedPercent(), metric+"-%refused")
		b.ReportMetric(ratio, metric+"-×floor")
	}
	b.ReportMetric(perCreate, metric+"-req/create")

	// 2. Four applies of 100 at once sharing the key, a workspace each.
	four, made, ratio := teamApplies(b, eng, style, teams, perTeam, false, nil)
	row := acctest.BenchRow{
		Figure: fmt.Sprintf("%s: %d applies of %d connectors at once, one key, a workspace each: failed applies, requests a create, %% refused with 429, wall time against the floor (%v)", style.label, teams, perTeam, floorOf(teamsAll)),
		Value:  four.teamsValue(made, ratio),
		Target: "none fails; at most 1.5 requests a create; at most 5% refused; at most 2×",
		Met:    four.failed == 0 && made == teamsAll && four.perCreate(made) <= 1.5 && four.refusedPercent() <= 5 && ratio <= 2,
	}
	if style.unlimited {
		row.Target, row.Met = "none fails; at most 1.5 requests a create", four.failed == 0 && made == teamsAll && four.perCreate(made) <= 1.5
	}
	add(row)
	b.ReportMetric(four.perCreate(made), metric+"-req/create/4")

	// 2b. The same in one workspace: whole lists change under the others'
	// creates, so the name checks go by name.
	shared, made, ratio := teamApplies(b, eng, style, teams, perTeam, true, nil)
	add(acctest.BenchRow{
		Figure: fmt.Sprintf("%s: %d applies of %d connectors at once, one key, one workspace: failed applies, requests a create, %% refused with 429, wall time against the floor (%v)", style.label, teams, perTeam, floorOf(teamsAll)),
		Value:  shared.teamsValue(made, ratio),
		Target: "none fails",
		Met:    shared.failed == 0 && made == teamsAll,
	})
	b.ReportMetric(shared.perCreate(made), metric+"-req/create/4-in-1")
	if style.unlimited {
		return rows
	}

	// 3. 20 creates into 1,500 connectors, beside BENCH_RATE_BASELINE.
	few := fewBesideMany(b, eng, style, nil, seeded, newOnes)
	value := few.fewValue()
	if before != nil {
		was := fewBesideMany(b, eng, style, before, seeded, newOnes)
		value += fmt.Sprintf("; %s: %s", before.name, was.fewValue())
	}
	// The target counts the creates and name checks answered, without the
	// key checks; refusals are the rows above's share refused.
	add(acctest.BenchRow{
		Figure: fmt.Sprintf("%s: `apply` of %d connectors into a workspace of %d: requests answered besides the 2 key checks, and refused with 429", style.label, newOnes, seeded),
		Value:  value,
		Target: "at most 60 answered", Met: few.requests-few.refused-2 <= 60,
	})
	b.ReportMetric(float64(few.requests), metric+"-req/20-in-1500")
	return rows
}

// BenchmarkBlindWrites sets the tree beside BENCH_BLIND_BASELINE, taking
// turns for three rounds: four applies of 100 at once on one key, a
// workspace each, behind Retry-After alone (what a process's first writes,
// sent before anything tells the limit, have refused), and one apply of 200
// with no limit (what spacing those writes costs where nothing would refuse).
func BenchmarkBlindWrites(b *testing.B) {
	if b.N > 1 {
		b.Skip("one run is the measure: use -benchtime 1x, as `make bench` does")
	}
	before := baselineProvider(b, os.Getenv("BENCH_BLIND_BASELINE"))
	if before == nil {
		b.Skip("BENCH_BLIND_BASELINE names no provider to set beside the tree")
	}
	eng := acctest.NewEngine(b)
	const rounds = 3
	var refused, walls [2][]float64
	for range rounds {
		for i, p := range []*benchProvider{before, nil} {
			var env []string
			if p != nil {
				env = p.env
			}
			four, _, _ := teamApplies(b, eng, rateStyles[0], 4, 100, false, env)
			one := applyAtOnce(b, eng, limitedEnv(b, rateStyles[3]), rateApply{dir: acctest.ConfigDir(b, acctest.FleetConnectorsHCL(200)), env: env})
			if four.failed+one.failed > 0 {
				b.Fatalf("%d applies failed", four.failed+one.failed)
			}
			refused[i] = append(refused[i], four.refusedPercent())
			walls[i] = append(walls[i], one.wall.Seconds())
		}
	}
	figures := func(xs []float64, f string) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = fmt.Sprintf(f, x)
		}
		return strings.Join(s, ", ")
	}
	ratios := make([]float64, rounds)
	for i := range rounds {
		ratios[i] = walls[1][i] / walls[0][i]
	}
	rows := []acctest.BenchRow{
		{
			Figure: "Retry-After alone: 4 applies of 100 at once, one key, a workspace each: % refused with 429, each round",
			Value:  fmt.Sprintf("after %s; %s %s", figures(refused[1], "%.1f%%"), before.name, figures(refused[0], "%.1f%%")),
			Target: "at most 5% each round", Met: slices.Max(refused[1]) <= 5,
		},
		{
			Figure: "no limit: `apply` of 200 connectors: wall time after against before, each round",
			Value:  fmt.Sprintf("%s (after %s s; before %s s)", figures(ratios, "%.2f×"), figures(walls[1], "%.2f"), figures(walls[0], "%.2f")),
			Report: true,
		},
	}
	acctest.PrintFigures(rows)
	acctest.Missed(b, rows)
}
