package provider

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// An unknown or bad max_retries, max_concurrent_requests or request_timeout
// is an error on that attribute, so that Terraform points at the line that
// sets it. (Terraform checks a bad value with the schema's validators before
// Configure; Configure checks it again, as it does the values of the
// environment.)
func TestConfigurePutsASettingsErrorOnItsAttribute(t *testing.T) {
	t.Setenv(EnvWorkspaceID, "")
	for _, c := range []struct {
		name, attr, summary string
		value               any
	}{
		{"unknown max_retries", "max_retries", "Unknown Provider Setting", tftypes.UnknownValue},
		{"unknown request_timeout", "request_timeout", "Unknown Provider Setting", tftypes.UnknownValue},
		{"too many retries", "max_retries", "Invalid Provider Setting", big.NewFloat(101)},
		{"retries not whole", "max_retries", "Invalid Provider Setting", big.NewFloat(1.5)},
		{"unknown max_concurrent_requests", "max_concurrent_requests", "Unknown Provider Setting", tftypes.UnknownValue},
		{"no request at a time", "max_concurrent_requests", "Invalid Provider Setting", big.NewFloat(0)},
		{"requests at a time not whole", "max_concurrent_requests", "Invalid Provider Setting", big.NewFloat(2.5)},
		{"timeout not a duration", "request_timeout", "Invalid Provider Setting", "soon"},
		{"timeout not positive", "request_timeout", "Invalid Provider Setting", "0s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			diags := configure(t, map[string]any{
				"base_url": "http://127.0.0.1:1", "api_key": "secret-key-1", c.attr: c.value,
			})
			if len(diags) != 1 {
				t.Fatalf("want one error, got %v", diags)
			}
			d, ok := diags[0].(diag.DiagnosticWithPath)
			if !ok || !d.Path().Equal(path.Root(c.attr)) || d.Summary() != c.summary {
				t.Errorf("want %q on %s, got %q (%T): %s", c.summary, c.attr, diags[0].Summary(), diags[0], diags[0].Detail())
			}
		})
	}
}

// configure runs the provider's Configure on a configuration of the given
// settings, every other one null, and returns its diagnostics.
func configure(t *testing.T, settings map[string]any) diag.Diagnostics {
	t.Helper()
	ctx := context.Background()
	p := New("test")()
	var sr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sr)
	typ, ok := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatalf("the provider's schema is not an object")
	}
	var resp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, acctest.ObjectAttrs(typ, settings))}}, &resp)
	return resp.Diagnostics
}

// TestRetryBudgetInWords: the docs give the client's retry budget in words.
func TestRetryBudgetInWords(t *testing.T) {
	if d, err := time.ParseDuration(strings.ReplaceAll(strings.TrimSuffix(retryBudgetText, "utes"), " min", "m")); err != nil || d != client.DefaultRetryBudget {
		t.Errorf("the docs say %q, the client retries for %v", retryBudgetText, client.DefaultRetryBudget)
	}
}
