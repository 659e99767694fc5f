// Package acctest is the tests' harness: an Env (env.go) for resource.Test,
// an Engine (engine.go) for the CLI run by hand, a ProtoProvider (proto.go)
// for protocol 6 with no engine; checks in checks.go, HCL in config.go; many
// connectors and DegradedRun in fleet.go; TLS and proxies in network.go;
// secret scans and Main in output.go; bench tables in bench.go; the release
// in release.go. A package whose tests run an engine calls Main from its
// TestMain. Package provider's unit helpers are in its helpers_test.go.
package acctest

import (
	"os"
	"strings"
	"testing"
)

// Line is a line of a list file: its number, and its fields split at blanks.
type Line struct {
	N      int
	Fields []string
}

// ReadLines reads a list file of the tests (the baselines of the upgrade
// test and of the bench): its lines that hold fields, less `#` comments. A
// file that cannot be read, or that lists nothing, fails tb.
func ReadLines(tb testing.TB, path string) []Line {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []Line
	for i, text := range strings.Split(string(b), "\n") {
		if fields := strings.Fields(text); len(fields) > 0 && !strings.HasPrefix(fields[0], "#") {
			out = append(out, Line{N: i + 1, Fields: fields})
		}
	}
	if len(out) == 0 {
		tb.Fatalf("%s lists nothing", path)
	}
	return out
}
