package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// protoProvider is the provider as Terraform talks to it, over protocol 6,
// in-process: what runs between a request for a data source and the state
// Terraform receives, with nothing of Terraform's own.
type protoProvider struct {
	srv     tfprotov6.ProviderServer
	schemas *tfprotov6.GetProviderSchemaResponse
}

// newProtoProvider serves and configures the provider.
func newProtoProvider(tb testing.TB, settings map[string]string) *protoProvider {
	tb.Helper()
	p := serveProto(tb)
	cfg := protoValue(tb, p.schemas.Provider, settings)
	resp, err := p.srv.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: &cfg})
	if err != nil {
		tb.Fatal(err)
	}
	failOnProto(tb, resp.Diagnostics)
	return p
}

// serveProto serves the provider, not configured yet: enough to validate
// configurations as Terraform does before a plan.
func serveProto(tb testing.TB) *protoProvider {
	tb.Helper()
	srv, err := NewServer("test")()
	if err != nil {
		tb.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	return &protoProvider{srv: srv, schemas: schemas}
}

// protoValue is a configuration of the schema: the given attributes set
// (strings and bools), every other attribute null.
func protoValue[V any](tb testing.TB, s *tfprotov6.Schema, set map[string]V) tfprotov6.DynamicValue {
	tb.Helper()
	typ, ok := s.ValueType().(tftypes.Object)
	if !ok {
		tb.Fatalf("schema type %T", s.ValueType())
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, objectAttrs(typ, set)))
	if err != nil {
		tb.Fatal(err)
	}
	return dv
}

// readJobs reads a dataintegration_jobs data source without filters, and
// returns the state as Terraform would receive it (msgpack).
func (p *protoProvider) readJobs(tb testing.TB) *tfprotov6.DynamicValue {
	tb.Helper()
	resp := p.readJobsResponse(tb)
	failOnProto(tb, resp.Diagnostics)
	return resp.State
}

// readJobsResponse is readJobs's answer, its diagnostics included.
func (p *protoProvider) readJobsResponse(tb testing.TB) *tfprotov6.ReadDataSourceResponse {
	tb.Helper()
	const name = "dataintegration_jobs"
	cfg := protoValue[string](tb, p.schemas.DataSourceSchemas[name], nil)
	resp, err := p.srv.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: name, Config: &cfg})
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

func failOnProto(tb testing.TB, diags []*tfprotov6.Diagnostic) {
	tb.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			tb.Fatalf("%s: %s", d.Summary, d.Detail)
		}
	}
}

// jobsInState counts the jobs of a dataintegration_jobs state.
func (p *protoProvider) jobsInState(tb testing.TB, state *tfprotov6.DynamicValue) int {
	tb.Helper()
	return len(p.idsInState(tb, state))
}

// idsInState are the ids of a dataintegration_jobs state, in order.
func (p *protoProvider) idsInState(tb testing.TB, state *tfprotov6.DynamicValue) []string {
	tb.Helper()
	v, err := state.Unmarshal(p.schemas.DataSourceSchemas["dataintegration_jobs"].ValueType())
	if err != nil {
		tb.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		tb.Fatal(err)
	}
	var vals []tftypes.Value
	if err := attrs["ids"].As(&vals); err != nil {
		tb.Fatal(err)
	}
	ids := make([]string, len(vals))
	for i, v := range vals {
		if err := v.As(&ids[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return ids
}
