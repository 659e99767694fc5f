package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccConnector_generateConfig imports a connector with an import block
// and `plan -generate-config-out`, as the connector's docs describe. The
// file generated (with `token = null` and `token_wo = null`) plans the
// import alone; with the token added as the docs say, the plan is one
// import and one update in place, which sends the token; the apply works,
// and the next plan is empty.
func TestAccConnector_generateConfig(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapImportBlocks)
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	name := acctest.Name("generated")
	made := e.MakeConnector(t, name, "tickets", "chats")
	const address = "dataintegration_customer_service_connector.desk"
	dir := acctest.ConfigDir(t, e.ProviderConfig()+acctest.ImportBlock(address, e.WorkspaceID+"/"+made.ID))
	plan := func(want ...string) {
		t.Helper()
		actions, imports := eng.Plan(t, dir, nil)
		acctest.ExpectActions(t, actions, address, want...)
		if len(actions) != 1 {
			t.Errorf("the plan's actions are %v, want %s's alone", actions, address)
		}
		if len(imports) != 1 || imports[0] != address {
			t.Errorf("the plan imports %v, want %s", imports, address)
		}
	}

	eng.Run(t, dir, nil, "plan", "-input=false", "-no-color", "-generate-config-out=generated.tf")
	generated, err := os.ReadFile(filepath.Join(dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if !acctest.GeneratedTokenLine.Match(generated) || !regexp.MustCompile(`(?m)^\s*token_wo\s*=\s*null`).Match(generated) {
		t.Fatalf("the generated file has no `token = null` and `token_wo = null` lines, which the docs tell how to edit:\n%s", generated)
	}
	// As generated, the connector is imported with the token the service
	// holds, and nothing changes.
	plan("no-op")

	// The docs: replace `token = null` with the token.
	edited := acctest.GeneratedTokenLine.ReplaceAll(generated, []byte(`${1}token = "platform-token-1"`))
	if err := os.WriteFile(filepath.Join(dir, "generated.tf"), edited, 0o600); err != nil {
		t.Fatal(err)
	}
	plan("update")
	eng.Run(t, dir, nil, "apply", "-input=false", "-no-color", "tfplan")
	if e.Sandbox != nil {
		if v, ok := e.Sandbox.Connector(e.WorkspaceID, made.ID); !ok || v.Token != "platform-token-1" || v.TokenWrites != 2 {
			t.Errorf("after apply the sandbox holds %+v, want the token sent once more", v)
		}
	}
	eng.ExpectConverged(t, dir, nil)
}
