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
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func main() {
	err := run(os.Args[1:])
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
	}
	os.Exit(exitCode(err))
}

// exitCode is 0 after -h or -help, which print the usage as asked.
func exitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 1
}

// repeated is a flag that may be given more than once.
type repeated []string

func (r *repeated) String() string     { return fmt.Sprint(*r) }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// options reads the flags, each of which falls back to an environment
// variable, into the sandbox's configuration and the address to listen on.
func options(args []string) (sandbox.Config, string, error) {
	// The usage names the command as it was run: sandbox (go run, make
	// sandbox), dataintegration-sandbox (the release archives).
	fs := flag.NewFlagSet(strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"), flag.ContinueOnError)
	addr := fs.String("addr", env("SANDBOX_ADDR", "127.0.0.1:8089"), "address to listen on (\":0\" picks a free port) (SANDBOX_ADDR)")
	var keys, workspaces repeated
	fs.Var(&keys, "api-key", "an accepted API key (repeat to add keys, or repeat a key to bind it to another workspace; paired in order with -workspace) (SANDBOX_API_KEY, one key)")
	fs.Var(&workspaces, "workspace", "the workspace of the API key in the same position (SANDBOX_WORKSPACE_ID, one workspace)")
	jobsDefault, err := strconv.Atoi(env("SANDBOX_JOBS", strconv.Itoa(sandbox.DefaultJobs)))
	if err != nil {
		return sandbox.Config{}, "", fmt.Errorf("SANDBOX_JOBS: %w", err)
	}
	jobs := fs.Int("jobs", jobsDefault, "how many generated jobs each workspace starts with (SANDBOX_JOBS)")
	state := fs.String("state", os.Getenv("SANDBOX_STATE"), "file to keep state in (none: in memory) (SANDBOX_STATE)")
	runDefault, err := time.ParseDuration(env("SANDBOX_RUN_DURATION", sandbox.DefaultRunDuration.String()))
	if err != nil {
		return sandbox.Config{}, "", fmt.Errorf("SANDBOX_RUN_DURATION: %w", err)
	}
	runDuration := fs.Duration("run-duration", runDefault, "how long an execution runs before it succeeds (SANDBOX_RUN_DURATION)")

	// The variant: how the sandbox settles what the published API leaves
	// open, to play each service the API allows.
	envelope := fs.String("envelope", env("SANDBOX_ENVELOPE", "all"), "the envelope fields a list page carries besides results, comma-separated, of "+
		strings.Join(sandbox.EnvelopeFields, ", ")+"; \"all\" for every one, \"none\" for results alone (SANDBOX_ENVELOPE)")
	maxDefault, err := strconv.Atoi(env("SANDBOX_MAX_PAGE_SIZE", "0"))
	if err != nil {
		return sandbox.Config{}, "", fmt.Errorf("SANDBOX_MAX_PAGE_SIZE: %w", err)
	}
	maxPageSize := fs.Int("max-page-size", maxDefault, "the largest page served, to which a larger page_size is cut (0: 100) (SANDBOX_MAX_PAGE_SIZE)")
	pastEnd := fs.String("past-end", env("SANDBOX_PAST_END", sandbox.PastEnd404), "what a page past the last answers: \"404\" (Invalid page.) or \"empty\" (200, no results) (SANDBOX_PAST_END)")
	filters := fs.String("filters", env("SANDBOX_FILTERS", sandbox.FiltersExact), "how the filters connector_name, data_source, name and schema_name match: \"exact\" (case-sensitive), \"partial\" (contains, any case) or \"ignored\" (SANDBOX_FILTERS)")
	extraDefault, err := strconv.ParseBool(env("SANDBOX_EXTRA_FIELDS", "false"))
	if err != nil {
		return sandbox.Config{}, "", fmt.Errorf("SANDBOX_EXTRA_FIELDS must be true or false, got %q", os.Getenv("SANDBOX_EXTRA_FIELDS"))
	}
	extraFields := fs.Bool("extra-fields", extraDefault, "add fields the API does not list to each page, job and connector (SANDBOX_EXTRA_FIELDS)")
	nullFields := fs.String("null-fields", os.Getenv("SANDBOX_NULL_FIELDS"), "job fields sent as null in every job of a list, comma-separated, of "+
		strings.Join(sandbox.NullableFields, ", ")+" (SANDBOX_NULL_FIELDS)")
	if err := fs.Parse(args); err != nil {
		return sandbox.Config{}, "", err
	}
	if fs.NArg() > 0 {
		msg := fmt.Sprintf("unexpected argument %q: the sandbox takes flags only", fs.Arg(0))
		if _, err := strconv.ParseBool(fs.Arg(0)); err == nil {
			// Such as "false" in "-extra-fields false": a boolean flag
			// takes its value after "=".
			msg += fmt.Sprintf(", and a boolean flag takes its value after \"=\" (-extra-fields=%s)", fs.Arg(0))
		}
		return sandbox.Config{}, "", errors.New(msg)
	}
	envelopeFields, err := envelopeList(*envelope)
	if err != nil {
		return sandbox.Config{}, "", err
	}
	if len(keys) == 0 {
		keys = repeated{env("SANDBOX_API_KEY", sandbox.DefaultAPIKey)}
	}
	if len(workspaces) == 0 {
		workspaces = repeated{env("SANDBOX_WORKSPACE_ID", sandbox.DefaultWorkspaceID)}
	}
	if len(keys) != len(workspaces) {
		return sandbox.Config{}, "", fmt.Errorf("-api-key is given %d times and -workspace %d times: they pair in order", len(keys), len(workspaces))
	}
	cfg := sandbox.Config{
		Jobs:        *jobs,
		StatePath:   *state,
		RunDuration: *runDuration,
		Log:         log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds),
		Variant: sandbox.Variant{
			Envelope:    envelopeFields,
			MaxPageSize: *maxPageSize,
			// Keywords in any letter case; field names are the API's.
			PastEnd:     strings.ToLower(*pastEnd),
			Filters:     strings.ToLower(*filters),
			ExtraFields: *extraFields,
			NullFields:  list(*nullFields),
		},
	}
	for i := range keys {
		cfg.Keys = append(cfg.Keys, sandbox.KeyBinding{APIKey: keys[i], WorkspaceID: workspaces[i]})
	}
	return cfg, *addr, nil
}

func run(args []string) error {
	cfg, addr, err := options(args)
	if err != nil {
		return err
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("export DATAINTEGRATION_BASE_URL=http://%s\n", reachable(ln.Addr()))
	fmt.Printf("export DATAINTEGRATION_API_KEY=%s\n", cfg.Keys[0].APIKey)
	fmt.Printf("export DATAINTEGRATION_WORKSPACE_ID=%s\n", cfg.Keys[0].WorkspaceID)

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

// reachable is the address to give the provider for a listener on addr: a
// listener on every interface ("0.0.0.0", "[::]", or no host) is reached
// at 127.0.0.1, a loopback address the provider takes over http.
func reachable(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return addr.String()
}

// envelopeList reads -envelope: "all" (or nothing) is nil, every field;
// "none" is an empty list, results alone; else the fields named.
func envelopeList(v string) ([]string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "all":
		return nil, nil
	case "none":
		return []string{}, nil
	}
	fields := list(v)
	for _, f := range fields {
		if !slices.Contains(sandbox.EnvelopeFields, f) {
			return nil, fmt.Errorf("-envelope (SANDBOX_ENVELOPE): %q is not an envelope field: give all, none, or fields of %s, comma-separated", f, strings.Join(sandbox.EnvelopeFields, ", "))
		}
	}
	return fields, nil
}

// list splits a comma-separated flag, leaving out empty items.
func list(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}
