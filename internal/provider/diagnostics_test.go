package provider

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestNetwork_connectDiagnostics: each way a certificate or a proxy stops
// the first request has a diagnostic that names the cause and the setting
// or variable that fixes it, and never the proxy's password.
func TestNetwork_connectDiagnostics(t *testing.T) {
	t.Parallel()
	ca := nettest.NewCA(t, "ACME Private Root")
	service := func(notAfter time.Time, names ...string) string {
		return nettest.ServeTLS(t, http.NotFoundHandler(), ca.Issue(t, notAfter, names...))
	}
	later := time.Now().Add(time.Hour)
	good := service(later, "sandbox.localhost", "127.0.0.1")
	proxy := nettest.ServeProxy(t, "ci-runner", proxyPassword)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "cannot resolve", http.StatusBadGateway)
	}))
	t.Cleanup(refusing.Close)
	refuser := refusing.URL
	for _, c := range []struct {
		name, base, ca, httpsProxy string
		summary                    string
		phrases                    []string
	}{
		{"unknown authority", "https://127.0.0.1:" + good, "", "", "Untrusted Service Certificate",
			[]string{`issuer "ACME Private Root"`, "set ca_certificate", `ca_certificate = file("ca.pem")`, providerenv.CACertificate, "SSL_CERT_FILE"}},
		{"host not in the certificate", "https://127.0.0.1:" + service(later, "api.example.com"), ca.PEM, "", "Service Certificate Name Mismatch",
			[]string{"is for api.example.com, not for 127.0.0.1", "Set base_url to a host name the certificate names", "ca_certificate cannot fix this"}},
		{"expired", "https://127.0.0.1:" + service(time.Now().Add(-time.Hour), "127.0.0.1"), ca.PEM, "", "Service Certificate Not Valid Now",
			[]string{"expired at", "renew it", "this machine's clock"}},
		{"proxy refusing", "https://sandbox.localhost:" + good, ca.PEM, "http://ci-runner:" + proxyPassword + "@" + nettest.RefusingAddr(t), "Proxy Unreachable",
			[]string{"the proxy at 127.0.0.1:", "connection refused", "HTTPS_PROXY", "NO_PROXY"}},
		{"proxy wanting credentials", "https://sandbox.localhost:" + good, ca.PEM, "http://" + proxy.Addr, "Proxy Authentication Required",
			[]string{"asks for credentials", "in HTTPS_PROXY, as http://user:password@proxy.example.com:3128", "NO_PROXY", "never shown"}},
		{"proxy refusing the tunnel", "https://sandbox.localhost:" + good, ca.PEM, refuser, "Proxy Refused the Tunnel",
			[]string{"would not open a tunnel to sandbox.localhost:", "502 Bad Gateway", "check the host and port in base_url", "NO_PROXY"}},
		{"unknown host", "https://dataintegration.invalid", "", "", "Unknown Service Host",
			[]string{"does not know the host dataintegration.invalid", "Check the host in base_url", providerenv.BaseURL, "set HTTPS_PROXY"}},
		{"proxy refusing the credentials", "https://sandbox.localhost:" + good, ca.PEM, "http://ci-runner:wrong-" + proxyPassword + "@" + proxy.Addr, "Proxy Authentication Required",
			[]string{"refused the credentials given", "Check the user name and password in HTTPS_PROXY"}},
		{"nothing listening", "http://" + nettest.RefusingAddr(t), "", "", "Service Unreachable",
			[]string{"nothing accepts connections at 127.0.0.1:", "(connection refused)", "Check the host and port in base_url", "that the service runs", "firewall",
				"stopped retrying when a request reached max_retries (0) failing to reach the service", "every other request of this run fails at once, unsent"}},
		{"https to plain http", "https://" + refusing.Listener.Addr().String(), "", "", "Service Speaks HTTP, Not HTTPS",
			[]string{"base_url says https://, but the service at 127.0.0.1:", "answers in plain http", "set base_url (or " + providerenv.BaseURL + ") to http://127.0.0.1:", "No retry can fix this"}},
		{"http to TLS", "http://127.0.0.1:" + good, "", "", "Service Speaks HTTPS, Not HTTP",
			[]string{"base_url says http://, but the service at 127.0.0.1:" + good + " speaks TLS",
				"refused the plain http request (HTTP 400: Client sent an HTTP request to an HTTPS server). Set base_url to https://127.0.0.1:" + good, "ca_certificate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, err := client.New(client.Config{BaseURL: c.base, APIKey: "secret-key-1", CACertificate: c.ca, MaxRetries: 0, Getenv: proxyEnv(c.httpsProxy, "").getenv})
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.GetConnector(context.Background(), sandbox.DefaultWorkspaceID, "c-1")
			var diags diag.Diagnostics
			addRequestError(&diags, "Unable to Read Connector", sandbox.DefaultWorkspaceID, err)
			onlyError(t, diags, c.summary, c.phrases...)
			if d := diags[0].Detail(); strings.Contains(d, proxyPassword) || strings.Contains(d, "secret-key-1") {
				t.Errorf("the diagnostic shows a secret: %s", d)
			}
		})
	}
}

// TestNetwork_noAnswerDiagnostic: a service that accepts the connection and
// never answers is named as such, with its host, port and request_timeout,
// not as one that no request reached.
func TestNetwork_noAnswerDiagnostic(t *testing.T) {
	t.Parallel()
	cl, err := client.New(client.Config{BaseURL: "http://" + nettest.SilentAddr(t), APIKey: "secret-key-1", MaxRetries: 0, RequestTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.GetConnector(context.Background(), sandbox.DefaultWorkspaceID, "c-1")
	var diags diag.Diagnostics
	addRequestError(&diags, "Unable to Read Connector", sandbox.DefaultWorkspaceID, err)
	onlyError(t, diags, "Service Not Answering", "No answer from the service to GET ", "nothing answered at 127.0.0.1:",
		"within request_timeout (200ms)", "raise request_timeout", "stopped retrying when a request reached max_retries (0)")
	if d := diags[0].Detail(); strings.Contains(d, "No request reached") || strings.Contains(d, "secret-key-1") {
		t.Errorf("the diagnostic says more than is known, or shows the key: %s", d)
	}
}

// TestNetwork_unreachableDiagnostic: a request that gave up on a service
// out of reach says what it tried, and when the budget of the provider's
// process is spent, that later requests fail at once.
func TestNetwork_unreachableDiagnostic(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		name    string
		err     *client.Error
		phrases []string
		not     []string
	}{
		{"retrying still", &client.Error{Method: "GET", Path: "/x/", Attempts: 4, Tried: 2 * time.Second, Limit: "timeouts.create (2s)",
			Err: &client.ConnectError{Failure: client.Unreachable, Host: "127.0.0.1:9", Err: refused}},
			[]string{"No request reached the service (GET /x/): nothing accepts connections at 127.0.0.1:9 (connection refused) (gave up after 4 attempts over 2s, at the end of timeouts.create (2s))", "Check the host and port in base_url"},
			[]string{"stopped retrying"}},
		{"budget spent", &client.Error{Method: "GET", Path: "/x/", Attempts: 37, Tried: 5 * time.Minute, Limit: "the retry budget (5m0s)",
			Err: &client.ConnectError{Failure: client.Unreachable, Host: "api.example.com:443", Err: refused, StoppedBy: "the retry budget (5m0s)"}},
			[]string{"nothing accepts connections at api.example.com:443", "gave up after 37 attempts over 5m0s, at the end of the retry budget (5m0s)",
				"The provider stopped retrying once it had spent the retry budget (5m0s) failing to reach the service", "fails at once"}, nil},
	} {
		var diags diag.Diagnostics
		addRequestError(&diags, "Unable to Read Connector", sandbox.DefaultWorkspaceID, c.err)
		onlyError(t, diags, "Service Unreachable", c.phrases...)
		for _, p := range c.not {
			if strings.Contains(diags[0].Detail(), p) {
				t.Errorf("%s: %q says %q", c.name, diags[0].Detail(), p)
			}
		}
	}
}

// TestDiagnostics_keyRefusedIsShort: a request not sent because the key was
// refused earlier says so in one sentence and points at the first error;
// only that first one, a 401 the service sent, explains the cause and fix.
func TestDiagnostics_keyRefusedIsShort(t *testing.T) {
	t.Parallel()
	first := &client.Error{Operation: "read connector", Method: "GET", Path: "/c/1/", StatusCode: 401, Message: "Invalid API key.", Sent: true}
	later := &client.Error{Operation: "list jobs", Method: "GET", Path: "/jobs/", StatusCode: 401, Message: "Invalid API key.", KeyRefused: true}
	var diags diag.Diagnostics
	addRequestError(&diags, "Unable to Read Connector", sandbox.DefaultWorkspaceID, first)
	onlyError(t, diags, "Authentication Failed", "HTTP 401: Invalid API key.", "Check api_key", providerenv.APIKey)

	// With two provider configurations, the error tells which one to fix.
	diags = nil
	named := *first
	named.Host, named.KeyFrom = "api.example.com", "api_key in the provider block"
	addRequestError(&diags, "Unable to Read Connector", sandbox.DefaultWorkspaceID, &named)
	onlyError(t, diags, "Authentication Failed", "the service at api.example.com, asked about workspace "+sandbox.DefaultWorkspaceID+", did not accept the API key",
		"HTTP 401: Invalid API key.", "The key came from api_key in the provider block")

	diags = nil
	addRequestError(&diags, "Unable to List Jobs", sandbox.DefaultWorkspaceID, later)
	onlyError(t, diags, "Authentication Failed", "Not sent", "refused the API key earlier in this run", "the service did not accept the API key gives the cause and the fix")
	if d := diags[0].Detail(); strings.Contains(d, "Check api_key") || strings.Contains(d, providerenv.APIKey) || len(d) > 250 {
		t.Errorf("the later diagnostic repeats the cause and fix: %s", d)
	}
	if a := answer(later); !strings.Contains(a, "GET /jobs/ was not sent") || strings.Contains(a, "answered") {
		t.Errorf("a request never sent is told as answered: %s", a)
	}
}

// TestDiagnostics_interrupted: a request the engine stopped says so, not
// Go's "context canceled", whether or not it came through the client.
func TestDiagnostics_interrupted(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		context.Canceled,
		fmt.Errorf("check name: %w", context.Canceled),
		&client.Error{Operation: "list connectors", Method: "GET", Path: "/c/", Err: context.Canceled},
	} {
		var diags diag.Diagnostics
		addRequestError(&diags, "Unable to Check Workspace", sandbox.DefaultWorkspaceID, err)
		onlyError(t, diags, "Unable to Check Workspace", "Interrupted before the service answered", "SIGTERM", "Run the command again")
		if strings.Contains(diags[0].Detail(), "context canceled") {
			t.Errorf("%v: %s", err, diags[0].Detail())
		}
	}
}

// TestDiagnostics_rateLimited: a request the service's rate limit would hold
// past its timeout says so, not that the service did not answer, and names
// what the user can change.
func TestDiagnostics_rateLimited(t *testing.T) {
	t.Parallel()
	e := &client.Error{Operation: "list jobs", Method: "GET", Path: "/jobs/",
		Err: &client.RateLimitError{By: "X-RateLimit-Remaining", Wait: 12500 * time.Millisecond, Limit: "timeouts.read (2s)", Left: 1500 * time.Millisecond}}
	var diags diag.Diagnostics
	addRequestError(&diags, "Unable to List Jobs", sandbox.DefaultWorkspaceID, e)
	onlyError(t, diags, "Rate-Limited by the Service",
		"GET /jobs/ was not sent: rate-limited by the service's X-RateLimit-Remaining header: the request would wait 12.5s to be sent, past the end of timeouts.read (2s), 1.5s away, so it was not sent.",
		"Raise timeouts.read (2s)", "same API key", `guide "Large workspaces and rate limits"`)
	if d := diags[0].Detail(); strings.Contains(d, "No answer") {
		t.Errorf("a request never sent is told as unanswered: %s", d)
	}

	// The retry budget is no setting: the fix is to wait for the quota.
	e.Err = &client.RateLimitError{By: "RateLimit", Wait: 400 * time.Second, Limit: "the retry budget (5m0s)"}
	diags = nil
	addRequestError(&diags, "Unable to Create Connector", sandbox.DefaultWorkspaceID, e)
	onlyError(t, diags, "Rate-Limited by the Service", "would wait 6m40s", "Run again once the service's quota has reset")
	if d := diags[0].Detail(); strings.Contains(d, "Raise the retry budget") {
		t.Errorf("the diagnostic asks to raise what no one can set: %s", d)
	}
}

// TestDiagnostics_jobNotFoundNamesTheAttribute: a job deleted after its
// job_name was looked up is told to check job_name, not job_id.
func TestDiagnostics_jobNotFoundNamesTheAttribute(t *testing.T) {
	t.Parallel()
	gone := &client.Error{Operation: "trigger job", Method: "POST", Path: "/jobs/1/trigger/", StatusCode: 404, Message: "Not found.", Sent: true}
	for _, c := range []struct {
		at        path.Path
		says, not string
	}{
		{pathJobName, "Check job_name", "job_id"},
		{pathJobID, "Check job_id", "job_name"},
	} {
		var diags diag.Diagnostics
		addJobNotFound(&diags, c.at, sandbox.DefaultWorkspaceID, "job-1", gone)
		onlyError(t, diags, "Job Not Found", "job-1", "HTTP 404: Not found.", c.says)
		if strings.Contains(diags[0].Detail(), c.not) {
			t.Errorf("configured by %s, the error names %s: %s", c.at, c.not, diags[0].Detail())
		}
	}
}
