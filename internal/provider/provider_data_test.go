package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// TestProviderData_configuredData: before Configure there is no data and no
// error; the provider's data is handed on as it is; anything else is a bug,
// said so.
func TestProviderData_configuredData(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	if d := configuredData(nil, &diags); d != nil || diags.HasError() {
		t.Errorf("not configured: %v, %v", d, diags)
	}
	want := &providerData{workspaceID: "ws-1"}
	if d := configuredData(want, &diags); d != want || diags.HasError() {
		t.Errorf("configured: %v, %v", d, diags)
	}
	if d := configuredData("not the provider's", &diags); d != nil || !diags.HasError() ||
		diags[0].Summary() != "Unexpected Provider Data" || !strings.Contains(diags[0].Detail(), "got string") {
		t.Errorf("another type: %v, %v", d, diags)
	}
}

// TestProviderData_locksByWorkspaceInAnyCase: a workspace ID is the same UUID
// in any letter case, so it shares its name locks and its reachability check;
// a connector name is not, so another case is another lock.
func TestProviderData_locksByWorkspaceInAnyCase(t *testing.T) {
	t.Parallel()
	var d providerData
	const ws = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"
	if d.reachable.of(ws) != d.reachable.of(strings.ToUpper(ws)) {
		t.Error("a workspace in upper case has a check of its own")
	}
	if d.reachable.of(ws) == d.reachable.of("another") {
		t.Error("two workspaces share a check")
	}
	first := d.names.lock(ws, "desk")
	first.made = append(first.made, "c-1")
	first.mu.Unlock()
	again := d.names.lock(strings.ToUpper(ws), "desk")
	if again != first || len(again.made) != 1 {
		t.Errorf("the lock of desk in the workspace in upper case is another: %+v", again)
	}
	again.mu.Unlock()
	other := d.names.lock(ws, "Desk")
	if other == first {
		t.Error("Desk shares desk's lock")
	}
	other.mu.Unlock()
}
