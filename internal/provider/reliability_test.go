package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccReliability_faults applies 12 connectors, 12 triggers and a jobs
// data source over 300 jobs while 30% of the requests fail (429, 500, 502,
// 503, 504) and every request waits: the apply completes, or fails with the
// status and leaves a state that matches the service. Once the faults stop,
// the next apply completes, nothing is doubled, and the plan is empty.
func TestAccReliability_faults(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 300})
	e.RequireSandbox(t, "inject faults")
	jobs, jobsVar := acctest.ActiveJobIDs(t, e, 12)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(12, "", true))
	vars := e.ServiceEnv(jobsVar)
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 500, 502, 503, 504}, LatencyMS: 5, Seed: 11}); err != nil {
		t.Fatal(err)
	}

	out, err := eng.Try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	under := e.Sandbox.Stats()
	if err != nil {
		if !regexp.MustCompile(`HTTP (429|500|502|503|504)`).MatchString(err.Error()) {
			t.Fatalf("the apply under faults failed without naming the status:\n%v", err)
		}
		c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs)
		t.Logf("the apply under faults failed cleanly: %d connectors and %d triggers done, the rest refused with their status", c, tr)
	} else if !strings.Contains(out, "Apply complete!") {
		t.Fatalf("apply: %s", out)
	}
	t.Logf("under faults: %d requests served, %d faults injected", under.Requests, under.Faults)

	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs); c != 12 || tr != 12 {
		t.Errorf("after the second apply: %d connectors and %d jobs triggered, want 12 and 12", c, tr)
	}
	if got := unquoteNumber(t, eng.Outputs(t, dir)["seeded_jobs_listed"]); got != 300 {
		t.Errorf("the data source listed %d seeded jobs, want 300", got)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

func unquoteNumber(t *testing.T, raw json.RawMessage) int {
	t.Helper()
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatalf("output %s is not a number: %v", raw, err)
	}
	return n
}

// TestAccReliability_interrupt interrupts an apply (SIGINT, as Ctrl-C does)
// while the provider waits out 503s with a Retry-After: Terraform exits
// promptly, the state matches the service, and the next apply converges
// with nothing doubled.
func TestAccReliability_interrupt(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 40})
	e.RequireSandbox(t, "slow the service down")
	jobs, jobsVar := acctest.ActiveJobIDs(t, e, 16)
	dir := acctest.ConfigDir(t, acctest.FleetHCL(16, "max_retries = 10", true))
	vars := e.ServiceEnv(jobsVar)
	// Four answers in five are a 503 asking to come back in a second: the
	// whole apply would take about 40 seconds.
	if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.8, Statuses: []int{503}, LatencyMS: 50, Seed: 5}); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(eng.Path, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=4")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.Env...), vars...)
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.Sandbox.Stats().Requests < 8 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	interrupted := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		took := time.Since(interrupted)
		t.Logf("Terraform exited %v after SIGINT (%v); %d requests served, %d faults", took.Round(time.Millisecond), err, e.Sandbox.Stats().Requests, e.Sandbox.Stats().Faults)
		if err == nil {
			t.Fatalf("the interrupted apply succeeded:\n%s", output.String())
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("Terraform still ran 15 s after SIGINT: the provider did not stop waiting\n%s", output.String())
	}
	c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs)
	t.Logf("interrupted with %d connectors and %d triggers done", c, tr)

	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	if c, tr := acctest.ExpectStateMatchesService(t, eng, dir, e, jobs); c != 16 || tr != 16 {
		t.Errorf("after the next apply: %d connectors and %d jobs triggered, want 16 and 16", c, tr)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccReliability_hardKill kills an apply that creates 20 connectors
// while answers are slow, with SIGKILL to Terraform and the provider (as a
// cancelled CI job or two Ctrl-C do). The engine loses what it created; the
// next apply creates the rest and refuses each name the service holds
// already, with the import block that adopts it; with those blocks, the
// apply after converges: 20 connectors in the service and the state, no
// name twice.
func TestAccReliability_hardKill(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "slow the service down and read its connectors' names")
	const n = 20
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
	vars := e.ServiceEnv()
	if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: 400}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(eng.Path, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.Env...), vars...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the provider too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(e.Sandbox.ConnectorIDs(e.WorkspaceID)) < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	time.Sleep(time.Second) // requests cut off end in the sandbox
	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	held, inState := e.Sandbox.ConnectorIDs(e.WorkspaceID), eng.StateIDs(t, dir, "dataintegration_customer_service_connector")
	t.Logf("killed: the service holds %d connectors, the state %d", len(held), len(inState))

	out, err := eng.Try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	lost := len(held) - len(inState)
	if got := strings.Count(out+fmt.Sprint(err), "Error: Connector Name Taken"); got != lost || (lost > 0) != (err != nil) {
		t.Fatalf("the apply after the kill refused %d names, want %d (held %d, in the state %d): %v\n%s", got, lost, len(held), len(inState), err, out)
	}
	byName := e.ConnectorsByName(t)
	inState = eng.StateIDs(t, dir, "dataintegration_customer_service_connector")
	t.Logf("next apply: %d names refused; the service holds %d connectors of %d names, the state %d", lost, len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), len(byName), len(inState))
	if len(byName) != n || len(e.Sandbox.ConnectorIDs(e.WorkspaceID)) != n {
		t.Fatalf("the service holds %d connectors of %d names, want %d, none twice: %v", len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), len(byName), n, byName)
	}

	// Adopt what the state lost with the import blocks the errors give.
	var imports strings.Builder
	for i := range n {
		id := byName[fmt.Sprintf("fleet %d", i)][0]
		if _, ok := inState[id]; !ok {
			fmt.Fprintf(&imports, "import {\n  to = dataintegration_customer_service_connector.c[%d]\n  id = %q\n}\n\n", i, e.WorkspaceID+"/"+id)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "imports.tf"), []byte(imports.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	if c, _ := acctest.ExpectStateMatchesService(t, eng, dir, e, nil); c != n {
		t.Errorf("after the imports: %d connectors in the state, want %d", c, n)
	}
	eng.ExpectConverged(t, dir, vars)
	eng.Run(t, dir, vars, "destroy", "-auto-approve", "-input=false")
}

// TestAccReliability_degradedService: with 30% of the requests answered
// 429 or 503, one apply of connectors and triggers succeeds, each job runs
// once, nothing is doubled, and the next plan is empty; with 30% of the
// reads answered 500, 502 or 504, a refresh plan succeeds in one run.
// make bench runs the same at 300 connectors and 60 triggers.
func TestAccReliability_degradedService(t *testing.T) {
	d := acctest.DegradedRun(t, acctest.NewEngine(t), 30, 12, 0.3)
	t.Logf("apply %v (%d requests, %d faults); refresh plan %v (%d requests, %d faults)",
		d.Apply.Round(time.Millisecond), d.Requests, d.Faults, d.Refresh.Round(time.Millisecond), d.RefreshReads, d.RefreshFaults)
}
