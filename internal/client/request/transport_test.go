package request_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest/testclient"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
)

// proxyEnv sets the proxy variables for the clients the test makes next,
// in both cases, so that the machine's own play no part.
func proxyEnv(t *testing.T, httpsProxy, noProxy string) {
	t.Helper()
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "REQUEST_METHOD"} {
		t.Setenv(k, "")
	}
	t.Setenv("HTTPS_PROXY", httpsProxy)
	t.Setenv("NO_PROXY", noProxy)
}

// tlsService serves 404 to every request over TLS with a certificate of
// ca for names, valid until notAfter, and counts what reached it.
func tlsService(t *testing.T, ca *nettest.CA, notAfter time.Time, names ...string) (port string, reached *atomic.Int64) {
	t.Helper()
	reached = &atomic.Int64{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		http.Error(w, `{"detail": "Not found."}`, http.StatusNotFound)
	})
	return nettest.ServeTLS(t, h, ca.Issue(t, notAfter, names...)), reached
}

// getConnector asks for a connector with a deadline, as an operation with
// timeouts does: a failure that is retried would run into it.
func getConnector(t *testing.T, c *client.Client) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.GetConnector(ctx, testWS, "c-1")
	if err == nil {
		t.Fatal("want an error")
	}
	return err
}

// TestTransport_caCertificate: a service under a private CA fails at the
// first request, without a retry, until the client trusts that CA; then it
// is reached, alone or in a bundle.
func TestTransport_caCertificate(t *testing.T) {
	proxyEnv(t, "", "")
	ca, other := nettest.NewCA(t, "ACME Private Root"), nettest.NewCA(t, "Other Root")
	port, reached := tlsService(t, ca, time.Now().Add(time.Hour), "127.0.0.1")
	base := "https://127.0.0.1:" + port

	start := time.Now()
	err := getConnector(t, testclient.New(t, base, func(c *client.Config) { c.MaxRetries = client.NoRetryLimit }))
	ce := connectFailure(t, err, client.UntrustedCertificate)
	if time.Since(start) > 5*time.Second || client.OutOfTime(err) {
		t.Errorf("an untrusted certificate was retried: %v", err)
	}
	if want := `the certificate of 127.0.0.1:` + port + ` is signed by an authority this machine does not trust (issuer "ACME Private Root")`; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}
	if ce.Cert == nil || reached.Load() != 0 {
		t.Errorf("certificate %v, %d requests reached the service", ce.Cert, reached.Load())
	}

	for name, pem := range map[string]string{"the CA": ca.PEM, "a bundle": other.PEM + "\n# ACME\n" + ca.PEM} {
		err := getConnector(t, testclient.New(t, base, func(c *client.Config) { c.CACertificate = pem }))
		if client.StatusCode(err) != http.StatusNotFound {
			t.Errorf("trusting %s: %v, want the service's 404", name, err)
		}
	}
	if err := getConnector(t, testclient.New(t, base, func(c *client.Config) { c.CACertificate = other.PEM })); !errors.As(err, &ce) || ce.Failure != client.UntrustedCertificate {
		t.Errorf("trusting another CA: %v", err)
	}
	if _, err := client.New(client.Config{BaseURL: base, CACertificate: "not a certificate"}); !errors.Is(err, client.ErrNoCertificate) {
		t.Errorf("a CA without a certificate: %v", err)
	}
}

// TestTransport_certificateNameAndTime: a host no resolver knows, a
// certificate for another host, or out of its validity, is named as such,
// and not retried.
func TestTransport_certificateNameAndTime(t *testing.T) {
	t.Run("unknown host", func(t *testing.T) {
		proxyEnv(t, "", "")
		// .invalid names no host anywhere (RFC 2606).
		err := getConnector(t, testclient.New(t, "https://dataintegration.invalid", func(c *client.Config) { c.MaxRetries = client.NoRetryLimit }))
		var dns *net.DNSError
		if errors.As(err, &dns) && !dns.IsNotFound {
			t.Skipf("this machine's resolver does not answer: %v", err)
		}
		_ = connectFailure(t, err, client.UnknownHost)
		if want := "this machine's resolver does not know the host dataintegration.invalid"; !strings.Contains(err.Error(), want) || client.OutOfTime(err) {
			t.Errorf("error %q, want it to say %q, at once", err, want)
		}
	})

	proxyEnv(t, "", "")
	ca := nettest.NewCA(t, "ACME Private Root")
	trust := func(c *client.Config) { c.CACertificate = ca.PEM; c.MaxRetries = client.NoRetryLimit }

	port, _ := tlsService(t, ca, time.Now().Add(time.Hour), "api.example.com", "api-2.example.com")
	err := getConnector(t, testclient.New(t, "https://127.0.0.1:"+port, trust))
	_ = connectFailure(t, err, client.CertificateNameMismatch)
	if want := "is for api.example.com, api-2.example.com, not for 127.0.0.1"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}

	expired := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	port, _ = tlsService(t, ca, expired, "127.0.0.1")
	err = getConnector(t, testclient.New(t, "https://127.0.0.1:"+port, trust))
	_ = connectFailure(t, err, client.CertificateExpired)
	if want := "expired at " + expired.Format(time.RFC3339) + " (this machine's clock says"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}
}

// TestTransport_proxy: HTTPS_PROXY carries every request to the service
// through a CONNECT tunnel, credentials included; NO_PROXY naming the host
// sends nothing to the proxy; a proxy that refuses, or that wants other
// credentials, is named as such, and its credentials never show.
func TestTransport_proxy(t *testing.T) {
	ca := nettest.NewCA(t, "ACME Private Root")
	port, reached := tlsService(t, ca, time.Now().Add(time.Hour), "sandbox.localhost")
	// A name no resolver knows: only the proxy, which tunnels every host
	// to loopback, can reach it.
	base := "https://sandbox.localhost:" + port
	trust := func(c *client.Config) { c.CACertificate = ca.PEM; c.MaxRetries = 0 }
	const password = "pr0xy-s3cret+x"
	proxy := nettest.ServeProxy(t, "ci-runner", password)
	// A proxy that cannot reach the host asked, as for a typo in base_url.
	refuser := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "cannot resolve", http.StatusBadGateway)
	}))
	t.Cleanup(refuser.Close)

	t.Run("through the proxy", func(t *testing.T) {
		proxyEnv(t, proxy.URL, "")
		var logged strings.Builder
		c := testclient.New(t, base, trust, func(c *client.Config) {
			c.Log = func(_ context.Context, msg string, fields map[string]any) { fmt.Fprintln(&logged, msg, fields) }
		})
		before := reached.Load()
		for range 3 {
			if err := getConnector(t, c); client.StatusCode(err) != http.StatusNotFound {
				t.Fatalf("through the proxy: %v", err)
			}
		}
		if got := proxy.Targets(); len(got) == 0 || got[0] != "sandbox.localhost:"+port || reached.Load()-before != 3 {
			t.Errorf("the proxy tunnelled %v; %d requests reached the service", got, reached.Load()-before)
		}
		if strings.Contains(logged.String(), password) || strings.Contains(logged.String(), "ci-runner") {
			t.Errorf("the log shows the proxy's credentials: %s", logged.String())
		}
	})

	t.Run("NO_PROXY naming the host", func(t *testing.T) {
		proxyEnv(t, proxy.URL, "example.com,sandbox.localhost")
		before := len(proxy.Targets())
		err := getConnector(t, testclient.New(t, base, trust))
		if n := len(proxy.Targets()) - before; n != 0 {
			t.Errorf("the proxy tunnelled %d connections for a host NO_PROXY names", n)
		}
		// Straight to a name only the proxy knew: no such host, unless
		// this machine resolves *.localhost to itself.
		var ce *client.ConnectError
		if client.StatusCode(err) != http.StatusNotFound && (!errors.As(err, &ce) || ce.Failure != client.UnknownHost) {
			t.Errorf("without the proxy: %v", err)
		}
	})

	for _, c := range []struct {
		name, proxyURL string
		want           client.ConnectFailure
		says           string
	}{
		{"no credentials", "http://" + proxy.Addr, client.ProxyAuthRequired, "asks for credentials (407 Proxy Authentication Required)"},
		{"wrong credentials", "http://someone-else:" + password + "@" + proxy.Addr, client.ProxyAuthRequired, "refused the credentials given"},
		// MaxRetries is 0 here: "retried" below is Permanent's answer.
		{"refusing", "http://ci-runner:" + password + "@" + nettest.RefusingAddr(t), client.ProxyRefused, "connection refused"},
		{"no scheme, refusing", "ci-runner:" + password + "@" + nettest.RefusingAddr(t), client.ProxyRefused, "connection refused"},
		{"https to an http proxy", "https://ci-runner:" + password + "@" + proxy.Addr, client.ProxyRefused, "does not speak TLS, though its URL begins with https://"},
		{"refusing the tunnel", "http://" + strings.TrimPrefix(refuser.URL, "http://"), client.ProxyRefused, "would not open a tunnel to sandbox.localhost:" + port + ": the proxy answered 502 Bad Gateway to CONNECT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			proxyEnv(t, c.proxyURL, "")
			err := getConnector(t, testclient.New(t, base, trust))
			ce := connectFailure(t, err, c.want)
			if !ce.Permanent() {
				t.Errorf("%v would be retried", err)
			}
			if !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "the proxy at 127.0.0.1:") || ce.Proxy == "" {
				t.Errorf("error %q, want it to name the proxy and say %q", err, c.says)
			}
			if strings.Contains(err.Error(), password) {
				t.Errorf("the error shows the proxy's password: %v", err)
			}
		})
	}

	t.Run("a proxy URL that does not parse", func(t *testing.T) {
		// A password with a / left as it is, whether the host would go
		// through the proxy, is in NO_PROXY, or is loopback: a typo shows
		// before the first request, not as a failure of some other kind.
		for _, c := range []struct{ value, base, noProxy string }{
			{"http://ci-runner:pass/word@" + proxy.Addr, base, ""},
			{"http://ci-runner:pass/word@" + proxy.Addr, base, "sandbox.localhost"},
			{"http://ci-runner:pass/word@" + proxy.Addr, "http://127.0.0.1:" + port, ""},
			{"%zz", base, ""},
			{"::", base, ""},
			{"http://%zz", "http://localhost:" + port, ""},
			{"ftp://" + proxy.Addr, base, ""},
		} {
			proxyEnv(t, c.value, c.noProxy)
			_, err := client.New(client.Config{BaseURL: c.base})
			if !errors.Is(err, client.ErrProxyURL) || strings.Contains(err.Error(), "pass/word") {
				t.Errorf("HTTPS_PROXY=%q, NO_PROXY=%q, base %s: error %v, want ErrProxyURL", c.value, c.noProxy, c.base, err)
			}
		}
	})

	t.Run("HTTP_PROXY plays no part", func(t *testing.T) {
		proxyEnv(t, "", "")
		t.Setenv("HTTP_PROXY", "%zz")
		if _, err := client.New(client.Config{BaseURL: "http://127.0.0.1:" + port}); err != nil {
			t.Errorf("an HTTP_PROXY that is not a URL, against loopback http: %v", err)
		}
		if _, err := client.New(client.Config{BaseURL: base}); err != nil {
			t.Errorf("an HTTP_PROXY that is not a URL, against https: %v", err)
		}
	})
}

// TestTransport_proxyRetries: of a proxy's failures, only a timeout is
// retried.
func TestTransport_proxyRetries(t *testing.T) {
	for _, c := range []struct {
		name string
		e    client.ConnectError
		want bool
	}{
		{"nothing listens", client.ConnectError{Failure: client.ProxyRefused, Err: &net.OpError{Op: "dial", Err: errors.New("connect: connection refused")}}, true},
		{"timed out", client.ConnectError{Failure: client.ProxyRefused, Err: &net.OpError{Op: "dial", Err: &net.DNSError{IsTimeout: true}}}, false},
		{"403 to CONNECT", client.ConnectError{Failure: client.ProxyRefused, ProxyStatus: 403}, true},
		{"502 to CONNECT", client.ConnectError{Failure: client.ProxyRefused, ProxyStatus: 502}, true},
		{"407", client.ConnectError{Failure: client.ProxyAuthRequired}, true},
		{"untrusted", client.ConnectError{Failure: client.UntrustedCertificate}, true},
	} {
		if got := c.e.Permanent(); got != c.want {
			t.Errorf("%s: Permanent() = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTransport_proxyCredentials: the forms of a proxy's password that
// logs and the secret check look for, from any value a user may set.
func TestTransport_proxyCredentials(t *testing.T) {
	for v, want := range map[string][]string{
		"http://ci:pr0xy-pass@proxy.example.com:3128": {"pr0xy-pass", "ci:pr0xy-pass"},
		"ci:pr0xy-pass@proxy.example.com":             {"pr0xy-pass", "ci:pr0xy-pass"},
		"http://ci:p%40ss%2Fword@proxy.example.com":   {"p%40ss%2Fword", "ci:p%40ss%2Fword", "p@ss/word"},
		"http://ci:p@ss/word@proxy.example.com:3128":  {"p@ss/word", "ci:p@ss/word"},
		"http://ci@proxy.example.com:3128":            nil,
		"http://proxy.example.com:3128":               nil,
		"":                                            nil,
	} {
		if got := client.ProxyCredentials(v); !slices.Equal(got, want) {
			t.Errorf("ProxyCredentials(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestTransport_userAgent: the engine's token, then the provider's, then
// TF_APPEND_USER_AGENT's, on every request.
func TestTransport_userAgent(t *testing.T) {
	for _, c := range []struct{ engine, version, appended, want string }{
		{"Terraform/1.16.4 (+https://www.terraform.io)", "0.2.0", "", "Terraform/1.16.4 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0"},
		{"OpenTofu (+https://opentofu.org; compatible with Terraform 1.13.0)", "0.2.0", "ci/42", "OpenTofu (+https://opentofu.org; compatible with Terraform 1.13.0) terraform-provider-dataintegration/0.2.0 ci/42"},
		{"", "", " \n", "terraform-provider-dataintegration/dev"},
		{"Terraform/1.5.7 (+https://www.terraform.io)", "0.2.0", "a\r\nX-Injected: 1", "Terraform/1.5.7 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0 aX-Injected: 1"},
	} {
		if got := client.UserAgent(c.engine, c.version, c.appended); got != c.want {
			t.Errorf("UserAgent(%q, %q, %q) = %q, want %q", c.engine, c.version, c.appended, got, c.want)
		}
	}
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) })
	c := testclient.New(t, ts.URL, func(c *client.Config) {
		c.Engine, c.Version, c.AppendUserAgent = "OpenTofu (+https://opentofu.org; compatible with Terraform 1.13.0)", "0.2.0", "ci/42"
	})
	_ = getConnector(t, c)
	_ = getConnector(t, c)
	for _, r := range rec.Reqs {
		if got := r.UserAgent(); got != "OpenTofu (+https://opentofu.org; compatible with Terraform 1.13.0) terraform-provider-dataintegration/0.2.0 ci/42" {
			t.Errorf("User-Agent %q", got)
		}
	}
	if len(rec.Reqs) != 2 {
		t.Errorf("%d requests, want 2", len(rec.Reqs))
	}
}

// TestTransport_schemeMismatch: https to a service that speaks plain http,
// and http to one that speaks TLS, fail at the first attempt, saying which
// it speaks.
func TestTransport_schemeMismatch(t *testing.T) {
	proxyEnv(t, "", "")
	var reached atomic.Int32
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) })
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	tlsSrv := httptest.NewUnstartedServer(h)
	tlsSrv.Config.ErrorLog = stdlog.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	for _, c := range []struct {
		base    string
		want    client.ConnectFailure
		phrases []string
	}{
		{"https://" + plain.Listener.Addr().String(), client.ServiceSpeaksHTTP, []string{"base_url says https://", "answers in plain http"}},
		{"http://" + tlsSrv.Listener.Addr().String(), client.ServiceSpeaksTLS, []string{"base_url says http://", "speaks TLS", "HTTP 400"}},
	} {
		var log attemptLog
		cl := budgetClient(t, c.base, time.Minute, &log)
		start := time.Now()
		err := getConnector(t, cl)
		_ = connectFailure(t, err, c.want)
		for _, p := range c.phrases {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: %q does not say %q", c.base, err, p)
			}
		}
		if log.Count() != 1 || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %d attempts over %v; want one", c.base, log.Count(), time.Since(start))
		}
		if f := log.last(); f["failure"] != string(c.want) || f["error"] == nil {
			t.Errorf("%s: log fields %v do not name the cause", c.base, f)
		}
	}
	if reached.Load() != 0 {
		t.Errorf("%d requests reached the handlers", reached.Load())
	}
}

// TestTransport_proxyNotAnswering: a proxy that takes the connection and
// never answers CONNECT is named as the proxy, with its host and port and
// without its password, not as a service not answering; it is retried as
// a service not answering is.
func TestTransport_proxyNotAnswering(t *testing.T) {
	const password = "proxy-pass-S3cret"
	silent := nettest.SilentAddr(t)
	proxyEnv(t, "http://ci-runner:"+password+"@"+silent, "")
	err := getConnector(t, testclient.New(t, "https://service.example.com:8443", func(c *client.Config) { c.RequestTimeout = 200 * time.Millisecond; c.MaxRetries = 0 }))
	ce := connectFailure(t, err, client.ProxyNotAnswering)
	want := "the proxy at " + silent + " accepted the connection but did not answer the request for a tunnel to service.example.com:8443 (CONNECT) within request_timeout (200ms)"
	if ce.Proxy != silent || ce.Permanent() || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), password) {
		t.Errorf("proxy %q, permanent %v: %v; want %q", ce.Proxy, ce.Permanent(), err, want)
	}
}

func TestNew_readsProxyThroughGetenv(t *testing.T) {
	env := map[string]string{"https_proxy": "%zz"}
	_, err := client.New(client.Config{BaseURL: "https://api.example.com", APIKey: "k", Getenv: func(k string) string { return env[k] }})
	if !errors.Is(err, client.ErrProxyURL) {
		t.Fatalf("New with https_proxy=%%zz from Getenv: %v, want ErrProxyURL", err)
	}
	env = map[string]string{}
	if _, err := client.New(client.Config{BaseURL: "https://api.example.com", APIKey: "k", Getenv: func(k string) string { return env[k] }}); err != nil {
		t.Fatalf("New with no proxy from Getenv: %v", err)
	}
}
