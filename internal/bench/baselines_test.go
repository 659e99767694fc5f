package bench

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
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
	out := map[string]baseline{}
	for _, l := range acctest.ReadLines(tb, baselinesFile) {
		if len(l.Fields) < 3 {
			tb.Fatalf("%s:%d: want <name> <git revision> <what it is>, got %q", baselinesFile, l.N, strings.Join(l.Fields, " "))
		}
		if _, ok := out[l.Fields[0]]; ok {
			tb.Fatalf("%s:%d: %s is named twice", baselinesFile, l.N, l.Fields[0])
		}
		out[l.Fields[0]] = baseline{name: l.Fields[0], rev: l.Fields[1], what: strings.Join(l.Fields[2:], " ")}
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
