package acctest

import (
	"slices"
	"testing"
)

// TestEngine_capabilities checks the capability table against the engines
// users run, and that OpenTofu's numbers alone grant nothing.
func TestEngine_capabilities(t *testing.T) {
	t.Parallel()
	cases := []struct {
		version string // first line of `version`
		want    []Capability
	}{
		{"Terraform v1.4.7", nil},
		{"Terraform v1.5.7\non linux_amd64", []Capability{CapImportBlocks}},
		{"Terraform v1.6.6", []Capability{CapImportBlocks}},
		{"Terraform v1.7.0", []Capability{CapImportBlocks, CapTestMocks}},
		{"Terraform v1.10.5", []Capability{CapImportBlocks, CapTestMocks}},
		{"Terraform v1.11.4", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly}},
		{"Terraform v1.12.0-rc1", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity}},
		{"Terraform v1.13.3", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity}},
		{"Terraform v1.14.0", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity, CapActions, CapListResources}},
		{"Terraform v1.15.6", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity, CapActions, CapListResources}},
		{"Terraform v1.16.0-beta1", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity, CapActions, CapListResources, CapActionTriggers, CapModuleImports}},
		{"Terraform v1.16.4\non linux_amd64", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity, CapActions, CapListResources, CapActionTriggers, CapModuleImports}},
		{"OpenTofu v1.6.0", []Capability{CapImportBlocks}},
		{"OpenTofu v1.7.3", []Capability{CapImportBlocks}},
		{"OpenTofu v1.8.0", []Capability{CapImportBlocks, CapTestMocks}},
		{"OpenTofu v1.10.6", []Capability{CapImportBlocks, CapTestMocks}},
		{"OpenTofu v1.11.0", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly}},
		{"OpenTofu v1.12.6", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity}},
		{"OpenTofu v1.14.0", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity}},
		{"OpenTofu v1.16.0", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity}},
		{"OpenTofu v2.0.0", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity}},
		// OpenTofu writes a warning about a missing CLI configuration first.
		{"\nWarning: Unable to open CLI configuration file\n\nOpenTofu v1.12.6\non linux_amd64", []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity}},
	}
	all := []Capability{CapImportBlocks, CapTestMocks, CapWriteOnly, CapIdentity, CapActions, CapListResources, CapActionTriggers, CapModuleImports}
	for _, c := range cases {
		info, err := parseEngineVersion(c.version)
		if err != nil {
			t.Fatalf("%q: %v", c.version, err)
		}
		for _, feature := range all {
			if got, want := info.Has(feature), slices.Contains(c.want, feature); got != want {
				t.Errorf("%s has %s: %v, want %v", info, feature.Name, got, want)
			}
		}
	}
	if _, err := parseEngineVersion("tofu: command not found"); err == nil {
		t.Error("an output that names no engine was read as a version")
	}
}

func TestEngine_countWarnings(t *testing.T) {
	t.Parallel()
	out := `
Warning: Prefer token_wo

  with a.b,
  on main.tf line 1:
   1: resource "a" "b" {

token is kept in the state.

(and 19 more similar warnings elsewhere)

Warning: Other

(and one more similar warning elsewhere)

Warning: Prefer token_wo

(and one more similar warning elsewhere)
`
	if got := CountWarnings(out, "Prefer token_wo"); got != 22 {
		t.Errorf("countWarnings = %d, want 22", got)
	}
	if got := CountWarnings(out, "Other"); got != 2 {
		t.Errorf("countWarnings(Other) = %d, want 2", got)
	}
}
