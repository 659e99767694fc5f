package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// networkHCL is a connector and a read of jobs: the requests of a plan,
// an apply and a destroy.
const networkHCL = `
resource "dataintegration_customer_service_connector" "test" {
  name        = "behind the proxy"
  url         = "https://acme.example-helpdesk.com"
  token       = "helpdesk-token-1"
  agent_email = "agent@acme.com"
}

data "dataintegration_jobs" "all" {}
`

// TestAccNetwork_proxyAndPrivateCA: through a CONNECT proxy with credentials to a
// private CA, every request goes through the proxy with the engine's User-Agent.
func TestAccNetwork_proxyAndPrivateCA(t *testing.T) {
	e := acctest.NewTLSEnv(t, sandbox.Config{Jobs: 3}, "sandbox.localhost")
	proxy := acctest.ServeSecretProxy(t, "ci-runner", proxyPassword)
	env := proxyEnv(proxy.URL, "")
	config := e.ProviderConfig(fmt.Sprintf("ca_certificate = file(%q)", e.CA.WritePEM(t))) + networkHCL
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		CheckDestroy:             connectorsGoneFromSandbox(e.Env),
		Steps: []resource.TestStep{
			{Config: config, Check: resource.TestCheckResourceAttr("data.dataintegration_jobs.all", "ids.#", "3")},
			{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
	remotes := e.Remotes()
	if len(remotes) < 4 {
		t.Fatalf("the sandbox saw %d requests", len(remotes))
	}
	for _, r := range remotes {
		if !proxy.Tunnelled(r) {
			t.Errorf("a request from %s did not come through the proxy (%d tunnels)", r, len(proxy.Targets()))
		}
	}
	// Terraform gives its own version; OpenTofu the Terraform version it
	// supports, which the harness cannot ask it for.
	want := regexp.MustCompile(`^Terraform/` + regexp.QuoteMeta(acctest.EngineUnderTest(t).Version.String()) + ` \(\+https://www\.terraform\.io\) terraform-provider-dataintegration/test$`)
	if acctest.EngineName() == "OpenTofu" {
		want = regexp.MustCompile(`^OpenTofu \(\+https://opentofu\.org; compatible with Terraform \d+\.\d+\.\d+\) terraform-provider-dataintegration/test$`)
	}
	var seen bool
	for ua := range e.Sandbox.Stats().UserAgents {
		switch {
		case want.MatchString(ua):
			seen = true
		case ua != "terraform-provider-dataintegration/test": // the test's own checks
			t.Errorf("a request with the User-Agent %q, want %s", ua, want)
		}
	}
	if !seen {
		t.Errorf("no request with a User-Agent of %s: %v", want, e.Sandbox.Stats().UserAgents)
	}
}

// connectorsGoneFromSandbox is acctest's ConnectorsGone asked of the sandbox
// itself: the test's own client, outside the provider's proxy, cannot resolve
// the sandbox's host.
func connectorsGoneFromSandbox(e *acctest.Env) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if _, ok := e.Sandbox.Connector(rs.Primary.Attributes["workspace_id"], rs.Primary.ID); ok && rs.Type == acctest.ConnectorType {
				return fmt.Errorf("connector %s is still in the sandbox after destroy", rs.Primary.ID)
			}
		}
		return nil
	}
}

// TestAccNetwork_untrustedWithoutCA: fails at once, naming ca_certificate.
func TestAccNetwork_untrustedWithoutCA(t *testing.T) {
	e := acctest.NewTLSEnv(t, sandbox.Config{Jobs: 3}, "sandbox.localhost")
	proxy := acctest.ServeSecretProxy(t, "ci-runner", proxyPassword)
	env := proxyEnv(proxy.URL, "")
	start := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		Steps: []resource.TestStep{{
			Config:      e.ProviderConfig() + networkHCL,
			ExpectError: acctest.Phrases("Untrusted Service Certificate", "set ca_certificate", providerenv.CACertificate),
		}},
	})
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("the failure took %s: it was retried", d)
	}
	if n := len(e.Remotes()); n != 0 || len(proxy.Targets()) == 0 {
		t.Errorf("%d requests reached the sandbox, through %d tunnels", n, len(proxy.Targets()))
	}
}

// TestAccNetwork_noProxyBypasses: NO_PROXY naming the service's host
// sends nothing to the proxy.
func TestAccNetwork_noProxyBypasses(t *testing.T) {
	e := acctest.NewTLSEnv(t, sandbox.Config{Jobs: 3}, "sandbox.localhost")
	proxy := acctest.ServeSecretProxy(t, "ci-runner", proxyPassword)
	env := proxyEnv(proxy.URL, "api.example.com, .localhost")
	// Without the proxy, the client looks the host up itself, which this
	// machine may or may not resolve to loopback: either is a request that
	// did not go through the proxy.
	direct := regexp.MustCompile(`sandbox\.localhost`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		ErrorCheck: func(err error) error {
			if direct.MatchString(err.Error()) {
				return nil
			}
			return err
		},
		Steps: []resource.TestStep{{
			// No retry of a host this machine cannot resolve.
			Config: e.ProviderConfig(fmt.Sprintf("ca_certificate = %q", e.CA.PEM), "max_retries = 0") + `data "dataintegration_jobs" "all" {}`,
		}},
	})
	if got := proxy.Targets(); len(got) != 0 {
		t.Errorf("the proxy tunnelled %v for a host NO_PROXY names", got)
	}
}

// fleetAt is 40 connectors, with the provider at base and extra settings.
func fleetAt(e *acctest.Env, base string, extra ...string) string {
	return fleetOf(40, e, base, extra...)
}

func fleetOf(n int, e *acctest.Env, base string, extra ...string) string {
	return acctest.FleetHCL(n, fmt.Sprintf("base_url     = %q\n  api_key      = %q\n  workspace_id = %q\n  %s",
		base, e.APIKey, e.WorkspaceID, strings.Join(extra, "\n  ")), false)
}

var retriedAttempts = regexp.MustCompile(`gave up after [2-9] attempts`)

// TestAccNetwork_closedPortFailsOnce: refreshes against a closed port fail once
// the first requests spent their retries; later ones make one attempt.
func TestAccNetwork_closedPortFailsOnce(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	env := proxyEnv("", "")
	closed := nettest.RefusingAddr(t)
	want := acctest.Phrases("Service Unreachable", "nothing accepts connections at "+closed, "(connection refused)",
		"stopped retrying when a request reached max_retries (2)", "fails at once")
	var failed string
	var start time.Time
	var took time.Duration
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		CheckDestroy:             e.ConnectorsGone(t),
		ErrorCheck: func(err error) error {
			if failed != "" || !want.MatchString(err.Error()) {
				return err
			}
			took, failed = time.Since(start), strings.Join(strings.Fields(err.Error()), " ")
			return nil
		},
		Steps: []resource.TestStep{
			{Config: fleetAt(e, e.BaseURL)},
			{PreConfig: func() { start = time.Now() }, Config: fleetAt(e, "http://"+closed, "max_retries = 2")},
			{Config: fleetAt(e, e.BaseURL), PlanOnly: true},
		},
	})
	if failed == "" {
		t.Fatal("the plan against a closed port did not fail")
	}
	// Terraform refreshes 10 resources at a time: no more than those
	// retried; the others made one attempt. A refresh that waits on a shared
	// list which reached max_retries first stops at its second attempt.
	all, retried := strings.Count(failed, "Service Unreachable"), len(retriedAttempts.FindAllString(failed, -1))
	if all < 20 || retried < 1 || retried > 10 {
		t.Errorf("%d refreshes failed, %d of them after retries; want most of the 40, and at most the first 10 retried", all, retried)
	}
	if took > time.Minute {
		t.Errorf("the plan against a closed port took %s", took)
	}
	t.Logf("%d refreshes failed in %s, %d after retries", all, took.Round(100*time.Millisecond), retried)
}

// TestAccNetwork_httpsAgainstHTTP: fails at the first request, naming the
// base_url that works.
func TestAccNetwork_httpsAgainstHTTP(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	e.RequireSandbox(t, "serve plain http")
	env := proxyEnv("", "")
	hostport := strings.TrimPrefix(e.BaseURL, "http://")
	start := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		Steps: []resource.TestStep{{
			Config:      acctest.ProviderBlock("https://"+hostport, e.APIKey, e.WorkspaceID) + networkHCL,
			ExpectError: acctest.Phrases("Service Speaks HTTP, Not HTTPS", "base_url says https://, but the service at "+hostport+" answers in plain http", "to http://"+hostport, "No retry can fix this"),
		}},
	})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the failure took %s: it was retried", d)
	}
	if n := e.Sandbox.Stats().Requests; n != 0 {
		t.Errorf("%d requests reached the sandbox", n)
	}
}

// TestNetwork_proxyURLRefusedAtConfigure: a password with a / left as it is
// fails Configure without showing the password.
func TestNetwork_proxyURLRefusedAtConfigure(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"https://api.example.com", "http://127.0.0.1:8080"} {
		diags := configureProvider(t, proxyEnv("http://ci:"+proxyPassword+"/x@127.0.0.1:3128", "").getenv, "1.16.4", map[string]any{"base_url": base, "api_key": "secret-key-1"}).Diagnostics
		onlyError(t, diags, "Invalid Proxy Setting", "HTTPS_PROXY (or https_proxy) is not a proxy URL", "percent-encode @, :, / and %", "environment the engine runs in")
		if strings.Contains(diags[0].Detail(), proxyPassword) {
			t.Errorf("the diagnostic shows the password: %s", diags[0].Detail())
		}
	}
}

// TestAccNetwork_redirectsRefused: a redirect of the create fails the apply; nothing
// reaches the target.
func TestAccNetwork_redirectsRefused(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	e.RequireSandbox(t, "put a redirecting front before the sandbox")
	env := proxyEnv("", "")
	var reached atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		e.Sandbox.ServeHTTP(w, r)
	}))
	t.Cleanup(target.Close)
	// Reads pass, so that the plan succeeds and the apply sends the create.
	front := func(status int, to string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				e.Sandbox.ServeHTTP(w, r)
				return
			}
			http.Redirect(w, r, to+r.URL.RequestURI(), status)
		})
	}
	var steps []resource.TestStep
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		ts := httptest.NewServer(front(status, target.URL))
		t.Cleanup(ts.Close)
		steps = append(steps, resource.TestStep{
			Config:      acctest.ProviderBlock(ts.URL, e.APIKey, e.WorkspaceID) + networkHCL,
			ExpectError: acctest.Phrases("Redirect Refused", "HTTP "+strconv.Itoa(status)+" to POST", "redirecting it to "+target.URL+"/developers/", "Set base_url"),
		})
	}
	ca := nettest.NewCA(t, "redirect tests CA")
	port := nettest.ServeTLS(t, front(http.StatusTemporaryRedirect, target.URL), ca.Issue(t, time.Now().Add(time.Hour), "127.0.0.1"))
	steps = append(steps, resource.TestStep{
		Config: fmt.Sprintf("provider \"dataintegration\" {\n  base_url = %q\n  api_key = %q\n  workspace_id = %q\n  ca_certificate = %q\n}\n",
			"https://127.0.0.1:"+port, e.APIKey, e.WorkspaceID, ca.PEM) + networkHCL,
		ExpectError: acctest.Phrases("Redirect Refused", "HTTP 307 to POST", "redirecting it to "+target.URL+"/developers/"),
	})
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: env.factories(), Steps: steps})
	if n := reached.Load(); n != 0 {
		t.Errorf("%d requests reached the redirect's target", n)
	}
	if ids := e.Sandbox.ConnectorIDs(e.WorkspaceID); len(ids) != 0 {
		t.Errorf("connectors made: %v", ids)
	}
}

// idKey is an answer's _id, as the sandbox writes it.
var idKey = regexp.MustCompile(`"_id":\s*"[^"]*"`)

// TestAccNetwork_foreignIDOnRead: a read answered with another connector's _id
// fails, and the state keeps the connector's own.
func TestAccNetwork_foreignIDOnRead(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	env := proxyEnv("", "")
	foreign := e.MakeConnector(t, acctest.Name("foreign")).ID
	var lie atomic.Bool
	base := e.ServeFront(t, func(w http.ResponseWriter, r *http.Request, h http.Handler) {
		if lie.Load() && r.Method == http.MethodGet && !strings.HasSuffix(r.URL.Path, "/connectors/") && strings.Contains(r.URL.Path, "/connectors/") {
			acctest.Rewrite(w, r, h, func(b []byte) []byte { return idKey.ReplaceAll(b, []byte(`"_id":"`+foreign+`"`)) })
			return
		}
		h.ServeHTTP(w, r)
	})
	config := acctest.ProviderBlock(base, e.APIKey, e.WorkspaceID) + networkHCL
	var own string
	sameID := resource.TestCheckResourceAttrWith("dataintegration_customer_service_connector.test", "id", func(v string) error {
		if v == foreign || own != "" && v != own {
			return fmt.Errorf("the state holds ID %s; the connector's own is %s, the foreign one %s", v, own, foreign)
		}
		own = v
		return nil
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{Config: config, Check: sameID},
			{
				PreConfig:    func() { lie.Store(true) },
				RefreshState: true,
				ExpectError:  acctest.Phrases("Unexpected Answer", `with connector "`+foreign+`", not connector "`, "Nothing of it was written to the state"),
			},
			{
				PreConfig:        func() { lie.Store(false) },
				Config:           config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            sameID,
			},
		},
	})
}

// TestAccNetwork_duplicatedIDOnCreate: a create answered with a second, foreign
// _id is a lost answer, settled by listing.
func TestAccNetwork_duplicatedIDOnCreate(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	env := proxyEnv("", "")
	foreign := e.MakeConnector(t, acctest.Name("foreign")).ID
	base := e.ServeFront(t, func(w http.ResponseWriter, r *http.Request, h http.Handler) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/connectors/") {
			acctest.Rewrite(w, r, h, func(b []byte) []byte {
				b = []byte(strings.TrimSpace(string(b)))
				return append(b[:len(b)-1], []byte(`,"_id":"`+foreign+`"}`)...)
			})
			return
		}
		h.ServeHTTP(w, r)
	})
	config := acctest.ProviderBlock(base, e.APIKey, e.WorkspaceID) + networkHCL
	made := func(s *terraform.State) error {
		ids := e.Sandbox.ConnectorIDs(e.WorkspaceID)
		got := s.RootModule().Resources["dataintegration_customer_service_connector.test"].Primary.ID
		if len(ids) != 2 || got == foreign || !slices.Contains(ids, got) {
			return fmt.Errorf("the state holds %s; the service holds %v, %s of them the foreign one", got, ids, foreign)
		}
		return nil
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{Config: config, Check: made},
			{Config: config, PlanOnly: true},
		},
	})
}

// TestAccNetwork_stalledReadsFailOnce: bodies that stall after the headers are a
// service not answering, and the plan fails once, not after each read's retries.
func TestAccNetwork_stalledReadsFailOnce(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	env := proxyEnv("", "")
	stalling := e.ServeFront(t, func(w http.ResponseWriter, r *http.Request, h http.Handler) {
		if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/connectors/") {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"count": `))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	want := acctest.Phrases("Service Not Answering", "sent the status (HTTP 200) and headers of its answer, but not the whole body within request_timeout (2s)",
		"begins its answers but does not finish them", "stopped retrying when a request reached max_retries (2)")
	var failed string
	var start time.Time
	var took time.Duration
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		CheckDestroy:             e.ConnectorsGone(t),
		ErrorCheck: func(err error) error {
			if failed != "" || !want.MatchString(err.Error()) {
				return err
			}
			took, failed = time.Since(start), strings.Join(strings.Fields(err.Error()), " ")
			return nil
		},
		Steps: []resource.TestStep{
			{Config: fleetOf(200, e, e.BaseURL)},
			{PreConfig: func() { start = time.Now() }, Config: fleetOf(200, e, stalling, `request_timeout = "2s"`, "max_retries = 2"), PlanOnly: true},
			{Config: fleetOf(200, e, e.BaseURL), PlanOnly: true},
		},
	})
	if failed == "" {
		t.Fatal("the plan against stalled answers did not fail")
	}
	if took > time.Minute {
		t.Errorf("the plan against stalled answers took %s", took)
	}
	t.Logf("%d refreshes failed in %s", strings.Count(failed, "Service Not Answering"), took.Round(100*time.Millisecond))
}

// TestAccNetwork_proxyNotAnswering: the error names the proxy, never its password.
func TestAccNetwork_proxyNotAnswering(t *testing.T) {
	e := acctest.NewTLSEnv(t, sandbox.Config{Jobs: 3}, "sandbox.localhost")
	silent := nettest.SilentAddr(t)
	env := proxyEnv("http://ci-runner:"+proxyPassword+"@"+silent, "")
	want := acctest.Phrases("Proxy Not Answering", "the proxy at "+silent+" accepted the connection but did not answer the request for a tunnel",
		"(CONNECT) within request_timeout (2s)", "name the service's host in NO_PROXY")
	var failed bool
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		ErrorCheck: func(err error) error {
			if strings.Contains(err.Error(), proxyPassword) || !want.MatchString(err.Error()) {
				return err
			}
			failed = true
			return nil
		},
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig(fmt.Sprintf("ca_certificate = %q", e.CA.PEM), `request_timeout = "2s"`, "max_retries = 0") + networkHCL,
		}},
	})
	if !failed {
		t.Error("the plan through a proxy that never answers did not fail")
	}
	if n := len(e.Remotes()); n != 0 {
		t.Errorf("%d requests reached the sandbox", n)
	}
}

// TestAccNetwork_invalidProxyFailsPlan: an HTTPS_PROXY that is not a URL fails
// the plan even against loopback, which no proxy serves; HTTP_PROXY plays no part.
func TestAccNetwork_invalidProxyFailsPlan(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	e.RequireSandbox(t, "serve on loopback")
	for _, value := range []string{"%zz", "::", "http://%zz"} {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: proxyEnv(value, "").factories(),
			Steps: []resource.TestStep{{
				Config:      e.ProviderConfig() + networkHCL,
				PlanOnly:    true,
				ExpectError: acctest.Phrases("Invalid Proxy Setting", "HTTPS_PROXY (or https_proxy) is not a proxy URL"),
			}},
		})
	}
	if n := e.Sandbox.Stats().Requests; n != 0 {
		t.Errorf("%d requests reached the sandbox", n)
	}
	env := proxyEnv("", "")
	env.set("HTTP_PROXY", "%zz")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.factories(),
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + "data \"dataintegration_jobs\" \"all\" {}\n",
			Check:  resource.TestCheckResourceAttr("data.dataintegration_jobs.all", "ids.#", "3"),
		}},
	})
}
