package bench

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// baselinesFile names the baselines `make bench` builds the provider at.
const baselinesFile = "testdata/baselines.txt"

// baseline is a line of baselinesFile.
type baseline struct {
	name, rev, what string
}

// readBaselines is baselinesFile by name; a line without a name, a revision
// and what it is, or a name given twice, fails tb.
func readBaselines(tb testing.TB) map[string]baseline {
	tb.Helper()
	f, err := os.Open(baselinesFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	out := map[string]baseline{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 3 {
			tb.Fatalf("%s:%d: want <name> <git revision> <what it is>, got %q", baselinesFile, n, sc.Text())
		}
		if _, ok := out[fields[0]]; ok {
			tb.Fatalf("%s:%d: %s is named twice", baselinesFile, n, fields[0])
		}
		out[fields[0]] = baseline{name: fields[0], rev: fields[1], what: strings.Join(fields[2:], " ")}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatalf("%s names no baseline", baselinesFile)
	}
	return out
}

// TestBaselines_resolveToCommits: every line of the file parses, and its
// revision is a commit of this clone's history.
func TestBaselines_resolveToCommits(t *testing.T) {
	baselines := readBaselines(t)
	out, err := exec.Command("git", "-C", "../..", "rev-parse", "--is-shallow-repository").Output()
	switch {
	case err != nil:
		t.Skipf("no git history to resolve the baselines in (%v)", err)
	case strings.TrimSpace(string(out)) == "true":
		t.Skip("a shallow clone lacks the baselines' commits: git fetch --unshallow to resolve them")
	}
	for _, b := range baselines {
		if out, err := exec.Command("git", "-C", "../..", "rev-parse", "--verify", b.rev+"^{commit}").CombinedOutput(); err != nil {
			t.Errorf("%s: %s names %s, which is no commit of this clone (%v: %s)", baselinesFile, b.name, b.rev, err, strings.TrimSpace(string(out)))
		}
	}
}

// TestBaselines_makeDefaultsAreNames: the GNUmakefile's default of each
// BENCH_*_BASELINE is a name of the file, never a revision of its own.
func TestBaselines_makeDefaultsAreNames(t *testing.T) {
	baselines := readBaselines(t)
	makefile, err := os.ReadFile("../../GNUmakefile")
	if err != nil {
		t.Fatal(err)
	}
	defaults := regexp.MustCompile(`(?m)^(BENCH_\w*BASELINE)\s*\?=\s*(\S*)`).FindAllStringSubmatch(string(makefile), -1)
	if len(defaults) == 0 {
		t.Fatal("the GNUmakefile sets no BENCH_*BASELINE default")
	}
	for _, d := range defaults {
		if _, ok := baselines[d[2]]; d[2] != "" && !ok {
			t.Errorf("GNUmakefile: %s ?= %s, which %s does not name", d[1], d[2], baselinesFile)
		}
	}
}
