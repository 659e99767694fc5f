package provider

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestSecretLines: no diagnostic about api_key, token or token_wo points at
// the attribute, whose configuration line the engine would print with the
// secret on it; each names the attribute instead. Diagnostics about other
// attributes keep pointing at them. Without write-only attributes (Terraform
// before 1.11), the framework's own refusal of token_wo is moved too.
func TestSecretLines(t *testing.T) {
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
		{"another attribute", validate(with("token", "tok-literal-1", "url", "http://acme.example.com"), false), "url", "url"},
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
				if name == "token" || name == "token_wo" {
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
}
