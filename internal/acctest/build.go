package acctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builds are the providers built by this test binary, each once, in one
// folder that Main removes when the tests end: parallel tests share them.
var builds struct {
	mu   sync.Mutex
	dir  string
	revs map[string]*build
}

type build struct {
	once sync.Once
	dir  string
	err  error
}

const treeRev = ""

// builtProvider is the folder of the provider at rev (treeRev: the tree), built on first use.
func builtProvider(tb testing.TB, rev string) string {
	tb.Helper()
	builds.mu.Lock()
	if builds.revs == nil {
		builds.revs = map[string]*build{}
	}
	b := builds.revs[rev]
	if b == nil {
		b = &build{}
		builds.revs[rev] = b
	}
	builds.mu.Unlock()
	b.once.Do(func() { b.dir, b.err = buildAt(rev) })
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.dir
}

func buildsDir() (string, error) {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "dataintegration-providers-")
		if err != nil {
			return "", err
		}
		builds.dir = dir
	}
	return builds.dir, nil
}

func removeBuilds() {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir != "" {
		_ = os.RemoveAll(builds.dir)
		builds.dir = ""
	}
}

func buildAt(rev string) (string, error) {
	root, err := buildsDir()
	if err != nil {
		return "", err
	}
	bin, err := os.MkdirTemp(root, "bin-")
	if err != nil {
		return "", err
	}
	src, what := "../..", "the tree"
	if rev != treeRev {
		if out, err := exec.Command("git", "-C", "../..", "cat-file", "-e", rev+"^{commit}").CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s is not in this clone's history (%w: %s): building the provider at an earlier revision needs a clone with full history (git fetch --unshallow)", rev, err, out)
		}
		if src, err = os.MkdirTemp(root, "src-"); err != nil {
			return "", err
		}
		defer func() { _ = os.RemoveAll(src) }()
		if out, err := exec.Command("sh", "-c", `git -C ../.. archive "$0" | tar -x -C "$1"`, rev, src).CombinedOutput(); err != nil {
			return "", fmt.Errorf("extracting %s: %w\n%s", rev, err, out)
		}
		what = rev
	}
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-dataintegration"), ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the provider at %s: %w\n%s", what, err, out)
	}
	return bin, nil
}
