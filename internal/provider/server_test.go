package provider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestServer_secretLines: no diagnostic about api_key, token, token_wo or url
// points at the attribute, whose configuration line the engine would print
// with the secret on it; each names the attribute instead. Diagnostics about other
// attributes keep pointing at them. Without write-only attributes (Terraform
// before 1.11), the framework's own refusal of token_wo is moved too.
func TestServer_secretLines(t *testing.T) {
	t.Parallel()
	p := serveProto(t)
	const connector = "dataintegration_customer_service_connector"
	base := map[string]any{"name": "desk", "url": "https://acme.example.com", "agent_email": "agent@acme.com"}
	with := func(kv ...any) map[string]any {
		out := maps.Clone(base)
		for i := 0; i+1 < len(kv); i += 2 {
			out[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return out
	}
	validate := func(set map[string]any, writeOnly bool) []*tfprotov6.Diagnostic {
		t.Helper()
		cfg := acctest.ProtoValue(t, p.Schemas.ResourceSchemas[connector], set)
		resp, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
			TypeName: connector, Config: &cfg,
			ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: writeOnly},
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Diagnostics
	}
	cases := []struct {
		name      string
		diags     []*tfprotov6.Diagnostic
		mentions  string
		pointedAt string // "" when the diagnostic must point at no attribute
	}{
		{"empty token", validate(with("token", " "), true), "token", ""},
		{"both tokens", validate(with("token", "tok-literal-1", "token_wo", "tok-literal-2"), true), "token_wo", ""},
		{"token_wo without its version", validate(with("token_wo", "tok-literal-2"), true), "token_wo", ""},
		{"token_wo on an engine without write-only attributes", validate(with("token_wo", "tok-literal-2", "token_wo_version", 1), false), "token_wo", ""},
		{"prefer token_wo", validate(with("token", "tok-literal-1"), true), "token", ""},
		{"a password in url", validate(with("token", "tok-literal-1", "url", "https://desk:tok-literal-3@acme.example.com"), false), "url", ""},
		{"url not https", validate(with("token", "tok-literal-1", "url", "http://acme.example.com"), false), "url", ""},
		{"another attribute", validate(with("token", "tok-literal-1", "agent_email", "not an address"), false), "agent_email", "agent_email"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.diags) == 0 {
				t.Fatal("no diagnostic")
			}
			for _, d := range c.diags {
				if strings.Contains(d.Detail, "tok-literal") {
					t.Errorf("%s: the detail shows the token: %s", d.Summary, d.Detail)
				}
				if !strings.Contains(d.Detail, c.mentions) {
					t.Errorf("%s: the detail does not name %s: %s", d.Summary, c.mentions, d.Detail)
				}
			}
			var pointed []string
			for _, d := range c.diags {
				if d.Attribute != nil {
					if name, ok := d.Attribute.Steps()[0].(tftypes.AttributeName); ok {
						pointed = append(pointed, string(name))
					}
				}
			}
			if c.pointedAt == "" && len(pointed) > 0 || c.pointedAt != "" && !strings.Contains(strings.Join(pointed, " "), c.pointedAt) {
				t.Errorf("diagnostics point at %v, want %q: %s", pointed, c.pointedAt, protoDiags(c.diags))
			}
			for _, name := range pointed {
				if name == "token" || name == "token_wo" || name == "url" {
					t.Errorf("a diagnostic points at %s: %s", name, protoDiags(c.diags))
				}
			}
		})
	}

	// The warning advises only where nothing is wrong with the tokens.
	for i, c := range cases[:2] {
		for _, d := range c.diags {
			if d.Summary == "Prefer token_wo" {
				t.Errorf("case %d (%s) advises token_wo beside its error", i, c.name)
			}
		}
	}

	cfg := acctest.ProtoValue(t, p.Schemas.Provider, map[string]string{"base_url": "https://api.example.com", "api_key": " key-literal"})
	resp, err := p.Server.ValidateProviderConfig(context.Background(), &tfprotov6.ValidateProviderConfigRequest{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Attribute != nil || !strings.Contains(resp.Diagnostics[0].Detail, "api_key") ||
		strings.Contains(resp.Diagnostics[0].Detail, "key-literal") {
		t.Errorf("the refused api_key: %s, pointing at %v", protoDiags(resp.Diagnostics), resp.Diagnostics[0].Attribute)
	}
	for attr, value := range map[string]string{
		"base_url":       "https://me:pw-literal@api.example.com",
		"ca_certificate": "-----BEGIN PRIVATE KEY-----\npw-literal\n-----END PRIVATE KEY-----\n",
	} {
		cfg := acctest.ProtoValue(t, p.Schemas.Provider, map[string]string{"base_url": "https://api.example.com", "api_key": "key-1", attr: value})
		resp, err := p.Server.ValidateProviderConfig(context.Background(), &tfprotov6.ValidateProviderConfigRequest{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Attribute != nil || !strings.HasPrefix(resp.Diagnostics[0].Detail, attr+": ") ||
			strings.Contains(resp.Diagnostics[0].Detail, "pw-literal") {
			t.Errorf("the refused %s: %s", attr, protoDiags(resp.Diagnostics))
		}
	}
}

const secretsHCL = `
provider "dataintegration" {}

variable "token" {
  type      = string
  sensitive = true
}

resource "dataintegration_customer_service_connector" "s" {
  name        = %q
  url         = "https://acme.example.com"
  agent_email = "agent@acme.com"
  token       = var.token
}
`

const writeOnlySecretsHCL = `
provider "dataintegration" {}

variable "token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "dataintegration_customer_service_connector" "s" {
  name             = %q
  url              = "https://acme.example.com"
  agent_email      = "agent@acme.com"
  token_wo         = var.token
  token_wo_version = 1
}
`

// secretWatch runs commands with TF_LOG=TRACE into one log file, and keeps
// everything they printed, to look for secrets in both.
type secretWatch struct {
	eng     *acctest.Engine
	log     string
	printed strings.Builder
	// json is what `show -json` printed for configurations with token.
	json strings.Builder
}

func (w *secretWatch) env(extra ...string) []string {
	return append([]string{"TF_LOG=TRACE", "TF_LOG_PATH=" + w.log}, extra...)
}

func (w *secretWatch) run(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := w.eng.Try(dir, w.env(env...), args...)
	w.printed.WriteString(out)
	if err != nil {
		w.printed.WriteString(err.Error())
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	return out
}

// showJSON runs `show -json`. Terraform's JSON holds the values of
// sensitive attributes and variables in clear, by design, so what it prints
// is kept apart: only the API key, which the provider reads from the
// environment, must be absent from it. token_wo keeps a token out.
func (w *secretWatch) showJSON(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := w.eng.Try(dir, w.env(), append([]string{"show", "-json"}, args...)...)
	if err != nil {
		t.Fatalf("show -json: %v", err)
	}
	w.json.WriteString(out)
	return out
}

// fail runs a command that must fail, and returns what it printed.
func (w *secretWatch) fail(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := w.eng.Try(dir, w.env(env...), args...)
	if err == nil {
		t.Fatalf("%s succeeded, want a failure", strings.Join(args, " "))
	}
	w.printed.WriteString(out + err.Error())
	return out + err.Error()
}

// expectNone fails for each secret found in the log or in what was printed.
func (w *secretWatch) expectNone(t *testing.T, secrets map[string]string) {
	t.Helper()
	log, err := os.ReadFile(w.log)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for what, s := range secrets {
		if strings.Contains(string(log), s) {
			t.Errorf("the TRACE log holds the %s", what)
			found++
		}
		if strings.Contains(w.printed.String(), s) {
			t.Errorf("the CLI printed the %s", what)
			found++
		}
	}
	t.Logf("looked for %d secrets in %d KiB of TRACE log and %d KiB of output: %d found", len(secrets), len(log)>>10, w.printed.Len()>>10, found)
}

// TestAccSecrets_neverShown runs plan, apply, refresh, import, a token
// change, a refused key and destroy with TF_LOG=TRACE: neither the API key
// nor a token shows in the log, the output, the plans' JSON or the errors.
// The log shows each request at DEBUG, so that a user can follow them.
func TestAccSecrets_neverShown(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	apiKey := "key-" + sdkacctest.RandString(24)
	e := acctest.NewEnv(t, sandbox.Config{Keys: []sandbox.KeyBinding{{APIKey: apiKey, WorkspaceID: sandbox.DefaultWorkspaceID}}})
	secrets := map[string]string{
		"API key":        e.APIKey,
		"first token":    "token-" + sdkacctest.RandString(24),
		"second token":   "token-" + sdkacctest.RandString(24),
		"refused key":    "key-" + sdkacctest.RandString(24),
		"write-only key": "token-" + sdkacctest.RandString(24),
	}
	w := &secretWatch{eng: eng, log: filepath.Join(t.TempDir(), "trace.log")}
	dir := acctest.ConfigDir(t, fmt.Sprintf(secretsHCL, acctest.Name("secrets")))
	first := e.ServiceEnv("TF_VAR_token=" + secrets["first token"])
	second := e.ServiceEnv("TF_VAR_token=" + secrets["second token"])
	address := "dataintegration_customer_service_connector.s"

	w.run(t, dir, first, "plan", "-input=false", "-out=create.tfplan")
	w.showJSON(t, dir, "create.tfplan")
	w.run(t, dir, first, "apply", "-input=false", "create.tfplan")
	w.run(t, dir, first, "apply", "-refresh-only", "-auto-approve", "-input=false")
	id := acctest.StateResourceID(t, w.showJSON(t, dir), address)
	w.run(t, dir, nil, "state", "rm", address)
	w.run(t, dir, first, "import", "-input=false", address, e.WorkspaceID+"/"+id)
	w.run(t, dir, second, "plan", "-input=false", "-out=update.tfplan")
	w.showJSON(t, dir, "update.tfplan")
	w.run(t, dir, second, "apply", "-input=false", "update.tfplan")
	if e.Sandbox != nil {
		if v, _ := e.Sandbox.Connector(e.WorkspaceID, id); v.Token != secrets["second token"] {
			t.Error("the second token did not reach the service")
		}
	}
	refused := w.fail(t, dir, append(second, providerenv.APIKey+"="+secrets["refused key"]), "plan", "-input=false")
	if !strings.Contains(refused, "Authentication Failed") {
		t.Errorf("a refused key: %s", refused)
	}
	w.run(t, dir, second, "destroy", "-auto-approve", "-input=false")

	if !eng.Info.Has(acctest.CapWriteOnly) {
		t.Logf("token_wo not exercised: this engine is %s, without %s (%s)", eng.Info, acctest.CapWriteOnly.Name, acctest.CapWriteOnly.Where())
		delete(secrets, "write-only key")
	} else {
		wo := acctest.ConfigDir(t, fmt.Sprintf(writeOnlySecretsHCL, acctest.Name("secrets")))
		vars := e.ServiceEnv("TF_VAR_token=" + secrets["write-only key"])
		w.run(t, wo, vars, "plan", "-input=false", "-out=wo.tfplan")
		w.run(t, wo, nil, "show", "-json", "wo.tfplan") // kept with the output: no token may show
		w.run(t, wo, vars, "apply", "-input=false", "wo.tfplan")
		w.run(t, wo, nil, "show", "-json")
		w.run(t, wo, vars, "destroy", "-auto-approve", "-input=false")
	}
	w.expectNone(t, secrets)
	for _, key := range []string{secrets["API key"], secrets["refused key"]} {
		if strings.Contains(w.json.String(), key) {
			t.Error("`show -json` printed an API key")
		}
	}

	log, err := os.ReadFile(w.log)
	if err != nil {
		t.Fatal(err)
	}
	for _, fields := range [][]string{
		{`method=POST`, `path=/developers/workspaces/[0-9a-f-]+/connectors/ `, `status=201`, `duration_ms=\d+`, `operation="create connector"`},
		{`method=GET`, `path=/developers/workspaces/[0-9a-f-]+/connectors/[0-9a-f-]+/ `, `status=200`, `duration_ms=\d+`},
		{`method=PATCH`, `status=200`},
		{`method=DELETE`, `status=204`},
		{`method=GET`, `status=401`},
	} {
		if !acctest.LogHasRequest(string(log), fields) {
			t.Errorf("the log has no DEBUG line of a request with %v", fields)
		}
	}
}
