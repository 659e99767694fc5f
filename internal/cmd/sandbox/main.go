// Command sandbox runs the local stand-in for the data-integration service.
// It prints the provider's environment variables, logs one line per request
// and stops cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(1)
	}
}

// repeated is a flag that may be given more than once.
type repeated []string

func (r *repeated) String() string     { return fmt.Sprint(*r) }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func run(args []string) error {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	addr := fs.String("addr", env("SANDBOX_ADDR", "127.0.0.1:8089"), "address to listen on (\":0\" picks a free port)")
	var keys, workspaces repeated
	fs.Var(&keys, "api-key", "an accepted API key (repeat to add keys, or repeat a key to bind it to another workspace; paired in order with -workspace)")
	fs.Var(&workspaces, "workspace", "the workspace of the API key in the same position")
	jobsDefault, err := strconv.Atoi(env("SANDBOX_JOBS", strconv.Itoa(sandbox.DefaultJobs)))
	if err != nil {
		return fmt.Errorf("SANDBOX_JOBS: %w", err)
	}
	jobs := fs.Int("jobs", jobsDefault, "how many generated jobs each workspace starts with")
	state := fs.String("state", os.Getenv("SANDBOX_STATE"), "file to keep state in (none: in memory)")
	runDuration := fs.Duration("run-duration", sandbox.DefaultRunDuration, "how long an execution runs before it succeeds")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(keys) == 0 {
		keys = repeated{env("SANDBOX_API_KEY", sandbox.DefaultAPIKey)}
	}
	if len(workspaces) == 0 {
		workspaces = repeated{env("SANDBOX_WORKSPACE_ID", sandbox.DefaultWorkspaceID)}
	}
	if len(keys) != len(workspaces) {
		return fmt.Errorf("-api-key is given %d times and -workspace %d times: they pair in order", len(keys), len(workspaces))
	}
	cfg := sandbox.Config{
		Jobs:        *jobs,
		StatePath:   *state,
		RunDuration: *runDuration,
		Log:         log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds),
	}
	for i := range keys {
		cfg.Keys = append(cfg.Keys, sandbox.KeyBinding{APIKey: keys[i], WorkspaceID: workspaces[i]})
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("export DATAINTEGRATION_BASE_URL=http://%s\n", ln.Addr())
	fmt.Printf("export DATAINTEGRATION_API_KEY=%s\n", keys[0])
	fmt.Printf("export DATAINTEGRATION_WORKSPACE_ID=%s\n", workspaces[0])

	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Println("sandbox: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}
