package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
)

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

// watchProviders samples the processes of binary every 5 ms while fn runs: CPU
// time misses at most each one's last 5 ms; zero without /proc. It finds
// them among the children of this process's children (the engines it
// runs) every 20 ms, and never by reading /proc's directory: at every
// sample that took a third of a core from the engine being measured.
func watchProviders(binary string, fn func()) usage {
	var (
		ticks = map[string]int64{}
		peak  int64
		seen  = map[string]bool{} // /proc/<pid> of every process looked at
		known = map[string]bool{} // of those, the live processes of binary
		found time.Time
	)
	discover := func() {
		for _, engine := range childrenOf(strconv.Itoa(os.Getpid())) {
			for _, pid := range childrenOf(engine) {
				dir := "/proc/" + pid
				if seen[dir] {
					continue
				}
				seen[dir] = true
				if target, err := os.Readlink(dir + "/exe"); err == nil && target == binary {
					known[dir] = true
				}
			}
		}
		found = time.Now()
	}
	sample := func() {
		if time.Since(found) >= 20*time.Millisecond {
			discover()
		}
		for dir := range known {
			stat, err1 := os.ReadFile(filepath.Join(dir, "stat"))
			status, err2 := os.ReadFile(filepath.Join(dir, "status"))
			if err1 != nil || err2 != nil {
				delete(known, dir) // ended; its last sample stands
				continue
			}
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

// childrenOf lists the children of process pid, from each of its threads'
// children file.
func childrenOf(pid string) []string {
	tasks, _ := os.ReadDir("/proc/" + pid + "/task")
	var out []string
	for _, t := range tasks {
		if b, err := os.ReadFile("/proc/" + pid + "/task/" + t.Name() + "/children"); err == nil {
			out = append(out, strings.Fields(string(b))...)
		}
	}
	return out
}

// benchCase is one way to run a plan: a provider and an environment.
type benchCase struct {
	p     *benchProvider
	label string
	env   []string
	dir   string // the configuration's folder, when not the plan's own
}

func (c benchCase) name() string { return c.p.name + ", " + c.label }

// medians runs each case's plan rounds times, the cases taking turns so that
// the machine's load falls on all alike; after, if set, checks each run.
func medians(tb testing.TB, eng *acctest.Engine, dir string, vars []string, cases []benchCase, rounds int, after func(benchCase), args ...string) map[string]usage {
	tb.Helper()
	runs := map[string][]usage{}
	for range rounds {
		for _, c := range cases {
			in := dir
			if c.dir != "" {
				in = c.dir
			}
			u := watchProviders(c.p.binary, func() {
				eng.Run(tb, in, append(append(slices.Clone(vars), c.p.env...), c.env...), append([]string{"plan", "-input=false"}, args...)...)
			})
			runs[c.name()] = append(runs[c.name()], u)
			if after != nil {
				after(c)
			}
		}
	}
	return medianUsage(runs)
}

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

// printBenchTable prints the figures, the plans side by side, and the machine.
func printBenchTable(eng *acctest.Engine, rows []acctest.BenchRow, side []sideRow, rounds int) {
	cpu := "unknown CPU"
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(info), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	fmt.Printf("\nMachine: %s/%s, %d CPUs (%s), %s; %s %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpu, runtime.Version(), filepath.Base(eng.Path), eng.Info)
	acctest.PrintFigures(rows)
	fmt.Printf("\nThe plans side by side, each figure the median of %d runs:\n\n", rounds)
	fmt.Println("| plan | provider | environment | wall time | provider CPU | provider peak memory | wall time against |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range side {
		fmt.Printf("| %s | %s | %s | %v | %v | %.1f MiB | %s |\n", r.plan, r.provider, r.env, r.u.wall.Round(time.Millisecond), r.u.cpu, float64(r.u.peak)/(1<<20), r.vs)
	}
	fmt.Println()
}
