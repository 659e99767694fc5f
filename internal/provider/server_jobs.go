package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// fastJobs answers ReadDataSource of dataintegration_jobs itself, encoding the jobs
// as the pages arrive: over 10,000 jobs, the framework's copy, compare and encode
// after the last page is work the plan waits for. It answers byte for byte as
// jobsDataSource.Read, and leaves a read it cannot answer so to the framework.
type fastJobs struct {
	fullServer
	p *dataIntegrationProvider

	once     sync.Once
	schema   datasource.SchemaResponse
	typ      tftypes.Type
	answered atomic.Int64
}

const jobsTypeName = "dataintegration_jobs"

func (s *fastJobs) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	data := s.p.configured.Load()
	if req.TypeName != jobsTypeName || data == nil || req.Config == nil {
		return s.fullServer.ReadDataSource(ctx, req)
	}
	s.once.Do(func() {
		(&jobsDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &s.schema)
		s.typ = s.schema.Schema.Type().TerraformType(ctx)
	})
	config, err := req.Config.Unmarshal(s.typ)
	if err != nil || !config.IsFullyKnown() || s.schema.Diagnostics.HasError() {
		return s.fullServer.ReadDataSource(ctx, req)
	}
	sink, err := newPackedJobs(s.typ)
	if err != nil {
		return s.fullServer.ReadDataSource(ctx, req)
	}
	s.answered.Add(1)
	var m jobsDataSourceModel
	diags := tfsdk.Config{Schema: s.schema.Schema, Raw: config}.Get(ctx, &m)
	if !diags.HasError() {
		diags.Append(readJobs(ctx, data, &m, sink)...)
	}
	attrs := map[string]tftypes.Value{}
	if !diags.HasError() {
		state := tfsdk.State{Schema: s.schema.Schema}
		diags.Append(state.Set(ctx, &m)...)
		if err := state.Raw.As(&attrs); err != nil {
			diags.AddError("Unable to Encode the State", err.Error())
		}
	}
	resp := &tfprotov6.ReadDataSourceResponse{Diagnostics: protoDiagnostics(diags)}
	if diags.HasError() {
		// The framework answers a failed read with the configuration as the state.
		if state, err := tfprotov6.NewDynamicValue(s.typ, config); err == nil {
			resp.State = &state
		}
		return resp, nil
	}
	if state, err := sink.state(attrs); err == nil {
		resp.State = &tfprotov6.DynamicValue{MsgPack: state}
	} else {
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
			Severity: tfprotov6.DiagnosticSeverityError, Summary: "Unable to Encode the State", Detail: err.Error(),
		})
	}
	return resp, nil
}

// packedJobs is a jobSink that encodes each page as MessagePack, as tftypes would,
// through jobModel so that both paths show the same values.
type packedJobs struct {
	typ    tftypes.Object
	fields []jobField // jobModelFields
	// values point at job's fields, in the order of fields.
	job             jobModel
	values          []any
	jobs, ids       bytes.Buffer
	jobsEnc, idsEnc *msgpack.Encoder
	n               int   // how many jobs
	err             error // the first encoding error
}

// newPackedJobs refuses a type whose jobs are not exactly jobModel's attributes.
func newPackedJobs(typ tftypes.Type) (*packedJobs, error) {
	obj, ok := typ.(tftypes.Object)
	if !ok {
		return nil, fmt.Errorf("type %s is not an object", typ)
	}
	list, okList := obj.AttributeTypes["jobs"].(tftypes.List)
	job, okJob := list.ElementType.(tftypes.Object)
	if !okList || !okJob {
		return nil, fmt.Errorf("type %s has no list of jobs", typ)
	}
	for name, t := range obj.AttributeTypes {
		switch name {
		case "jobs":
		case "ids":
			if !t.Equal(tftypes.List{ElementType: tftypes.String}) {
				return nil, fmt.Errorf("attribute ids is a %s, not a list of strings", t)
			}
		default:
			if !t.Is(tftypes.String) && !t.Is(tftypes.Bool) {
				return nil, fmt.Errorf("attribute %s is a %s, not a string or a bool", name, t)
			}
		}
	}
	p := &packedJobs{typ: obj, fields: jobModelFields()}
	if len(job.AttributeTypes) != len(p.fields) {
		return nil, fmt.Errorf("a job has %d attributes, jobModel %d", len(job.AttributeTypes), len(p.fields))
	}
	model := reflect.ValueOf(&p.job).Elem()
	for _, f := range p.fields {
		if t, ok := job.AttributeTypes[f.name]; !ok || !t.Equal(f.typ) {
			return nil, fmt.Errorf("a job's attribute %s is a %v, jobModel's a %s", f.name, t, f.typ)
		}
		p.values = append(p.values, model.Field(f.index).Addr().Interface())
	}
	p.jobsEnc, p.idsEnc = msgpack.NewEncoder(&p.jobs), msgpack.NewEncoder(&p.ids)
	return p, nil
}

func (p *packedJobs) reset() { p.jobs.Reset(); p.ids.Reset(); p.n = 0 }

func (p *packedJobs) add(page []client.Job) int {
	for i := range page {
		p.job = newJobModel(page[i])
		p.keep(p.jobsEnc.EncodeMapLen(len(p.fields)))
		for k, f := range p.fields {
			p.keep(p.jobsEnc.EncodeString(f.name))
			switch v := p.values[k].(type) {
			case *types.String:
				p.string(p.jobsEnc, *v)
			case *types.Bool:
				p.bool(*v)
			}
		}
		p.string(p.idsEnc, p.job.ID)
		p.n++
	}
	return client.All
}

func (p *packedJobs) string(enc *msgpack.Encoder, v types.String) {
	switch {
	case v.IsUnknown():
		p.keep(errors.New("a job's string is unknown"))
	case v.IsNull():
		p.keep(enc.EncodeNil())
	default:
		p.keep(enc.EncodeString(v.ValueString()))
	}
}

func (p *packedJobs) bool(v types.Bool) {
	switch {
	case v.IsUnknown():
		p.keep(errors.New("a job's bool is unknown"))
	case v.IsNull():
		p.keep(p.jobsEnc.EncodeNil())
	default:
		p.keep(p.jobsEnc.EncodeBool(v.ValueBool()))
	}
}

func (p *packedJobs) keep(err error) {
	if p.err == nil {
		p.err = err
	}
}

// state is attrs with the jobs and ids added, in the attributes' name order.
func (p *packedJobs) state(attrs map[string]tftypes.Value) ([]byte, error) {
	if p.err != nil {
		return nil, p.err
	}
	var out bytes.Buffer
	out.Grow(p.jobs.Len() + p.ids.Len() + 1024)
	enc := msgpack.NewEncoder(&out)
	names := slices.Sorted(maps.Keys(p.typ.AttributeTypes))
	if err := enc.EncodeMapLen(len(names)); err != nil {
		return nil, err
	}
	for _, name := range names {
		if err := enc.EncodeString(name); err != nil {
			return nil, err
		}
		switch name {
		case "jobs", "ids":
			list := &p.jobs
			if name == "ids" {
				list = &p.ids
			}
			if err := enc.EncodeArrayLen(p.n); err != nil {
				return nil, err
			}
			out.Write(list.Bytes())
		default:
			if err := encodePrimitive(enc, attrs[name]); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return out.Bytes(), nil
}

func encodePrimitive(enc *msgpack.Encoder, v tftypes.Value) error {
	switch {
	case v.Type() == nil || !v.IsKnown():
		return errors.New("no known value")
	case v.IsNull():
		return enc.EncodeNil()
	case v.Type().Is(tftypes.String):
		var s string
		if err := v.As(&s); err != nil {
			return err
		}
		return enc.EncodeString(s)
	case v.Type().Is(tftypes.Bool):
		var b bool
		if err := v.As(&b); err != nil {
			return err
		}
		return enc.EncodeBool(b)
	}
	return fmt.Errorf("a %s is not a string or a bool", v.Type())
}
