package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestNetwork_engineNamedInUserAgent: the User-Agent names the engine and
// the version it gives Configure, then the provider, then
// TF_APPEND_USER_AGENT, as HashiCorp's providers do; the engine is read
// from the executable that started the provider.
func TestNetwork_engineNamedInUserAgent(t *testing.T) {
	for exe, want := range map[string]string{
		"/usr/local/bin/terraform": "Terraform", "/usr/bin/tofu": "OpenTofu", `C:\tools\tofu.exe`: "OpenTofu",
		"/root/go/engines/tofu-1.12.6/tofu": "OpenTofu", "/opt/opentofu/bin/opentofu": "OpenTofu",
		"/home/me/.tenv/Terraform/1.16.4/terraform": "Terraform", "/usr/bin/bash": "Terraform", "terraform.exe": "Terraform",
	} {
		if got := engineOfExecutable(exe); got != want {
			t.Errorf("engineOfExecutable(%q) = %q, want %q", exe, got, want)
		}
	}

	var got []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.UserAgent())
		http.NotFound(w, r)
	}))
	t.Cleanup(ts.Close)
	env := newTestEnv(map[string]string{providerenv.AppendUserAgent: "pipeline/42"})
	defer func(prev func() string) { engineName = prev }(engineName)
	for _, c := range []struct{ engine, version, want string }{
		{"Terraform", "1.5.7", "Terraform/1.5.7 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0 pipeline/42"},
		{"Terraform", "1.16.4", "Terraform/1.16.4 (+https://www.terraform.io) terraform-provider-dataintegration/0.2.0 pipeline/42"},
		// OpenTofu 1.12 gives the Terraform version it supports, not its own.
		{"OpenTofu", "1.13.0", "OpenTofu (+https://opentofu.org; compatible with Terraform 1.13.0) terraform-provider-dataintegration/0.2.0 pipeline/42"},
		{"Terraform", "", "terraform-provider-dataintegration/0.2.0 pipeline/42"},
	} {
		engineName = func() string { return c.engine }
		resp := configureProvider(t, env.getenv, c.version, map[string]any{"base_url": ts.URL, "api_key": "secret-key-1"})
		failOn(t, resp.Diagnostics)
		data, ok := resp.ResourceData.(*providerData)
		if !ok {
			t.Fatalf("resource data %T", resp.ResourceData)
		}
		got = nil
		_, _ = data.client.GetConnector(context.Background(), sandbox.DefaultWorkspaceID, "c-1")
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s %s: User-Agent %q, want %q", c.engine, c.version, got, c.want)
		}
	}
}
