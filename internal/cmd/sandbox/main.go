// Command sandbox runs the local stand-in for the data-integration service
// (internal/sandbox/README.md, "Starting it").
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
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
	err := run(os.Args[1:], os.Getenv)
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

type repeated []string

func (r *repeated) String() string     { return fmt.Sprint(*r) }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type listen struct {
	addr, certFile, keyFile string
	proxyAddr, proxyAuth    string
}

// flags are the command's flags, each defaulting to its variable.
type flags struct {
	addr, state, envelope, pastEnd, filters, nullFields, rateHeaders *string
	certFile, keyFile, proxyAddr, proxyAuth                          *string
	jobs, maxPageSize, rateLimit                                     *int
	runDuration                                                      *time.Duration
	extraFields                                                      *bool
	keys, workspaces                                                 repeated
}

func options(args []string, env environ) (sandbox.Config, listen, error) {
	// The usage names the command as it was run: sandbox (go run, make
	// sandbox), dataintegration-sandbox (the release archives).
	fs := flag.NewFlagSet(strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"), flag.ContinueOnError)
	f, err := defineFlags(fs, env)
	if err != nil {
		return sandbox.Config{}, listen{}, err
	}
	if err := fs.Parse(args); err != nil {
		return sandbox.Config{}, listen{}, err
	}
	if err := f.check(fs); err != nil {
		return sandbox.Config{}, listen{}, err
	}
	cfg, err := f.config(env)
	if err != nil {
		return sandbox.Config{}, listen{}, err
	}
	return cfg, listen{addr: *f.addr, certFile: *f.certFile, keyFile: *f.keyFile, proxyAddr: *f.proxyAddr, proxyAuth: *f.proxyAuth}, nil
}

// defineFlags defines every flag on fs; a variable that does not parse as
// its flag's default is refused before any flag is read.
func defineFlags(fs *flag.FlagSet, env environ) (*flags, error) {
	f := &flags{}
	f.addr = fs.String("addr", env.or("SANDBOX_ADDR", "127.0.0.1:8089"), "address to listen on (\":0\" picks a free port) (SANDBOX_ADDR)")
	fs.Var(&f.keys, "api-key", "an accepted API key (repeat to add keys, or repeat a key to bind it to another workspace; paired in order with -workspace) (SANDBOX_API_KEY, one key)")
	fs.Var(&f.workspaces, "workspace", "the workspace of the API key in the same position (SANDBOX_WORKSPACE_ID, one workspace)")
	jobsDefault, err := strconv.Atoi(env.or("SANDBOX_JOBS", strconv.Itoa(sandbox.DefaultJobs)))
	if err != nil {
		return nil, fmt.Errorf("SANDBOX_JOBS: %w", err)
	}
	f.jobs = fs.Int("jobs", jobsDefault, "how many generated jobs each workspace starts with (SANDBOX_JOBS)")
	f.state = fs.String("state", env("SANDBOX_STATE"), "file to keep state in (none: in memory) (SANDBOX_STATE)")
	runDefault, err := time.ParseDuration(env.or("SANDBOX_RUN_DURATION", sandbox.DefaultRunDuration.String()))
	if err != nil {
		return nil, fmt.Errorf("SANDBOX_RUN_DURATION: %w", err)
	}
	f.runDuration = fs.Duration("run-duration", runDefault, "how long an execution runs before it succeeds (SANDBOX_RUN_DURATION)")

	f.envelope = fs.String("envelope", env.or("SANDBOX_ENVELOPE", "all"), "the envelope fields a list page carries besides results, comma-separated, of "+
		strings.Join(sandbox.EnvelopeFields, ", ")+"; \"all\" for every one, \"none\" for results alone (SANDBOX_ENVELOPE)")
	maxDefault, err := strconv.Atoi(env.or("SANDBOX_MAX_PAGE_SIZE", "0"))
	if err != nil {
		return nil, fmt.Errorf("SANDBOX_MAX_PAGE_SIZE: %w", err)
	}
	f.maxPageSize = fs.Int("max-page-size", maxDefault, "the largest page served, to which a larger page_size is cut (0: 100) (SANDBOX_MAX_PAGE_SIZE)")
	f.pastEnd = fs.String("past-end", env.or("SANDBOX_PAST_END", sandbox.PastEnd404), "what a page past the last answers: \"404\" (Invalid page.) or \"empty\" (200, no results) (SANDBOX_PAST_END)")
	f.filters = fs.String("filters", env.or("SANDBOX_FILTERS", sandbox.FiltersExact), "how the filters connector_name, data_source, name and schema_name match: \"exact\" (case-sensitive), \"partial\" (contains, any case) or \"ignored\" (SANDBOX_FILTERS)")
	extraDefault, err := strconv.ParseBool(env.or("SANDBOX_EXTRA_FIELDS", "false"))
	if err != nil {
		return nil, fmt.Errorf("SANDBOX_EXTRA_FIELDS must be true or false, got %q", env("SANDBOX_EXTRA_FIELDS"))
	}
	f.extraFields = fs.Bool("extra-fields", extraDefault, "add fields the API does not list to each page, job and connector (SANDBOX_EXTRA_FIELDS)")
	f.nullFields = fs.String("null-fields", env("SANDBOX_NULL_FIELDS"), "job fields sent as null in every job of a list, comma-separated, of "+
		strings.Join(sandbox.NullableFields, ", ")+" (SANDBOX_NULL_FIELDS)")
	rateDefault, err := strconv.Atoi(env.or("SANDBOX_RATE_LIMIT", "0"))
	if err != nil {
		return nil, fmt.Errorf("SANDBOX_RATE_LIMIT: %w", err)
	}
	f.rateLimit = fs.Int("rate-limit", rateDefault, "requests a second each API key may send to the API, in bursts of as many, beyond which it answers 429 with Retry-After (0: no limit) (SANDBOX_RATE_LIMIT)")
	f.rateHeaders = fs.String("rate-limit-headers", env.or("SANDBOX_RATE_LIMIT_HEADERS", sandbox.RateLimitHeadersNone), "the headers that tell each answer under the rate limit its quota: \"none\", \"ietf\" (RateLimit-Policy and RateLimit) or \"x-ratelimit\" (X-RateLimit-Limit, -Remaining, -Reset) (SANDBOX_RATE_LIMIT_HEADERS)")
	f.certFile = fs.String("tls-cert", env("SANDBOX_TLS_CERT"), "serve https with this PEM certificate file (the server's certificate, then any intermediates); needs -tls-key (SANDBOX_TLS_CERT)")
	f.keyFile = fs.String("tls-key", env("SANDBOX_TLS_KEY"), "the PEM file of the -tls-cert certificate's private key (SANDBOX_TLS_KEY)")
	f.proxyAddr = fs.String("proxy", env("SANDBOX_PROXY"), "also run an HTTP proxy at this address (such as 127.0.0.1:3128) that tunnels every CONNECT to the sandbox, as a corporate proxy would; needs -tls-cert (SANDBOX_PROXY)")
	f.proxyAuth = fs.String("proxy-auth", env("SANDBOX_PROXY_AUTH"), "user:password the proxy asks for, answering 407 without them (SANDBOX_PROXY_AUTH)")
	return f, nil
}

// check runs before the sandbox is made.
func (f *flags) check(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		msg := fmt.Sprintf("unexpected argument %q: the sandbox takes flags only", fs.Arg(0))
		if _, err := strconv.ParseBool(fs.Arg(0)); err == nil {
			// Such as "false" in "-extra-fields false".
			msg += fmt.Sprintf(", and a boolean flag takes its value after \"=\" (-extra-fields=%s)", fs.Arg(0))
		}
		return errors.New(msg)
	}
	if (*f.certFile == "") != (*f.keyFile == "") {
		return errors.New("-tls-cert (SANDBOX_TLS_CERT) and -tls-key (SANDBOX_TLS_KEY) go together: give both to serve https, or neither")
	}
	switch {
	case *f.proxyAddr != "" && *f.certFile == "":
		return errors.New("-proxy (SANDBOX_PROXY) needs -tls-cert and -tls-key: the provider takes http only on a loopback address, which Go never sends through a proxy")
	case *f.proxyAuth != "" && *f.proxyAddr == "":
		return errors.New("-proxy-auth (SANDBOX_PROXY_AUTH) needs -proxy (SANDBOX_PROXY)")
	case *f.proxyAuth != "" && !strings.Contains(*f.proxyAuth, ":"):
		// The value is not echoed: it holds a password.
		return errors.New("-proxy-auth (SANDBOX_PROXY_AUTH) must be user:password")
	}
	// The sandbox's own refusal would name its field, requests_per_second,
	// which the command has no flag of.
	if *f.rateLimit < 0 {
		return fmt.Errorf("-rate-limit (SANDBOX_RATE_LIMIT) must not be negative, got %d", *f.rateLimit)
	}
	if !slices.Contains(sandbox.RateLimitHeaderStyles, strings.ToLower(*f.rateHeaders)) {
		return fmt.Errorf("-rate-limit-headers (SANDBOX_RATE_LIMIT_HEADERS): %q is not a style: give none, ietf or x-ratelimit", *f.rateHeaders)
	}
	return nil
}

// config binds each API key to the workspace in its position.
func (f *flags) config(env environ) (sandbox.Config, error) {
	envelopeFields, err := envelopeList(*f.envelope)
	if err != nil {
		return sandbox.Config{}, err
	}
	keys, workspaces := f.keys, f.workspaces
	if len(keys) == 0 {
		keys = repeated{env.or("SANDBOX_API_KEY", sandbox.DefaultAPIKey)}
	}
	if len(workspaces) == 0 {
		workspaces = repeated{env.or("SANDBOX_WORKSPACE_ID", sandbox.DefaultWorkspaceID)}
	}
	if len(keys) != len(workspaces) {
		return sandbox.Config{}, fmt.Errorf("-api-key is given %d times and -workspace %d times: they pair in order", len(keys), len(workspaces))
	}
	cfg := sandbox.Config{
		Jobs:        *f.jobs,
		StatePath:   *f.state,
		RunDuration: *f.runDuration,
		RateLimit:   *f.rateLimit,
		Log:         log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds),
		Variant: sandbox.Variant{
			Envelope:    envelopeFields,
			MaxPageSize: *f.maxPageSize,
			// Keywords in any letter case; field names are the API's.
			PastEnd:     strings.ToLower(*f.pastEnd),
			Filters:     strings.ToLower(*f.filters),
			ExtraFields: *f.extraFields,
			NullFields:  list(*f.nullFields),
		},
		// The sandbox reads the style in any letter case.
		RateLimitHeaders: *f.rateHeaders,
	}
	for i := range keys {
		cfg.Keys = append(cfg.Keys, sandbox.KeyBinding{APIKey: keys[i], WorkspaceID: workspaces[i]})
	}
	return cfg, nil
}

func run(args []string, env environ) error {
	cfg, l, err := options(args, env)
	if err != nil {
		return err
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		return err
	}
	var cert *tls.Certificate
	if l.certFile != "" {
		c, err := tls.LoadX509KeyPair(l.certFile, l.keyFile)
		if err != nil {
			return fmt.Errorf("-tls-cert and -tls-key: %w", err)
		}
		cert = &c
	}
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		return err
	}
	base := "http://" + reachable(ln.Addr())
	var proxyURL string
	if l.proxyAddr != "" {
		if proxyURL, err = serveProxy(l, reachable(ln.Addr())); err != nil {
			return err
		}
	}
	if cert != nil {
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{*cert}, MinVersion: tls.VersionTLS12})
		base = httpsBase(cert.Leaf, reachable(ln.Addr()), proxyURL != "")
	}
	fmt.Printf("export DATAINTEGRATION_BASE_URL=%s\n", base)
	fmt.Printf("export DATAINTEGRATION_API_KEY=%s\n", cfg.Keys[0].APIKey)
	fmt.Printf("export DATAINTEGRATION_WORKSPACE_ID=%s\n", cfg.Keys[0].WorkspaceID)
	if proxyURL != "" {
		fmt.Printf("export HTTPS_PROXY=%s\n", proxyURL)
	}

	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	// Requests that "hang" faults hold would keep Shutdown waiting.
	hs.RegisterOnShutdown(srv.Close)
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

// reachable gives 127.0.0.1 for a listener on every interface: the
// provider takes http on a loopback address.
func reachable(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return addr.String()
}

// httpsBase names a host the certificate covers: the address's IP, else
// localhost, else its first host name (README.md, "https and a proxy").
func httpsBase(leaf *x509.Certificate, addr string, proxied bool) string {
	host, port, _ := net.SplitHostPort(addr)
	switch {
	case proxied && leaf != nil && len(leaf.DNSNames) > 0 && leaf.DNSNames[0] != "localhost":
		// Go sends nothing for localhost or a loopback address through a
		// proxy: the base URL names the certificate's host.
		host = leaf.DNSNames[0]
	case leaf == nil || leaf.VerifyHostname(host) == nil:
	case leaf.VerifyHostname("localhost") == nil:
		host = "localhost"
	case len(leaf.DNSNames) > 0:
		host = leaf.DNSNames[0]
		log.Printf("sandbox: the certificate names neither %s nor localhost: the base URL names %s, which this machine must resolve to the sandbox's address (or use -proxy)", addr, host)
	default:
		log.Printf("sandbox: the certificate names no host the provider could reach it at; the provider will refuse it")
	}
	return "https://" + net.JoinHostPort(host, port)
}

// serveProxy returns the proxy's URL as HTTPS_PROXY takes it.
func serveProxy(l listen, upstream string) (string, error) {
	user, password, _ := strings.Cut(l.proxyAuth, ":")
	ln, err := net.Listen("tcp", l.proxyAddr)
	if err != nil {
		return "", fmt.Errorf("-proxy: %w", err)
	}
	hs := &http.Server{Handler: sandbox.NewProxy(user, password, upstream), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	u := url.URL{Scheme: "http", Host: reachable(ln.Addr())}
	if user != "" {
		u.User = url.UserPassword(user, password)
	}
	return u.String(), nil
}

// envelopeList: "all" is nil, every field; "none" is empty, results alone.
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

func list(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// environ reads the command's variables: os.Getenv, or a test's own.
type environ func(string) string

func (env environ) or(name, def string) string {
	if v := env(name); v != "" {
		return v
	}
	return def
}
