package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// fastJobs answers ReadDataSource for dataintegration_jobs itself, with the
// data source's own readJobs, and leaves every other call to the framework.
// After a data source's read, the framework copies the state, looks for
// attributes whose custom types have a semantic equality (the jobs data
// source has none, so it finds nothing to do), compares the state it got
// with the one it made, then encodes it: for 10,000 jobs, 0.25 s after the
// last page arrives, in which the plan waits (BENCHMARKS.md). A call it
// cannot answer the same way (the provider not configured, a configuration
// not fully known) goes to the framework.
type fastJobs struct {
	fullServer
	p *dataIntegrationProvider

	once   sync.Once
	schema datasource.SchemaResponse
	typ    tftypes.Type
	// answered counts the reads answered here, for the tests.
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
	attrs, diags := readJobs(ctx, data, tfsdk.Config{Schema: s.schema.Schema, Raw: config}, sink)
	resp := &tfprotov6.ReadDataSourceResponse{Diagnostics: protoDiagnostics(diags)}
	if diags.HasError() {
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

// packedJobs is a jobSink that encodes the jobs as the protocol carries
// them (MessagePack, as tftypes encodes it: an object is a map of its
// attributes in name order), each page as it arrives, so that the state is
// ready moments after the last page.
type packedJobs struct {
	typ    tftypes.Object
	fields []string // the job's attributes, in name order
	// jobs and ids hold the elements of the two lists, encoded.
	jobs, ids       bytes.Buffer
	jobsEnc, idsEnc *msgpack.Encoder
	n               int   // how many jobs
	err             error // the first encoding error
}

// newPackedJobs prepares the encoding of a dataintegration_jobs state of
// type typ: its jobs must have exactly the attributes of jobFields, and its
// other attributes, but ids, must be strings or bools.
func newPackedJobs(typ tftypes.Type) (*packedJobs, error) {
	obj, ok := typ.(tftypes.Object)
	values, okJobs := newJobValues(obj)
	if !ok || !okJobs {
		return nil, fmt.Errorf("type %s has no list of jobs", typ)
	}
	for name, t := range obj.AttributeTypes {
		if name != "jobs" && name != "ids" && !t.Is(tftypes.String) && !t.Is(tftypes.Bool) {
			return nil, fmt.Errorf("attribute %s is a %s, not a string or a bool", name, t)
		}
	}
	p := &packedJobs{typ: obj, fields: slices.Sorted(maps.Keys(values.jobType.AttributeTypes))}
	if !slices.Equal(p.fields, slices.Sorted(maps.Keys(jobFields))) {
		return nil, fmt.Errorf("the job's attributes %v are not those of jobFields", p.fields)
	}
	p.jobsEnc, p.idsEnc = msgpack.NewEncoder(&p.jobs), msgpack.NewEncoder(&p.ids)
	return p, nil
}

func (p *packedJobs) reset() { p.jobs.Reset(); p.ids.Reset(); p.n = 0 }

func (p *packedJobs) add(page []client.Job) int {
	for i := range page {
		p.keep(p.jobsEnc.EncodeMapLen(len(p.fields)))
		for _, name := range p.fields {
			p.keep(p.jobsEnc.EncodeString(name))
			switch x := jobFields[name](&page[i]).(type) {
			case string:
				p.keep(p.jobsEnc.EncodeString(x))
			case *string:
				if x == nil {
					p.keep(p.jobsEnc.EncodeNil())
				} else {
					p.keep(p.jobsEnc.EncodeString(*x))
				}
			case bool:
				p.keep(p.jobsEnc.EncodeBool(x))
			}
		}
		p.keep(p.idsEnc.EncodeString(page[i].ID))
		p.n++
	}
	return client.All
}

func (p *packedJobs) keep(err error) {
	if p.err == nil {
		p.err = err
	}
}

// state is the whole state: attrs and the jobs and ids added, in the
// attributes' name order.
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

// encodePrimitive encodes a known string or bool, or null.
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
