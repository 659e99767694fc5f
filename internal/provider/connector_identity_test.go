package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// connectorIdentity checks a connector's identity: its ID, as the state
// holds it, and workspace ws.
func connectorIdentity(address, ws string) statecheck.StateCheck {
	return statecheck.ExpectIdentity(address, map[string]knownvalue.Check{
		"id":           knownvalue.StringRegexp(acctest.UUIDRE),
		"workspace_id": knownvalue.StringExact(ws),
	})
}

// TestAccConnector_identity: a connector created by Terraform has an
// identity, its ID and workspace, which an update leaves as it is; an
// import block with that identity imports the same connector, planning
// nothing.
func TestAccConnector_identity(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	acctest.RequireCapability(t, acctest.CapIdentity)
	name := acctest.Name("identity")
	args := acctest.NewConnectorArgs(name)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.ConnectorsGone(t),
		Steps: []resource.TestStep{
			{
				Config: e.ProviderConfig() + args.HCL(),
				ConfigStateChecks: []statecheck.StateCheck{
					connectorIdentity(acctest.ConnectorAddress, e.WorkspaceID),
					statecheck.ExpectIdentityValueMatchesState(acctest.ConnectorAddress, tfjsonpath.New("id")),
					statecheck.ExpectIdentityValueMatchesState(acctest.ConnectorAddress, tfjsonpath.New("workspace_id")),
				},
			},
			{
				Config: e.ProviderConfig() + args.With("name", fmt.Sprintf("%q", name+" renamed"), "streams", `["tickets"]`).HCL(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					connectorIdentity(acctest.ConnectorAddress, e.WorkspaceID),
					statecheck.ExpectIdentityValueMatchesState(acctest.ConnectorAddress, tfjsonpath.New("id")),
				},
			},
			{
				// As -generate-config-out would write it: no token, which
				// keeps the service's, so the import plans nothing else.
				Config:          e.ProviderConfig() + args.With("name", fmt.Sprintf("%q", name+" renamed"), "streams", `["tickets"]`, "token", "").HCL(),
				ResourceName:    acctest.ConnectorAddress,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}

// TestAccConnector_importByIdentity imports a connector made outside
// Terraform with an import block's identity: its id alone (the workspace
// is the provider's), in upper case, and with workspace_id too. The
// identity recorded is the one imported, and neither the import nor a
// later plan shows a difference of letter case.
func TestAccConnector_importByIdentity(t *testing.T) {
	for _, c := range []struct {
		name     string
		identity func(e *acctest.Env, id string) []string
	}{
		{"id alone", func(_ *acctest.Env, id string) []string { return []string{"id", fmt.Sprintf("%q", id)} }},
		{"id and workspace_id in upper case", func(e *acctest.Env, id string) []string {
			return []string{"id", fmt.Sprintf("%q", strings.ToUpper(id)), "workspace_id", fmt.Sprintf("%q", strings.ToUpper(e.WorkspaceID))}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := acctest.NewEnv(t, sandbox.Config{Jobs: 0, Keys: acctest.LetteredWorkspace})
			acctest.RequireCapability(t, acctest.CapIdentity)
			name := acctest.Name("identity import")
			made := e.MakeConnector(t, name)
			identity := c.identity(e, made.ID)
			wantWS := e.WorkspaceID
			if len(identity) > 2 {
				wantWS = strings.ToUpper(e.WorkspaceID)
			}
			config := e.ProviderConfig() + acctest.IdentityImportBlock(acctest.ConnectorAddress, identity...) + acctest.NewConnectorArgs(name).HCL()
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             e.ConnectorsGone(t),
				Steps: []resource.TestStep{
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							// The import, and the token sent once.
							PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ConnectorAddress, plancheck.ResourceActionUpdate)},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("id"), knownvalue.StringExact(made.ID)),
							statecheck.ExpectKnownValue(acctest.ConnectorAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(wantWS)),
							statecheck.ExpectIdentity(acctest.ConnectorAddress, map[string]knownvalue.Check{
								"id":           knownvalue.StringFunc(func(v string) error { return expectSameID(v, made.ID) }),
								"workspace_id": knownvalue.StringExact(wantWS),
							}),
						},
						Check: e.ExpectStored(t, acctest.StoredToken("platform-token-1", 2)),
					},
					{
						// The workspace in the configuration, in the other
						// case than the identity's: no change.
						Config: e.ProviderConfig() + acctest.NewConnectorArgs(name).With("workspace_id", fmt.Sprintf("%q", strings.ToLower(e.WorkspaceID))).HCL(),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
					},
				},
			})
		})
	}
}

// expectSameID fails unless got is the UUID want in some letter case.
func expectSameID(got, want string) error {
	if !sameID(got, want) {
		return fmt.Errorf("%s is not %s", got, want)
	}
	return nil
}

// TestAccConnector_importByIdentityRefused: an identity whose id is not a
// UUID, whose workspace_id is blank, or whose workspace the provider cannot
// supply, is refused before any request.
func TestAccConnector_importByIdentityRefused(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	acctest.RequireCapability(t, acctest.CapIdentity)
	t.Setenv(EnvWorkspaceID, "")
	const id = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      e.ProviderConfig() + acctest.IdentityImportBlock(acctest.ConnectorAddress, "id", `"support-desk"`) + acctest.NewConnectorArgs("desk").HCL(),
				ExpectError: acctest.Phrases("Invalid Import Identity", `got id "support-desk" and no workspace_id`),
			},
			{
				// A blank workspace_id is refused, not taken as left out.
				Config:      e.ProviderConfig() + acctest.IdentityImportBlock(acctest.ConnectorAddress, "id", fmt.Sprintf("%q", id), "workspace_id", `""`) + acctest.NewConnectorArgs("desk").HCL(),
				ExpectError: acctest.Phrases("Invalid Import Identity", fmt.Sprintf(`got id %q and workspace_id ""`, id)),
			},
			{
				Config: e.ProviderWithoutWorkspace() + acctest.IdentityImportBlock(acctest.ConnectorAddress, "id", fmt.Sprintf("%q", id)) +
					acctest.NewConnectorArgs("desk").With("workspace_id", fmt.Sprintf("%q", e.WorkspaceID)).HCL(),
				ExpectError: acctest.Phrases("Missing Workspace", "The import identity of connector "+id+" names no workspace_id",
					"the provider has no workspace_id", "Give workspace_id in the import block's identity"),
			},
		},
	})
	e.ExpectNoRequests(t)
}

// TestAccConnector_identityAddedToOldState: a state written before the
// connector had an identity (by this provider before it had one, or by an
// engine without identities) gains the identity at the next refresh, and
// the plan is empty. The state is written by the engine under test, then
// its identity taken out, as such a state has none.
func TestAccConnector_identityAddedToOldState(t *testing.T) {
	eng := acctest.NewEngine(t)
	acctest.RequireCapability(t, acctest.CapIdentity)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	dir := acctest.ConfigDir(t, e.ProviderConfig()+acctest.NewConnectorArgs(acctest.Name("old state")).HCL())
	eng.Run(t, dir, nil, "apply", "-auto-approve", "-input=false", "-no-color")
	id := acctest.StateResourceID(t, eng.Run(t, dir, nil, "show", "-json"), acctest.ConnectorAddress)
	t.Cleanup(func() { eng.Run(t, dir, nil, "destroy", "-auto-approve", "-input=false", "-no-color") })

	stateFile := filepath.Join(dir, "terraform.tfstate")
	stripIdentities(t, stateFile)
	eng.ExpectConverged(t, dir, nil)
	eng.Run(t, dir, nil, "apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	if got := stateIdentity(t, stateFile, acctest.ConnectorAddress); got["id"] != id || got["workspace_id"] != e.WorkspaceID {
		t.Errorf("after a refresh the identity is %v, want id %s and workspace_id %s", got, id, e.WorkspaceID)
	}
	eng.ExpectConverged(t, dir, nil)

	// Deleted outside Terraform, the connector of such a state is planned
	// for creation, as any other.
	stripIdentities(t, stateFile)
	if err := e.Client(t).DeleteConnector(context.Background(), e.WorkspaceID, id); err != nil {
		t.Fatal(err)
	}
	actions, _ := eng.Plan(t, dir, nil)
	acctest.ExpectActions(t, actions, acctest.ConnectorAddress, "create")
}

// stripIdentities takes the identities out of a state file, as a state
// written without them holds none, and fails unless there was one.
func stripIdentities(t *testing.T, stateFile string) {
	t.Helper()
	raw, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	stripped := 0
	for _, r := range st["resources"].([]any) {
		for _, inst := range r.(map[string]any)["instances"].([]any) {
			i := inst.(map[string]any)
			if _, ok := i["identity"]; ok {
				stripped++
			}
			delete(i, "identity")
			delete(i, "identity_schema_version")
		}
	}
	if stripped != 1 {
		t.Fatalf("the state holds %d identities, want the connector's: %s", stripped, raw)
	}
	st["serial"] = st["serial"].(float64) + 1
	if raw, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stateFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// stateIdentity reads the identity of a resource of the root module from
// a state file.
func stateIdentity(t *testing.T, stateFile, address string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				Identity map[string]any `json:"identity"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Resources {
		if r.Type+"."+r.Name == address && len(r.Instances) == 1 {
			return r.Instances[0].Identity
		}
	}
	t.Fatalf("%s is not in the state file", address)
	return nil
}
