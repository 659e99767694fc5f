package jobsfastpath

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// testJob is a model of a job as a data source would have one: fields in
// another order than their names'.
type testJob struct {
	ID     types.String `tfsdk:"id"`
	Name   types.String `tfsdk:"name"`
	Active types.Bool   `tfsdk:"is_active"`
}

var testFields = []Field{{"id", 0, tftypes.String}, {"is_active", 2, tftypes.Bool}, {"name", 1, tftypes.String}}

var testJobType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String, "name": tftypes.String, "is_active": tftypes.Bool}}

var testType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"workspace_id": tftypes.String, "is_active": tftypes.Bool,
	"jobs": tftypes.List{ElementType: testJobType}, "ids": tftypes.List{ElementType: tftypes.String},
}}

func newTestJob(j client.Job) testJob {
	return testJob{ID: types.StringValue(j.ID), Name: types.StringPointerValue(j.Name), Active: types.BoolValue(j.IsActive)}
}

// TestPackedJobs_encodesAsTftypes: pages of jobs, the list read again
// after a first page, encode byte for byte as tftypes encodes the same
// state: nulls, empty and long strings, and both bools.
func TestPackedJobs_encodesAsTftypes(t *testing.T) {
	t.Parallel()
	name := func(s string) *string { return &s }
	pages := [][]client.Job{
		{{ID: "a", Name: name("first"), IsActive: true}, {ID: "b"}},
		{{ID: "c", Name: name(""), IsActive: false}, {ID: "d", Name: name(strings.Repeat("ü", 40000)), IsActive: true}},
	}
	p, err := NewPackedJobs(testType, testFields, newTestJob)
	if err != nil {
		t.Fatal(err)
	}
	p.Add([]client.Job{{ID: "forgotten"}})
	p.Reset()
	var jobs, ids []tftypes.Value
	for _, page := range pages {
		p.Add(page)
		for _, j := range page {
			var n any
			if j.Name != nil {
				n = *j.Name
			}
			jobs = append(jobs, tftypes.NewValue(testJobType, map[string]tftypes.Value{
				"id": tftypes.NewValue(tftypes.String, j.ID), "name": tftypes.NewValue(tftypes.String, n), "is_active": tftypes.NewValue(tftypes.Bool, j.IsActive),
			}))
			ids = append(ids, tftypes.NewValue(tftypes.String, j.ID))
		}
	}
	if p.Len() != 4 {
		t.Errorf("Len() = %d, want 4", p.Len())
	}
	others := map[string]tftypes.Value{"workspace_id": tftypes.NewValue(tftypes.String, "ws-1"), "is_active": tftypes.NewValue(tftypes.Bool, nil)}
	got, err := p.State(others)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]tftypes.Value{"jobs": tftypes.NewValue(testType.AttributeTypes["jobs"], jobs), "ids": tftypes.NewValue(testType.AttributeTypes["ids"], ids)}
	for k, v := range others {
		all[k] = v
	}
	want, err := tfprotov6.NewDynamicValue(testType, tftypes.NewValue(testType, all))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.MsgPack) {
		t.Errorf("the encoded state differs from tftypes' (%d bytes, tftypes' %d)", len(got), len(want.MsgPack))
	}
	if _, err := p.State(map[string]tftypes.Value{"workspace_id": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}); err == nil {
		t.Error("an unknown attribute encoded")
	}
}

// TestPackedJobs_refusesWhatItCannotEncode: a type whose jobs are not
// exactly the model's fields, or whose other attributes are not strings or
// bools, is refused, so that the framework answers instead.
func TestPackedJobs_refusesWhatItCannotEncode(t *testing.T) {
	t.Parallel()
	with := func(name string, typ tftypes.Type) tftypes.Object {
		attrs := map[string]tftypes.Type{}
		for k, v := range testType.AttributeTypes {
			attrs[k] = v
		}
		attrs[name] = typ
		return tftypes.Object{AttributeTypes: attrs}
	}
	for _, c := range []struct {
		name   string
		typ    tftypes.Type
		fields []Field
	}{
		{"not an object", tftypes.String, testFields},
		{"no list of jobs", with("jobs", tftypes.String), testFields},
		{"ids not strings", with("ids", tftypes.List{ElementType: tftypes.Number}), testFields},
		{"a number beside the jobs", with("count", tftypes.Number), testFields},
		{"a field fewer", testType, testFields[:2]},
		{"a field of another type", testType, []Field{{"id", 0, tftypes.String}, {"is_active", 2, tftypes.String}, {"name", 1, tftypes.String}}},
		{"no id", with("jobs", tftypes.List{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{"key": tftypes.String, "name": tftypes.String, "is_active": tftypes.Bool}}}),
			[]Field{{"is_active", 2, tftypes.Bool}, {"key", 0, tftypes.String}, {"name", 1, tftypes.String}}},
	} {
		if _, err := NewPackedJobs(c.typ, c.fields, newTestJob); err == nil {
			t.Errorf("%s: taken", c.name)
		}
	}
}
