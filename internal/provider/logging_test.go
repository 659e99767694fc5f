package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

const loggingHCL = `
data "dataintegration_jobs" "all" {}

output "jobs" {
  value = length(data.dataintegration_jobs.all.ids)
}
`

// captureProviderStderr points the engine's dev override at a wrapper that
// runs the provider with its standard error, where terraform-plugin-log
// writes every line, appended to the returned file. The engine then sees no
// log line of the provider, whatever the level.
func captureProviderStderr(t *testing.T, eng *acctest.Engine) (env []string, stderr string) {
	t.Helper()
	dir := t.TempDir()
	stderr = filepath.Join(dir, "stderr.log")
	script := fmt.Sprintf("#!/bin/sh\nexec %q \"$@\" 2>>%q\n", eng.Provider, stderr)
	if err := os.WriteFile(filepath.Join(dir, "terraform-provider-dataintegration"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return []string{"TF_CLI_CONFIG_FILE=" + acctest.DevOverrideFile(t, dir)}, stderr
}

// TestAccLogging_quietUnlessCollected runs the same plan with and without
// the variables that make the engine collect the provider's logs: without
// them, the provider writes nothing at all; with TF_LOG=DEBUG, or
// TF_LOG_PROVIDER=DEBUG alone, it writes its lines and the engine's log
// holds a DEBUG line for the request, as the docs promise.
func TestAccLogging_quietUnlessCollected(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	dir := acctest.ConfigDir(t, loggingHCL)
	wrapped, stderr := captureProviderStderr(t, eng)
	vars := e.ServiceEnv(acctest.NoLogVars...)

	eng.Run(t, dir, append(vars, wrapped...), "plan", "-input=false")
	written, err := os.ReadFile(stderr)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(written) > 0 {
		t.Errorf("without TF_LOG, the provider wrote %d bytes of logs that the engine throws away; the first line: %s", len(written), strings.SplitN(string(written), "\n", 2)[0])
	}

	for _, level := range []string{"TF_LOG=DEBUG", "TF_LOG_PROVIDER=DEBUG"} {
		log := filepath.Join(t.TempDir(), "debug.log")
		eng.Run(t, dir, append(vars, level, "TF_LOG_PATH="+log), "plan", "-input=false")
		text, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("%s: %v", level, err)
		}
		fields := []string{`method=GET`, `path=/developers/workspaces/[0-9a-f-]+/jobs/ `, `status=200`, `attempt=1`, `duration_ms=\d+`}
		if !acctest.LogHasRequest(string(text), fields) {
			t.Errorf("with %s, the log has no DEBUG line of the request with %v", level, fields)
		}
		if strings.Contains(string(text), "[TRACE] provider") {
			t.Errorf("with %s, the log holds the provider's TRACE lines", level)
		}
		if err := os.Remove(stderr); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		eng.Run(t, dir, append(append(vars, wrapped...), level), "plan", "-input=false")
		if written, _ := os.ReadFile(stderr); !strings.Contains(string(written), `"API request"`) {
			t.Errorf("with %s, the provider wrote no line of its request: %.200s", level, written)
		}
	}
}

// TestAccLogging_atTheLevelKept runs a plan with a level above DEBUG, given
// as the engines read it (TF_LOG, or TF_LOG_PROVIDER over TF_LOG): the
// provider writes no line below it, as the engine would drop them all.
func TestAccLogging_atTheLevelKept(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	dir := acctest.ConfigDir(t, loggingHCL)
	wrapped, stderr := captureProviderStderr(t, eng)
	vars := append(e.ServiceEnv(acctest.NoLogVars...), wrapped...)
	for _, levels := range [][]string{{"TF_LOG=warn"}, {"TF_LOG=TRACE", "TF_LOG_PROVIDER=ERROR"}} {
		if err := os.Remove(stderr); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		eng.Run(t, dir, append(slices.Clone(vars), levels...), "plan", "-input=false")
		written, err := os.ReadFile(stderr)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, below := range []string{`"@level":"trace"`, `"@level":"debug"`, `"@level":"info"`} {
			if n := strings.Count(string(written), below); n > 0 {
				t.Errorf("with %v, the provider wrote %d lines with %s, which the engine drops", levels, n, below)
			}
		}
	}
}
