//go:build unix

package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// TestLifetime_watchParent calls gone once the parent changes, and not before.
func TestLifetime_watchParent(t *testing.T) {
	var parent atomic.Int64
	parent.Store(4242)
	done := make(chan struct{})
	go watchParent(func() int { return int(parent.Load()) }, time.Millisecond, func() { close(done) })
	select {
	case <-done:
		t.Fatal("gone called while the parent is the same")
	case <-time.After(50 * time.Millisecond):
	}
	parent.Store(1)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("gone not called after the parent changed")
	}
}

// The helper processes below run this test binary again, in the role named
// by lifetimeRole.
const lifetimeRole = "DATAINTEGRATION_LIFETIME_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(lifetimeRole) {
	case "provider":
		// As the provider: tied to its parent, it says so and waits.
		tieToEngine(hclog.NewNullLogger())
		fmt.Println("ready")
		select {}
	case "engine":
		// As the engine: starts a provider, prints its pid and waits.
		child := helper("provider")
		out, err := child.StdoutPipe()
		if err == nil {
			err = child.Start()
		}
		if err == nil {
			_, err = bufio.NewReader(out).ReadString('\n')
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(child.Process.Pid)
		select {}
	}
	os.Exit(m.Run())
}

func helper(role string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lifetimeRole+"="+role)
	cmd.Stderr = os.Stderr
	return cmd
}

// startHelper starts role and returns the first line it prints, and a
// channel that gets its end.
func startHelper(t *testing.T, role string) (*exec.Cmd, string, <-chan error) {
	t.Helper()
	cmd := helper(role)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	exited, done := make(chan error, 1), make(chan struct{})
	go func() { exited <- cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	if err != nil {
		t.Fatalf("%s: %v", role, err)
	}
	return cmd, strings.TrimSpace(line), exited
}

// TestLifetime_runSignals: the signals a runner sends to the run's process
// group do not end the provider; the engine does.
func TestLifetime_runSignals(t *testing.T) {
	cmd, _, exited := startHelper(t, "provider")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM} {
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			t.Fatalf("the provider ended on %v: %v", sig, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestLifetime_engineGone: the provider of an engine killed outright exits
// at once, leaving no orphan.
func TestLifetime_engineGone(t *testing.T) {
	engine, line, _ := startHelper(t, "engine")
	pid, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("engine printed %q", line)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }()
	if err := engine.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the provider (pid %d) outlived its engine by 5 s", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive says whether pid runs: a zombie that no one reaps has ended.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		// Without /proc (macOS) a zombie counts as running; with it, the
		// process has just ended.
		_, noProc := os.Stat("/proc/self")
		return noProc != nil
	}
	// The state follows the command's closing parenthesis.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
