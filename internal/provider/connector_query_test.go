package provider

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// tokenVariable declares the token that the generated configuration is
// given by hand.
const tokenVariable = `
variable "platform_token" {
  type      = string
  sensitive = true
}
`

// queryFound is a connector that `terraform query -json` found.
type queryFound struct {
	Address     string            `json:"address"`
	DisplayName string            `json:"display_name"`
	Identity    map[string]string `json:"identity"`
}

// query runs `terraform query -json` in dir with extra arguments, and
// returns what it found.
func query(eng *acctest.Engine, t testing.TB, dir string, env []string, args ...string) []queryFound {
	t.Helper()
	out := eng.Run(t, dir, env, append([]string{"query", "-json", "-no-color"}, args...)...)
	var found []queryFound
	lines := bufio.NewScanner(strings.NewReader(out))
	for lines.Scan() {
		var msg struct {
			Type  string     `json:"type"`
			Found queryFound `json:"list_resource_found"`
		}
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Fatalf("query -json printed %q: %v", lines.Text(), err)
		}
		if msg.Type == "list_resource_found" {
			found = append(found, msg.Found)
		}
	}
	return found
}

// TestAccConnectorList_generateConfig adopts three connectors made outside
// Terraform as the list resource's docs say: `terraform query
// -generate-config-out` writes an import block by identity and a resource
// block for each; with the token added and nothing else, the plan is three
// imports and three updates in place (the token sent once each); the apply
// works, the next plan is empty, and the service holds the same three
// connectors, none created or doubled.
func TestAccConnectorList_generateConfig(t *testing.T) {
	eng := acctest.NewEngine(t)
	acctest.RequireCapability(t, acctest.CapListResources)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "have a workspace of the test's own: the query adopts every connector in it")
	names := []string{acctest.Name("adopt a"), acctest.Name("adopt b"), acctest.Name("adopt c")}
	var ids []string
	for _, n := range names {
		ids = append(ids, e.MakeConnector(t, n, "tickets").ID)
	}
	dir := acctest.ConfigDir(t, e.ProviderConfig()+tokenVariable)
	if err := os.WriteFile(filepath.Join(dir, "connectors.tfquery.hcl"), []byte(acctest.ListBlock("all", []string{"include_resource = true"}, nil)), 0o600); err != nil {
		t.Fatal(err)
	}

	token := "TF_VAR_platform_token=" + acctest.Name("token")
	found := query(eng, t, dir, []string{token})
	if len(found) != len(names) {
		t.Fatalf("query found %+v, want the %d connectors", found, len(names))
	}
	for _, f := range found {
		i := slices.Index(names, f.DisplayName)
		if i < 0 || f.Identity["id"] != ids[i] || f.Identity["workspace_id"] != e.WorkspaceID {
			t.Errorf("query found %+v, which is none of the connectors %v", f, ids)
		}
	}

	eng.Run(t, dir, []string{token}, "query", "-no-color", "-generate-config-out=generated.tf")
	generated, err := os.ReadFile(filepath.Join(dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(acctest.GeneratedTokenLine.FindAll(generated, -1)); n != len(names) {
		t.Fatalf("the generated file has %d `token = null` lines, want one per connector:\n%s", n, generated)
	}
	for _, id := range ids {
		if !regexp.MustCompile(`(?m)^\s*id\s*=\s*"` + id + `"$`).Match(generated) {
			t.Errorf("the generated file imports no connector %s:\n%s", id, generated)
		}
	}
	edited := acctest.GeneratedTokenLine.ReplaceAll(generated, []byte(`${1}token = var.platform_token`))
	if err := os.WriteFile(filepath.Join(dir, "generated.tf"), edited, 0o600); err != nil {
		t.Fatal(err)
	}

	actions, imports := eng.Plan(t, dir, []string{token})
	if len(actions) != len(names) || len(imports) != len(names) {
		t.Errorf("the plan has actions %v and imports %v, want %d imports", actions, imports, len(names))
	}
	for address := range actions {
		acctest.ExpectActions(t, actions, address, "update")
	}
	eng.Run(t, dir, []string{token}, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, []string{token})

	if held := e.Sandbox.ConnectorIDs(e.WorkspaceID); !acctest.SameIDs(held, ids) {
		t.Errorf("the workspace holds connectors %v, want the same three %v", held, ids)
	}
	for _, id := range ids {
		if v, _ := e.Sandbox.Connector(e.WorkspaceID, id); v.Token != strings.TrimPrefix(token, "TF_VAR_platform_token=") || v.TokenWrites != 2 {
			t.Errorf("connector %s was sent the token %d times in all, want twice: when made, and once on adoption", id, v.TokenWrites)
		}
	}
	if got := eng.StateIDs(t, dir, acctest.ConnectorType); len(got) != len(ids) {
		t.Errorf("the state holds connectors %v, want the three", got)
	}
}

// TestAccConnectorList_adoptLostState: a connector whose state was lost
// (here by `state rm`, as a killed apply or an old backup leaves it) would
// be created a second time. `terraform query` with its name finds it, an
// import block with the identity found adopts it at the address the
// configuration has, and the next plan is empty, with the service holding
// each connector once.
func TestAccConnectorList_adoptLostState(t *testing.T) {
	eng := acctest.NewEngine(t)
	acctest.RequireCapability(t, acctest.CapListResources)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	e.RequireSandbox(t, "count the workspace's connectors")
	names := []string{acctest.Name("kept a"), acctest.Name("lost b"), acctest.Name("kept c")}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	config := e.ProviderConfig() + fmt.Sprintf(`
resource "dataintegration_customer_service_connector" "desk" {
  for_each    = toset([%s])
  name        = each.key
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = "platform-token-1"
}
`, strings.Join(quoted, ", "))
	dir := acctest.ConfigDir(t, config)
	eng.Run(t, dir, nil, "apply", "-auto-approve", "-input=false", "-no-color")
	t.Cleanup(func() { eng.Run(t, dir, nil, "destroy", "-auto-approve", "-input=false", "-no-color") })
	before := e.Sandbox.ConnectorIDs(e.WorkspaceID)
	lost := fmt.Sprintf("%s.desk[%q]", acctest.ConnectorType, names[1])
	eng.Run(t, dir, nil, "state", "rm", lost)

	actions, _ := eng.Plan(t, dir, nil)
	acctest.ExpectActions(t, actions, lost, "create") // the duplicate that adoption avoids

	if err := os.WriteFile(filepath.Join(dir, "lost.tfquery.hcl"), []byte(acctest.ListBlock("lost", nil, []string{fmt.Sprintf("name = %q", names[1])})), 0o600); err != nil {
		t.Fatal(err)
	}
	found := query(eng, t, dir, nil)
	if len(found) != 1 || found[0].DisplayName != names[1] {
		t.Fatalf("query by name found %+v, want the lost connector alone", found)
	}
	adopt := acctest.IdentityImportBlock(lost, "id", fmt.Sprintf("%q", found[0].Identity["id"]), "workspace_id", fmt.Sprintf("%q", found[0].Identity["workspace_id"]))
	if err := os.WriteFile(filepath.Join(dir, "adopt.tf"), []byte(adopt), 0o600); err != nil {
		t.Fatal(err)
	}
	actions, imports := eng.Plan(t, dir, nil)
	acctest.ExpectActions(t, actions, lost, "update") // the token, sent once
	if len(imports) != 1 || imports[0] != lost {
		t.Errorf("the plan imports %v, want %s", imports, lost)
	}
	for address, a := range actions {
		if address != lost && !slices.Equal(a, []string{"no-op"}) {
			t.Errorf("%s: planned %v, want no change", address, a)
		}
	}
	eng.Run(t, dir, nil, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, nil)
	if after := e.Sandbox.ConnectorIDs(e.WorkspaceID); !acctest.SameIDs(after, before) {
		t.Errorf("the workspace holds connectors %v, want the same as before %v", after, before)
	}
	if got := eng.StateIDs(t, dir, acctest.ConnectorType); len(got) != len(names) {
		t.Errorf("the state holds connectors %v, want the three", got)
	}
}
