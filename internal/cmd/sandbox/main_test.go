package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestHelpExitsZero: -h prints the usage, naming each flag's environment
// variable, and exits 0.
func TestHelpExitsZero(t *testing.T) {
	// Named as in the release archives: the usage names the command so.
	bin := filepath.Join(t.TempDir(), "dataintegration-sandbox")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the sandbox: %v\n%s", err, out)
	}
	for _, arg := range []string{"-h", "-help"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil {
			t.Errorf("sandbox %s: %v\n%s", arg, err, out)
		}
		for _, want := range []string{"Usage of dataintegration-sandbox:", "SANDBOX_ADDR", "SANDBOX_API_KEY", "SANDBOX_WORKSPACE_ID", "SANDBOX_JOBS", "SANDBOX_STATE", "SANDBOX_RUN_DURATION"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("sandbox %s does not mention %s:\n%s", arg, want, out)
			}
		}
	}
	if code := exitCode(errors.New("bad flag")); code != 1 {
		t.Errorf("a bad flag exits %d, want 1", code)
	}
}

// TestEveryFlagHasAVariable: each flag falls back to its environment
// variable, as the README says; a flag wins over its variable.
func TestEveryFlagHasAVariable(t *testing.T) {
	t.Setenv("SANDBOX_ADDR", "127.0.0.1:0")
	t.Setenv("SANDBOX_API_KEY", "env-key")
	t.Setenv("SANDBOX_WORKSPACE_ID", "11111111-1111-4111-8111-111111111111")
	t.Setenv("SANDBOX_JOBS", "3")
	t.Setenv("SANDBOX_STATE", filepath.Join(t.TempDir(), "state.json"))
	t.Setenv("SANDBOX_RUN_DURATION", "250ms")
	cfg, addr, err := options(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := sandbox.KeyBinding{APIKey: "env-key", WorkspaceID: "11111111-1111-4111-8111-111111111111"}
	if addr != "127.0.0.1:0" || len(cfg.Keys) != 1 || cfg.Keys[0] != want || cfg.Jobs != 3 ||
		cfg.StatePath != os.Getenv("SANDBOX_STATE") || cfg.RunDuration != 250*time.Millisecond {
		t.Errorf("from the environment: addr %q, %+v", addr, cfg)
	}
	cfg, _, err = options([]string{"-run-duration", "1s"})
	if err != nil || cfg.RunDuration != time.Second {
		t.Errorf("-run-duration 1s over SANDBOX_RUN_DURATION: %v, %v", cfg.RunDuration, err)
	}
	if _, _, err := options([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
	t.Setenv("SANDBOX_RUN_DURATION", "soon")
	if _, _, err := options(nil); err == nil || !strings.Contains(err.Error(), "SANDBOX_RUN_DURATION") {
		t.Errorf("a bad SANDBOX_RUN_DURATION: %v", err)
	}
}
