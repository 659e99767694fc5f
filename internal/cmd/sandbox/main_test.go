package main

import (
	"errors"
	"flag"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// testEnv is a test's own environment of the command, which it changes as it goes.
type testEnv map[string]string

func (e testEnv) get(name string) string { return e[name] }

// TestCommand_helpExitsZero: -h prints the usage, naming each flag's environment
// variable, and exits 0.
func TestCommand_helpExitsZero(t *testing.T) {
	t.Parallel()
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
		for _, want := range []string{"Usage of dataintegration-sandbox:", "SANDBOX_ADDR", "SANDBOX_API_KEY", "SANDBOX_WORKSPACE_ID", "SANDBOX_JOBS", "SANDBOX_STATE", "SANDBOX_RUN_DURATION",
			"SANDBOX_ENVELOPE", "SANDBOX_MAX_PAGE_SIZE", "SANDBOX_PAST_END", "SANDBOX_FILTERS", "SANDBOX_EXTRA_FIELDS", "SANDBOX_NULL_FIELDS", "SANDBOX_TLS_CERT", "SANDBOX_TLS_KEY", "SANDBOX_PROXY", "SANDBOX_PROXY_AUTH", "SANDBOX_RATE_LIMIT", "SANDBOX_RATE_LIMIT_HEADERS"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("sandbox %s does not mention %s:\n%s", arg, want, out)
			}
		}
	}
	if code := exitCode(errors.New("bad flag")); code != 1 {
		t.Errorf("a bad flag exits %d, want 1", code)
	}
}

// TestCommand_everyFlagHasAVariable: each flag falls back to its environment
// variable, as the README says; a flag wins over its variable.
func TestCommand_everyFlagHasAVariable(t *testing.T) {
	t.Parallel()
	vars := testEnv{
		"SANDBOX_ADDR":         "127.0.0.1:0",
		"SANDBOX_API_KEY":      "env-key",
		"SANDBOX_WORKSPACE_ID": "11111111-1111-4111-8111-111111111111",
		"SANDBOX_JOBS":         "3",
		"SANDBOX_STATE":        filepath.Join(t.TempDir(), "state.json"),
		"SANDBOX_RUN_DURATION": "250ms",
	}
	cfg, l, err := options(nil, vars.get)
	if err != nil {
		t.Fatal(err)
	}
	addr := l.addr
	want := sandbox.KeyBinding{APIKey: "env-key", WorkspaceID: "11111111-1111-4111-8111-111111111111"}
	if addr != "127.0.0.1:0" || len(cfg.Keys) != 1 || cfg.Keys[0] != want || cfg.Jobs != 3 ||
		cfg.StatePath != vars["SANDBOX_STATE"] || cfg.RunDuration != 250*time.Millisecond {
		t.Errorf("from the environment: addr %q, %+v", addr, cfg)
	}
	cfg, _, err = options([]string{"-run-duration", "1s"}, vars.get)
	if err != nil || cfg.RunDuration != time.Second {
		t.Errorf("-run-duration 1s over SANDBOX_RUN_DURATION: %v, %v", cfg.RunDuration, err)
	}
	if _, _, err := options([]string{"-h"}, vars.get); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
	vars["SANDBOX_RUN_DURATION"] = "soon"
	if _, _, err := options(nil, vars.get); err == nil || !strings.Contains(err.Error(), "SANDBOX_RUN_DURATION") {
		t.Errorf("a bad SANDBOX_RUN_DURATION: %v", err)
	}
}

// TestCommand_rateLimitFlag: -rate-limit, or SANDBOX_RATE_LIMIT, sets the
// sandbox's rate limit, none by default; a negative one is refused at start.
func TestCommand_rateLimitFlag(t *testing.T) {
	t.Parallel()
	vars := testEnv{}
	if cfg, _, err := options(nil, vars.get); err != nil || cfg.RateLimit != 0 {
		t.Errorf("default: %d, %v", cfg.RateLimit, err)
	}
	vars["SANDBOX_RATE_LIMIT"] = "20"
	if cfg, _, err := options(nil, vars.get); err != nil || cfg.RateLimit != 20 {
		t.Errorf("from SANDBOX_RATE_LIMIT=20: %d, %v", cfg.RateLimit, err)
	}
	if cfg, _, err := options([]string{"-rate-limit", "5"}, vars.get); err != nil || cfg.RateLimit != 5 {
		t.Errorf("-rate-limit 5 over SANDBOX_RATE_LIMIT: %d, %v", cfg.RateLimit, err)
	}
	cfg, _, err := options([]string{"-rate-limit", "1"}, vars.get)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := srv.RateLimit(); r != 1 {
		t.Errorf("a sandbox of -rate-limit 1 has the limit %d", r)
	}
	if err := run([]string{"-addr", "127.0.0.1:0", "-rate-limit", "-1"}, vars.get); err == nil || !strings.Contains(err.Error(), "-rate-limit (SANDBOX_RATE_LIMIT) must not be negative, got -1") {
		t.Errorf("-rate-limit -1: %v", err)
	}
	vars["SANDBOX_RATE_LIMIT"] = "fast"
	if _, _, err := options(nil, vars.get); err == nil || !strings.Contains(err.Error(), "SANDBOX_RATE_LIMIT") {
		t.Errorf("a bad SANDBOX_RATE_LIMIT: %v", err)
	}
}

// TestCommand_rateLimitHeadersFlag: -rate-limit-headers, or
// SANDBOX_RATE_LIMIT_HEADERS, sets the style of the quota headers, none by
// default, in any letter case; another style is refused, naming the three.
func TestCommand_rateLimitHeadersFlag(t *testing.T) {
	t.Parallel()
	vars := testEnv{}
	if cfg, _, err := options(nil, vars.get); err != nil || cfg.RateLimitHeaders != sandbox.RateLimitHeadersNone {
		t.Errorf("default: %q, %v", cfg.RateLimitHeaders, err)
	}
	vars["SANDBOX_RATE_LIMIT_HEADERS"] = "IETF"
	cfg, _, err := options([]string{"-rate-limit", "2"}, vars.get)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if style := srv.RateLimitHeaders(); style != sandbox.RateLimitHeadersIETF {
		t.Errorf("from SANDBOX_RATE_LIMIT_HEADERS=IETF: %q", style)
	}
	if cfg, _, err := options([]string{"-rate-limit-headers", "x-ratelimit"}, vars.get); err != nil || cfg.RateLimitHeaders != sandbox.RateLimitHeadersX {
		t.Errorf("-rate-limit-headers x-ratelimit over SANDBOX_RATE_LIMIT_HEADERS: %q, %v", cfg.RateLimitHeaders, err)
	}
	for _, args := range [][]string{{"-rate-limit-headers", "draft"}, nil} {
		if args == nil {
			vars["SANDBOX_RATE_LIMIT_HEADERS"] = "draft"
		}
		if _, _, err := options(args, vars.get); err == nil || !strings.Contains(err.Error(), "SANDBOX_RATE_LIMIT_HEADERS") || !strings.Contains(err.Error(), `"draft" is not a style: give none, ietf or x-ratelimit`) {
			t.Errorf("%v, or SANDBOX_RATE_LIMIT_HEADERS=draft: %v", args, err)
		}
	}
}

// TestCommand_variantFlags: the flags of the variant, and their variables, reach the
// sandbox's configuration; "all" keeps every envelope field and "none" sends
// results alone; a variant the sandbox cannot honour is refused at start.
func TestCommand_variantFlags(t *testing.T) {
	t.Parallel()
	vars := testEnv{}
	cfg, _, err := options(nil, vars.get)
	if err != nil {
		t.Fatal(err)
	}
	if v := cfg.Variant; v.Envelope != nil || v.MaxPageSize != 0 || v.PastEnd != sandbox.PastEnd404 ||
		v.Filters != sandbox.FiltersExact || v.ExtraFields || v.NullFields != nil {
		t.Errorf("defaults: %+v", v)
	}
	vars["SANDBOX_ENVELOPE"] = "count, next_page"
	vars["SANDBOX_MAX_PAGE_SIZE"] = "25"
	vars["SANDBOX_PAST_END"] = "empty"
	vars["SANDBOX_FILTERS"] = "partial"
	vars["SANDBOX_EXTRA_FIELDS"] = "true"
	vars["SANDBOX_NULL_FIELDS"] = "data_source,,name"
	cfg, _, err = options(nil, vars.get)
	if err != nil {
		t.Fatal(err)
	}
	v := cfg.Variant
	if strings.Join(v.Envelope, ",") != "count,next_page" || v.MaxPageSize != 25 || v.PastEnd != sandbox.PastEndEmpty ||
		v.Filters != sandbox.FiltersPartial || !v.ExtraFields || strings.Join(v.NullFields, ",") != "data_source,name" {
		t.Errorf("from the environment: %+v", v)
	}
	for _, c := range []struct {
		arg      string
		envelope []string
	}{{"none", []string{}}, {"all", nil}, {"total_pages", []string{"total_pages"}}} {
		cfg, _, err = options([]string{"-envelope", c.arg, "-filters", "ignored", "-max-page-size", "7"}, vars.get)
		if err != nil {
			t.Fatal(err)
		}
		if v := cfg.Variant; (v.Envelope == nil) != (c.envelope == nil) || strings.Join(v.Envelope, ",") != strings.Join(c.envelope, ",") ||
			v.Filters != sandbox.FiltersIgnored || v.MaxPageSize != 7 {
			t.Errorf("-envelope %s over the environment: %+v", c.arg, v)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-envelope", "all,count"}, `-envelope (SANDBOX_ENVELOPE): "all" is not an envelope field: give all, none, or fields of count, next_page`},
		{[]string{"-envelope", "Count"}, `-envelope (SANDBOX_ENVELOPE): "Count" is not an envelope field`},
		{[]string{"-extra-fields", "false"}, `unexpected argument "false": the sandbox takes flags only, and a boolean flag takes its value after "=" (-extra-fields=false)`},
		{[]string{"-extra-fields", "true"}, `(-extra-fields=true)`},
		{[]string{"-jobs", "3", "extra"}, `unexpected argument "extra": the sandbox takes flags only`},
	} {
		if _, _, err := options(c.args, vars.get); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
	if _, _, err := options([]string{"-jobs", "3", "extra"}, vars.get); err == nil || strings.Contains(err.Error(), "boolean") {
		t.Errorf("a stray word that is no boolean is told about booleans: %v", err)
	}
	if cfg, _, err := options([]string{"-past-end", "EMPTY", "-filters", "Partial"}, vars.get); err != nil || cfg.Variant.PastEnd != sandbox.PastEndEmpty || cfg.Variant.Filters != sandbox.FiltersPartial {
		t.Errorf("keywords in another letter case: %+v, %v", cfg.Variant, err)
	}
	for _, arg := range []string{"NONE", " None "} {
		if cfg, _, err := options([]string{"-envelope", arg}, vars.get); err != nil || cfg.Variant.Envelope == nil || len(cfg.Variant.Envelope) != 0 {
			t.Errorf("-envelope %q: %+v, %v", arg, cfg.Variant, err)
		}
	}
	vars["SANDBOX_MAX_PAGE_SIZE"] = "many"
	if _, _, err := options(nil, vars.get); err == nil || !strings.Contains(err.Error(), "SANDBOX_MAX_PAGE_SIZE") {
		t.Errorf("a bad SANDBOX_MAX_PAGE_SIZE: %v", err)
	}
	vars["SANDBOX_MAX_PAGE_SIZE"] = ""
	vars["SANDBOX_EXTRA_FIELDS"] = "sometimes"
	if _, _, err := options(nil, vars.get); err == nil || !strings.Contains(err.Error(), `SANDBOX_EXTRA_FIELDS must be true or false, got "sometimes"`) {
		t.Errorf("a bad SANDBOX_EXTRA_FIELDS: %v", err)
	}
	vars["SANDBOX_EXTRA_FIELDS"] = ""
	if err := run([]string{"-addr", "127.0.0.1:0", "-filters", "fuzzy"}, vars.get); err == nil || !strings.Contains(err.Error(), `filters must be "exact", "partial" or "ignored"`) {
		t.Errorf("-filters fuzzy: %v", err)
	}
}

// TestCommand_reachable: a listener on every interface is given to the provider at
// 127.0.0.1, which it takes over http; a listener on one address at that
// address.
func TestCommand_reachable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ addr, want string }{
		{":0", "127.0.0.1:"}, {"0.0.0.0:0", "127.0.0.1:"}, {"[::]:0", "127.0.0.1:"},
		{"127.0.0.1:0", "127.0.0.1:"}, {"[::1]:0", "[::1]:"},
	} {
		ln, err := net.Listen("tcp", c.addr)
		if err != nil {
			t.Logf("%s: %v", c.addr, err) // no IPv6 here
			continue
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if got := reachable(ln.Addr()); got != c.want+strconv.Itoa(port) {
			t.Errorf("listening on %s: %q, want %q", c.addr, got, c.want+strconv.Itoa(port))
		}
		_ = ln.Close()
	}
}

// TestCommand_httpsBase: the base URL printed for https names a host the
// certificate covers: the listener's IP, else localhost, else its first
// host name.
func TestCommand_httpsBase(t *testing.T) {
	t.Parallel()
	ca := nettest.NewCA(t, "sandbox test CA")
	later := time.Now().Add(time.Hour)
	for _, c := range []struct {
		names   []string
		proxied bool
		want    string
	}{
		{[]string{"127.0.0.1", "localhost"}, false, "https://127.0.0.1:8443"},
		{[]string{"localhost"}, false, "https://localhost:8443"},
		{[]string{"sandbox.example.internal", "other.example.internal"}, false, "https://sandbox.example.internal:8443"},
		// Behind its proxy, the sandbox is named by a host that is not
		// loopback, which Go would not send through the proxy.
		{[]string{"sandbox.example.internal", "127.0.0.1"}, true, "https://sandbox.example.internal:8443"},
		{[]string{"localhost", "127.0.0.1"}, true, "https://127.0.0.1:8443"},
	} {
		leaf := ca.Issue(t, later, c.names...)
		if got := httpsBase(leaf.TLS.Leaf, "127.0.0.1:8443", c.proxied); got != c.want {
			t.Errorf("a certificate for %v (proxied: %v): %q, want %q", c.names, c.proxied, got, c.want)
		}
	}
}

// TestCommand_tlsFlagsGoTogether: a certificate without its key, or a key
// without its certificate, is refused before anything listens, and so is a
// proxy without https or credentials without a proxy; both are read from
// their variables.
func TestCommand_tlsFlagsGoTogether(t *testing.T) {
	t.Parallel()
	vars := testEnv{}
	for _, args := range [][]string{{"-tls-cert", "cert.pem"}, {"-tls-key", "key.pem"}} {
		if _, _, err := options(args, vars.get); err == nil || !strings.Contains(err.Error(), "-tls-cert (SANDBOX_TLS_CERT) and -tls-key (SANDBOX_TLS_KEY) go together") {
			t.Errorf("%v: %v", args, err)
		}
	}
	vars["SANDBOX_TLS_CERT"] = "cert.pem"
	vars["SANDBOX_TLS_KEY"] = "key.pem"
	if _, l, err := options(nil, vars.get); err != nil || l.certFile != "cert.pem" || l.keyFile != "key.pem" {
		t.Errorf("from the environment: %+v, %v", l, err)
	}
	if err := run([]string{"-addr", "127.0.0.1:0", "-tls-cert", filepath.Join(t.TempDir(), "missing.pem"), "-tls-key", "key.pem"}, vars.get); err == nil || !strings.Contains(err.Error(), "-tls-cert and -tls-key") {
		t.Errorf("a missing certificate file: %v", err)
	}
	vars["SANDBOX_TLS_CERT"] = ""
	vars["SANDBOX_TLS_KEY"] = ""
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-proxy", "127.0.0.1:3128"}, "-proxy (SANDBOX_PROXY) needs -tls-cert and -tls-key"},
		{[]string{"-proxy-auth", "ci:s3cret-pass"}, "-proxy-auth (SANDBOX_PROXY_AUTH) needs -proxy"},
		{[]string{"-tls-cert", "c.pem", "-tls-key", "k.pem", "-proxy", "127.0.0.1:3128", "-proxy-auth", "s3cret-pass"}, "must be user:password"},
	} {
		_, _, err := options(c.args, vars.get)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
