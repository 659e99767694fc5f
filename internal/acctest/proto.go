package acctest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ProtoProvider is the provider over protocol 6, in-process, with no engine.
type ProtoProvider struct {
	Server  tfprotov6.ProviderServer
	Schemas *tfprotov6.GetProviderSchemaResponse
}

// NewProtoProvider serves the provider server makes, configured with settings.
func NewProtoProvider(tb testing.TB, server func() (tfprotov6.ProviderServer, error), settings map[string]string) *ProtoProvider {
	tb.Helper()
	p := ServeProto(tb, server)
	cfg := ProtoValue(tb, p.Schemas.Provider, settings)
	resp, err := p.Server.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: &cfg})
	if err != nil {
		tb.Fatal(err)
	}
	FailOnProto(tb, resp.Diagnostics)
	return p
}

// ServeProto serves the provider server makes, not configured: enough to validate.
func ServeProto(tb testing.TB, server func() (tfprotov6.ProviderServer, error)) *ProtoProvider {
	tb.Helper()
	srv, err := server()
	if err != nil {
		tb.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	return &ProtoProvider{Server: srv, Schemas: schemas}
}

// ProtoValue is a configuration of s with set's attributes, every other null.
func ProtoValue[V any](tb testing.TB, s *tfprotov6.Schema, set map[string]V) tfprotov6.DynamicValue {
	tb.Helper()
	typ, ok := s.ValueType().(tftypes.Object)
	if !ok {
		tb.Fatalf("schema type %T", s.ValueType())
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, ObjectAttrs(typ, set)))
	if err != nil {
		tb.Fatal(err)
	}
	return dv
}

// ReadJobs reads a dataintegration_jobs without filters, as Terraform receives it.
func (p *ProtoProvider) ReadJobs(tb testing.TB) *tfprotov6.DynamicValue {
	tb.Helper()
	resp := p.ReadJobsResponse(tb)
	FailOnProto(tb, resp.Diagnostics)
	return resp.State
}

// ReadJobsResponse is ReadJobs's answer, diagnostics included.
func (p *ProtoProvider) ReadJobsResponse(tb testing.TB) *tfprotov6.ReadDataSourceResponse {
	tb.Helper()
	const name = "dataintegration_jobs"
	cfg := ProtoValue[string](tb, p.Schemas.DataSourceSchemas[name], nil)
	resp, err := p.Server.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: name, Config: &cfg})
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

func FailOnProto(tb testing.TB, diags []*tfprotov6.Diagnostic) {
	tb.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			tb.Fatalf("%s: %s", d.Summary, d.Detail)
		}
	}
}

// JobsInState counts the jobs of a dataintegration_jobs state.
func (p *ProtoProvider) JobsInState(tb testing.TB, state *tfprotov6.DynamicValue) int {
	tb.Helper()
	return len(p.IDsInState(tb, state))
}

// IDsInState are the ids of a dataintegration_jobs state, in order.
func (p *ProtoProvider) IDsInState(tb testing.TB, state *tfprotov6.DynamicValue) []string {
	tb.Helper()
	v, err := state.Unmarshal(p.Schemas.DataSourceSchemas["dataintegration_jobs"].ValueType())
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

// ObjectAttrs is the attributes of typ, set's as given and every other null.
func ObjectAttrs[V any](typ tftypes.Object, set map[string]V) map[string]tftypes.Value {
	vals := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, at := range typ.AttributeTypes {
		var v any
		if x, ok := set[name]; ok {
			v = x
		}
		vals[name] = tftypes.NewValue(at, v)
	}
	return vals
}
