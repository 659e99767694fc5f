//go:build linux

package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// signalLatency slows each answer so that, when the signal comes, creates
// and the name checks around them are in flight.
const signalLatency = 1000

// TestAccReliability_sigtermGroup sends SIGTERM to the process group of an
// apply creating 20 connectors, as a CI runner cancelling a job or
// `timeout` does: the provider serves on until the engine stops it, so the
// engine's graceful stop records every connector the service holds.
func TestAccReliability_sigtermGroup(t *testing.T) {
	signalGroupApply(t, syscall.SIGTERM)
}

// TestAccReliability_sigintGroup is the same with SIGINT, which a terminal
// sends on Ctrl-C and some runners send first.
func TestAccReliability_sigintGroup(t *testing.T) {
	signalGroupApply(t, syscall.SIGINT)
}

// signalGroupApply signals the group of an apply once 5 of its 20
// connectors exist. The apply ends, leaving no process; the state holds
// what the service holds; the next apply creates the rest, with no name
// refused and none twice; the plan after is empty.
func signalGroupApply(t *testing.T, sig syscall.Signal) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "slow the service down and read its connectors")
	const n = 20
	dir := acctest.ConfigDir(t, acctest.FleetHCL(n, "", false))
	vars := e.ServiceEnv()
	if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: signalLatency}); err != nil {
		t.Fatal(err)
	}
	cmd, out := startGroupApply(t, eng, dir, vars)
	waitForConnectors(t, e, 5)
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		t.Logf("the apply ended on %v: %v", sig, err)
	case <-time.After(60 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("the apply still ran 60 s after %v (%v)\n%s", sig, <-exited, out())
	}
	if left := groupProcesses(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("processes of the apply outlived it: %v", left)
	}
	if strings.Contains(out(), "Plugin did not respond") {
		t.Errorf("the provider ended before the engine stopped it:\n%s", out())
	}
	if err := e.Sandbox.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	held, inState := len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), len(eng.StateIDs(t, dir, "dataintegration_customer_service_connector"))
	t.Logf("after %v: the service holds %d connectors, the state %d", sig, held, inState)
	if held >= n {
		t.Fatalf("the service holds %d connectors: the signal came after the apply's work, and tests nothing", held)
	}
	acctest.ExpectStateMatchesService(t, eng, dir, e, nil)

	rerun, err := eng.Try(dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatalf("the apply after %v failed: %v", sig, err)
	}
	if strings.Contains(rerun, "Connector Name Taken") {
		t.Errorf("the apply after %v refused a name:\n%s", sig, rerun)
	}
	byName := e.ConnectorsByName(t)
	if len(byName) != n || len(e.Sandbox.ConnectorIDs(e.WorkspaceID)) != n {
		t.Errorf("the service holds %d connectors of %d names, want %d, none twice: %v", len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), len(byName), n, byName)
	}
	if c, _ := acctest.ExpectStateMatchesService(t, eng, dir, e, nil); c != n {
		t.Errorf("after the rerun: %d connectors in the state, want %d", c, n)
	}
	eng.ExpectConverged(t, dir, vars)
}

// TestAccReliability_engineKilled kills the engine alone, with SIGKILL, in
// the middle of an apply: the provider it started, which no one can stop
// any more, exits at once.
func TestAccReliability_engineKilled(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "slow the service down and read its connectors")
	dir := acctest.ConfigDir(t, acctest.FleetHCL(20, "", false))
	if err := e.Sandbox.SetFaults(sandbox.Faults{LatencyMS: signalLatency}); err != nil {
		t.Fatal(err)
	}
	cmd, _ := startGroupApply(t, eng, dir, e.ServiceEnv())
	waitForConnectors(t, e, 1)
	providers := groupProcesses(cmd.Process.Pid)
	if len(providers) < 2 {
		t.Fatal("no provider process runs in the apply's group")
	}
	defer func() {
		for _, pid := range providers {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for left := groupProcesses(cmd.Process.Pid); len(left) > 0; left = groupProcesses(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the provider processes %v outlived the engine by 5 s", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startGroupApply starts an apply in a process group of its own, which the
// provider the engine starts joins, and returns a function that reads what
// it printed: a file, which no process left over can hold open.
func startGroupApply(t *testing.T, eng *acctest.Engine, dir string, vars []string) (*exec.Cmd, func() string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "apply.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(eng.Path, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(append(cmd.Environ(), eng.Env...), vars...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, func() string {
		b, _ := os.ReadFile(log)
		return string(b)
	}
}

func waitForConnectors(t *testing.T, e *acctest.Env, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(e.Sandbox.ConnectorIDs(e.WorkspaceID)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connectors after 60 s, want %d", len(e.Sandbox.ConnectorIDs(e.WorkspaceID)), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupProcesses lists the running processes of process group pgid from
// /proc; a zombie no one reaps has ended.
func groupProcesses(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, en := range entries {
		pid, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", en.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the command's closing parenthesis: state, ppid, pgrp.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 3 || fields[0] == "Z" || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}
