// Package jobsfastpath answers the reads of the jobs data source in front of
// the framework's server, encoding the state as the pages of jobs arrive. The
// provider says what the data source is (Source); nothing here knows the service.
package jobsfastpath

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// FullServer is every RPC the provider answers; terraform-plugin-go still asks for
// the list resources' and actions' by separate interfaces.
type FullServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
}

// Source is the provider's jobs data source, as the fast path reads it; J is the
// model of one job, a struct of types.String and types.Bool fields.
type Source[J any] interface {
	TypeName() string
	Schema(context.Context, datasource.SchemaRequest, *datasource.SchemaResponse)
	// Reader is nil until the provider is configured: the framework answers then.
	Reader() Reader
	// Fields are J's attributes in name order, the protocol's.
	Fields() []Field
	Job(client.Job) J
}

// Reader reads into sink the jobs config selects; it returns the state's other
// attributes as the data source's own Read sets them.
type Reader func(ctx context.Context, config tfsdk.Config, sink Sink) (map[string]tftypes.Value, diag.Diagnostics)

// Sink receives the jobs of a read, page by page, in order.
type Sink interface {
	// Add takes a page; it returns client.All, to read every page.
	Add(page []client.Job) int
	// Reset forgets the jobs added: the list is read again.
	Reset()
}

type Field struct {
	Name  string       // the attribute's name: the field's tfsdk tag
	Index int          // the field's index in J
	Type  tftypes.Type // tftypes.String for a types.String, tftypes.Bool for a types.Bool
}

// Server answers as the data source's own Read would, byte for byte: over 10,000
// jobs, the framework's copy, compare and encode after the last page is work the
// plan waits for. A read it cannot answer goes to the framework's server.
type Server[J any] struct {
	FullServer
	jobs Source[J]

	once     sync.Once
	schema   datasource.SchemaResponse
	typ      tftypes.Type
	answered atomic.Int64
}

func New[J any](inner FullServer, jobs Source[J]) *Server[J] {
	return &Server[J]{FullServer: inner, jobs: jobs}
}

// Answered is how many reads the fast path answered itself, the rest having
// gone to the framework: the tests that hold it to the framework count them.
func (s *Server[J]) Answered() int64 { return s.answered.Load() }

func (s *Server[J]) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	if req.TypeName != s.jobs.TypeName() || req.Config == nil {
		return s.FullServer.ReadDataSource(ctx, req)
	}
	read := s.jobs.Reader()
	if read == nil {
		return s.FullServer.ReadDataSource(ctx, req)
	}
	s.once.Do(func() {
		s.jobs.Schema(ctx, datasource.SchemaRequest{}, &s.schema)
		s.typ = s.schema.Schema.Type().TerraformType(ctx)
	})
	config, err := req.Config.Unmarshal(s.typ)
	if err != nil || !config.IsFullyKnown() || s.schema.Diagnostics.HasError() {
		return s.FullServer.ReadDataSource(ctx, req)
	}
	sink, err := NewPackedJobs(s.typ, s.jobs.Fields(), s.jobs.Job)
	if err != nil {
		return s.FullServer.ReadDataSource(ctx, req)
	}
	s.answered.Add(1)
	attrs, diags := read(ctx, tfsdk.Config{Schema: s.schema.Schema, Raw: config}, sink)
	resp := &tfprotov6.ReadDataSourceResponse{Diagnostics: protoDiagnostics(diags)}
	if diags.HasError() {
		// The framework answers a failed read with the configuration as the state.
		if state, err := tfprotov6.NewDynamicValue(s.typ, config); err == nil {
			resp.State = &state
		}
		return resp, nil
	}
	if state, err := sink.State(attrs); err == nil {
		resp.State = &tfprotov6.DynamicValue{MsgPack: state}
	} else {
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
			Severity: tfprotov6.DiagnosticSeverityError, Summary: "Unable to Encode the State", Detail: err.Error(),
		})
	}
	return resp, nil
}

func protoDiagnostics(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	out := make([]*tfprotov6.Diagnostic, 0, len(diags))
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: d.Summary(), Detail: d.Detail()}
		if d.Severity() == diag.SeverityError {
			pd.Severity = tfprotov6.DiagnosticSeverityError
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = protoPath(wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

// protoPath is nil for a step the protocol cannot carry: the diagnostic then
// stands on the whole block.
func protoPath(p path.Path) *tftypes.AttributePath {
	if len(p.Steps()) == 0 {
		return nil
	}
	out := tftypes.NewAttributePath()
	for _, step := range p.Steps() {
		switch st := step.(type) {
		case path.PathStepAttributeName:
			out = out.WithAttributeName(string(st))
		case path.PathStepElementKeyInt:
			out = out.WithElementKeyInt(int(st))
		case path.PathStepElementKeyString:
			out = out.WithElementKeyString(string(st))
		default:
			return nil
		}
	}
	return out
}
