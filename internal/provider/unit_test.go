package provider

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// unitSandbox is a sandbox and the provider data of a client to it, for
// tests that call a resource's methods directly.
func unitSandbox(t *testing.T, cfg sandbox.Config, apiKey string) (*sandbox.Server, *providerData) {
	t.Helper()
	return unitSandboxAt(t, cfg, apiKey, "")
}

// unitSandboxAt is unitSandbox with a path after the sandbox's address in
// the client's base URL.
func unitSandboxAt(t *testing.T, cfg sandbox.Config, apiKey, basePath string, edit ...func(*client.Config)) (*sandbox.Server, *providerData) {
	t.Helper()
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	conf := client.Config{BaseURL: ts.URL + basePath, APIKey: apiKey, MaxRetries: 0}
	for _, e := range edit {
		e(&conf)
	}
	c, err := client.New(conf)
	if err != nil {
		t.Fatal(err)
	}
	return srv, &providerData{client: c, workspaceID: srv.Workspaces()[0], secrets: []string{apiKey}}
}

// configured is r after Configure with data.
func configured(t *testing.T, r resource.Resource, data *providerData) resource.Resource {
	t.Helper()
	var resp resource.ConfigureResponse
	r.(resource.ResourceWithConfigure).Configure(context.Background(), resource.ConfigureRequest{ProviderData: data}, &resp)
	failOn(t, resp.Diagnostics)
	return r
}

// stateOf is r's state holding model.
func stateOf(t *testing.T, r resource.Resource, model any) tfsdk.State {
	t.Helper()
	ctx := context.Background()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	st := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
	failOn(t, st.Set(ctx, model))
	return st
}

// destroy calls r's Delete on a state holding model.
func destroy(t *testing.T, r resource.Resource, model any) diag.Diagnostics {
	t.Helper()
	var resp resource.DeleteResponse
	r.Delete(context.Background(), resource.DeleteRequest{State: stateOf(t, r, model)}, &resp)
	return resp.Diagnostics
}

func failOn(t *testing.T, diags diag.Diagnostics) {
	t.Helper()
	for _, d := range diags {
		t.Fatalf("%s: %s: %s", d.Severity(), d.Summary(), d.Detail())
	}
}
