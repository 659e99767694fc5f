package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestEnv_settingsFallBackToTheirVariables: with no setting in the
// configuration, Configure takes base_url, api_key and workspace_id from
// the variables providerenv names: the client calls that base URL with that key,
// in that workspace by default, and the logs mask the key.
func TestEnv_settingsFallBackToTheirVariables(t *testing.T) {
	t.Parallel()
	var auth []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		http.NotFound(w, r)
	}))
	t.Cleanup(ts.Close)
	env := newTestEnv(map[string]string{
		providerenv.BaseURL: ts.URL, providerenv.APIKey: "key-from-env-1", providerenv.WorkspaceID: sandbox.DefaultWorkspaceID, providerenv.CACertificate: "",
	})
	resp := configureProvider(t, env.getenv, "1.16.4", nil)
	failOn(t, resp.Diagnostics)
	data, ok := resp.ResourceData.(*providerData)
	if !ok {
		t.Fatalf("resource data %T", resp.ResourceData)
	}
	if data.workspaceID != sandbox.DefaultWorkspaceID {
		t.Errorf("workspace %q, want %q from %s", data.workspaceID, sandbox.DefaultWorkspaceID, providerenv.WorkspaceID)
	}
	if !slices.Contains(data.secrets, "key-from-env-1") {
		t.Errorf("the logs mask %d secrets, not the key from %s", len(data.secrets), providerenv.APIKey)
	}
	_, _ = data.client.GetConnector(context.Background(), data.workspaceID, "c-1")
	if len(auth) == 0 || !slices.ContainsFunc(auth, func(a string) bool { return strings.HasSuffix(a, "key-from-env-1") }) {
		t.Errorf("requests to %s carried Authorization %q, want the key from %s", providerenv.BaseURL, auth, providerenv.APIKey)
	}
}
