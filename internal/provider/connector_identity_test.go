package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// identityImportBlock is an import block by identity; attrs are the
// identity's attributes as HCL expressions.
func identityImportBlock(to string, attrs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "import {\n  to = %s\n  identity = {\n", to)
	for i := 0; i+1 < len(attrs); i += 2 {
		fmt.Fprintf(&b, "    %s = %s\n", attrs[i], attrs[i+1])
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// connectorIdentity checks a connector's identity: its ID, as the state
// holds it, and workspace ws.
func connectorIdentity(address, ws string) statecheck.StateCheck {
	return statecheck.ExpectIdentity(address, map[string]knownvalue.Check{
		"id":           knownvalue.StringRegexp(uuidRE),
		"workspace_id": knownvalue.StringExact(ws),
	})
}

// TestAccConnector_identity: a connector created by Terraform has an
// identity, its ID and workspace, which an update leaves as it is; an
// import block with that identity imports the same connector, planning
// nothing.
func TestAccConnector_identity(t *testing.T) {
	e := newTestEnv(t, sandbox.Config{Jobs: 0})
	requireCapability(t, capIdentity)
	name := testName("identity")
	args := newConnectorArgs(name)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.connectorsGone(t),
		Steps: []resource.TestStep{
			{
				Config: e.providerConfig() + args.hcl(),
				ConfigStateChecks: []statecheck.StateCheck{
					connectorIdentity(connectorAddress, e.workspaceID),
					statecheck.ExpectIdentityValueMatchesState(connectorAddress, tfjsonpath.New("id")),
					statecheck.ExpectIdentityValueMatchesState(connectorAddress, tfjsonpath.New("workspace_id")),
				},
			},
			{
				Config: e.providerConfig() + args.with("name", fmt.Sprintf("%q", name+" renamed"), "streams", `["tickets"]`).hcl(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(connectorAddress, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					connectorIdentity(connectorAddress, e.workspaceID),
					statecheck.ExpectIdentityValueMatchesState(connectorAddress, tfjsonpath.New("id")),
				},
			},
			{
				// As -generate-config-out would write it: no token, which
				// keeps the service's, so the import plans nothing else.
				Config:          e.providerConfig() + args.with("name", fmt.Sprintf("%q", name+" renamed"), "streams", `["tickets"]`, "token", "").hcl(),
				ResourceName:    connectorAddress,
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
		identity func(e *testEnv, id string) []string
	}{
		{"id alone", func(_ *testEnv, id string) []string { return []string{"id", fmt.Sprintf("%q", id)} }},
		{"id and workspace_id in upper case", func(e *testEnv, id string) []string {
			return []string{"id", fmt.Sprintf("%q", strings.ToUpper(id)), "workspace_id", fmt.Sprintf("%q", strings.ToUpper(e.workspaceID))}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t, sandbox.Config{Jobs: 0, Keys: letteredWorkspace})
			requireCapability(t, capIdentity)
			name := testName("identity import")
			made := e.makeConnector(t, name)
			identity := c.identity(e, made.ID)
			wantWS := e.workspaceID
			if len(identity) > 2 {
				wantWS = strings.ToUpper(e.workspaceID)
			}
			config := e.providerConfig() + identityImportBlock(connectorAddress, identity...) + newConnectorArgs(name).hcl()
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             e.connectorsGone(t),
				Steps: []resource.TestStep{
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							// The import, and the token sent once.
							PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(connectorAddress, plancheck.ResourceActionUpdate)},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(connectorAddress, tfjsonpath.New("id"), knownvalue.StringExact(made.ID)),
							statecheck.ExpectKnownValue(connectorAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(wantWS)),
							statecheck.ExpectIdentity(connectorAddress, map[string]knownvalue.Check{
								"id":           knownvalue.StringFunc(func(v string) error { return expectSameID(v, made.ID) }),
								"workspace_id": knownvalue.StringExact(wantWS),
							}),
						},
						Check: e.expectStored(t, storedToken("platform-token-1", 2)),
					},
					{
						// The workspace in the configuration, in the other
						// case than the identity's: no change.
						Config: e.providerConfig() + newConnectorArgs(name).with("workspace_id", fmt.Sprintf("%q", strings.ToLower(e.workspaceID))).hcl(),
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
	e := newTestEnv(t, sandbox.Config{Jobs: 0})
	requireCapability(t, capIdentity)
	t.Setenv(EnvWorkspaceID, "")
	const id = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      e.providerConfig() + identityImportBlock(connectorAddress, "id", `"support-desk"`) + newConnectorArgs("desk").hcl(),
				ExpectError: phrases("Invalid Import Identity", `got id "support-desk" and no workspace_id`),
			},
			{
				// A blank workspace_id is refused, not taken as left out.
				Config:      e.providerConfig() + identityImportBlock(connectorAddress, "id", fmt.Sprintf("%q", id), "workspace_id", `""`) + newConnectorArgs("desk").hcl(),
				ExpectError: phrases("Invalid Import Identity", fmt.Sprintf(`got id %q and workspace_id ""`, id)),
			},
			{
				Config: e.providerWithoutWorkspace() + identityImportBlock(connectorAddress, "id", fmt.Sprintf("%q", id)) +
					newConnectorArgs("desk").with("workspace_id", fmt.Sprintf("%q", e.workspaceID)).hcl(),
				ExpectError: phrases("Missing Workspace", "The import identity of connector "+id+" names no workspace_id",
					"the provider has no workspace_id", "Give workspace_id in the import block's identity"),
			},
		},
	})
	e.expectNoRequests(t)
}

// TestAccConnector_identityAddedToOldState: a state written before the
// connector had an identity (by this provider before it had one, or by an
// engine without identities) gains the identity at the next refresh, and
// the plan is empty. The state is written by the engine under test, then
// its identity taken out, as such a state has none.
func TestAccConnector_identityAddedToOldState(t *testing.T) {
	eng := newEngine(t)
	requireCapability(t, capIdentity)
	e := newTestEnv(t, sandbox.Config{Jobs: 0})
	dir := configDir(t, e.providerConfig()+newConnectorArgs(testName("old state")).hcl())
	eng.run(t, dir, nil, "apply", "-auto-approve", "-input=false", "-no-color")
	id := stateResourceID(t, eng.run(t, dir, nil, "show", "-json"), connectorAddress)
	t.Cleanup(func() { eng.run(t, dir, nil, "destroy", "-auto-approve", "-input=false", "-no-color") })

	stateFile := filepath.Join(dir, "terraform.tfstate")
	stripIdentities(t, stateFile)
	eng.expectConverged(t, dir, nil)
	eng.run(t, dir, nil, "apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	if got := stateIdentity(t, stateFile, connectorAddress); got["id"] != id || got["workspace_id"] != e.workspaceID {
		t.Errorf("after a refresh the identity is %v, want id %s and workspace_id %s", got, id, e.workspaceID)
	}
	eng.expectConverged(t, dir, nil)

	// Deleted outside Terraform, the connector of such a state is planned
	// for creation, as any other.
	stripIdentities(t, stateFile)
	if err := e.client(t).DeleteConnector(context.Background(), e.workspaceID, id); err != nil {
		t.Fatal(err)
	}
	actions, _ := eng.plan(t, dir, nil)
	expectActions(t, actions, connectorAddress, "create")
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
