package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// TestProviderSchemaIsValid checks the provider's own schema and those of its
// resources and data sources, as Terraform would.
func TestProviderSchemaIsValid(t *testing.T) {
	resp := serveProto(t).Schemas
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	for _, name := range []string{"dataintegration_jobs", "dataintegration_job", "dataintegration_customer_service_connector"} {
		if _, ok := resp.DataSourceSchemas[name]; !ok {
			t.Errorf("data source %s is missing", name)
		}
	}
	for _, name := range []string{"dataintegration_customer_service_connector", "dataintegration_job_trigger"} {
		if _, ok := resp.ResourceSchemas[name]; !ok {
			t.Errorf("resource %s is missing", name)
		}
	}
	if _, ok := resp.ListResourceSchemas["dataintegration_customer_service_connector"]; !ok {
		t.Error("list resource dataintegration_customer_service_connector is missing")
	}
	for _, name := range []string{"dataintegration_run_job", "dataintegration_cancel_job"} {
		if _, ok := resp.ActionSchemas[name]; !ok {
			t.Errorf("action %s is missing", name)
		}
	}
}

// TestEverySchemaIsDescribed checks that every attribute and block of the
// provider, its resources, data sources, list resources and actions, and every
// attribute of a resource identity, has a description: docs/ is generated
// from them.
func TestEverySchemaIsDescribed(t *testing.T) {
	resp := serveProto(t).Schemas
	schemas := map[string]*tfprotov6.Schema{"provider": resp.Provider}
	for name, s := range resp.ResourceSchemas {
		schemas["resource "+name] = s
	}
	for name, s := range resp.DataSourceSchemas {
		schemas["data source "+name] = s
	}
	for name, s := range resp.ListResourceSchemas {
		schemas["list resource "+name] = s
	}
	for name, s := range resp.ActionSchemas {
		schemas["action "+name] = s.Schema
	}
	var walk func(where string, b *tfprotov6.SchemaBlock)
	walk = func(where string, b *tfprotov6.SchemaBlock) {
		if strings.TrimSpace(b.Description) == "" {
			t.Errorf("%s has no description", where)
		}
		for _, a := range b.Attributes {
			if strings.TrimSpace(a.Description) == "" {
				t.Errorf("%s: attribute %s has no description", where, a.Name)
			}
		}
		for _, nb := range b.BlockTypes {
			walk(where+" block "+nb.TypeName, nb.Block)
		}
	}
	for where, s := range schemas {
		walk(where, s.Block)
	}
	srv, err := testAccProtoV6ProviderFactories["dataintegration"]()
	if err != nil {
		t.Fatal(err)
	}
	ids, err := srv.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids.IdentitySchemas) == 0 {
		t.Error("no resource has an identity schema")
	}
	for name, s := range ids.IdentitySchemas {
		for _, a := range s.IdentityAttributes {
			if strings.TrimSpace(a.Description) == "" {
				t.Errorf("identity of resource %s: attribute %s has no description", name, a.Name)
			}
		}
	}
}
