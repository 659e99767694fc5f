package jobsfastpath

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// PackedJobs encodes each page as tftypes would, through the data source's
// model of a job, so that both paths show the same values.
type PackedJobs[J any] struct {
	typ    tftypes.Object
	fields []Field
	newJob func(client.Job) J
	// values point at job's fields, in the order of fields.
	job             J
	values          []any
	id              *types.String // job's field of the attribute id, which ids lists
	jobs, ids       bytes.Buffer
	jobsEnc, idsEnc *msgpack.Encoder
	n               int   // how many jobs
	err             error // the first encoding error
}

// NewPackedJobs refuses a type whose jobs are not exactly the attributes of fields.
func NewPackedJobs[J any](typ tftypes.Type, fields []Field, newJob func(client.Job) J) (*PackedJobs[J], error) {
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
	p := &PackedJobs[J]{typ: obj, fields: fields, newJob: newJob}
	if len(job.AttributeTypes) != len(p.fields) {
		return nil, fmt.Errorf("a job has %d attributes, the model %d", len(job.AttributeTypes), len(p.fields))
	}
	model := reflect.ValueOf(&p.job).Elem()
	for _, f := range p.fields {
		if t, ok := job.AttributeTypes[f.Name]; !ok || !t.Equal(f.Type) {
			return nil, fmt.Errorf("a job's attribute %s is a %v, the model's a %s", f.Name, t, f.Type)
		}
		p.values = append(p.values, model.Field(f.Index).Addr().Interface())
		if id, ok := p.values[len(p.values)-1].(*types.String); ok && f.Name == "id" {
			p.id = id
		}
	}
	if p.id == nil {
		return nil, errors.New("a job has no string attribute id")
	}
	p.jobsEnc, p.idsEnc = msgpack.NewEncoder(&p.jobs), msgpack.NewEncoder(&p.ids)
	return p, nil
}

func (p *PackedJobs[J]) Len() int { return p.n }

func (p *PackedJobs[J]) Reset() { p.jobs.Reset(); p.ids.Reset(); p.n = 0 }

func (p *PackedJobs[J]) Add(page []client.Job) int {
	for i := range page {
		p.job = p.newJob(page[i])
		p.keep(p.jobsEnc.EncodeMapLen(len(p.fields)))
		for k, f := range p.fields {
			p.keep(p.jobsEnc.EncodeString(f.Name))
			switch v := p.values[k].(type) {
			case *types.String:
				p.string(p.jobsEnc, *v)
			case *types.Bool:
				p.bool(*v)
			}
		}
		p.string(p.idsEnc, *p.id)
		p.n++
	}
	return client.All
}

func (p *PackedJobs[J]) string(enc *msgpack.Encoder, v types.String) {
	switch {
	case v.IsUnknown():
		p.keep(errors.New("a job's string is unknown"))
	case v.IsNull():
		p.keep(enc.EncodeNil())
	default:
		p.keep(enc.EncodeString(v.ValueString()))
	}
}

func (p *PackedJobs[J]) bool(v types.Bool) {
	switch {
	case v.IsUnknown():
		p.keep(errors.New("a job's bool is unknown"))
	case v.IsNull():
		p.keep(p.jobsEnc.EncodeNil())
	default:
		p.keep(p.jobsEnc.EncodeBool(v.ValueBool()))
	}
}

func (p *PackedJobs[J]) keep(err error) {
	if p.err == nil {
		p.err = err
	}
}

// State is attrs with the jobs and ids added, in the attributes' name order.
func (p *PackedJobs[J]) State(attrs map[string]tftypes.Value) ([]byte, error) {
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
