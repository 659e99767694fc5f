package jobsfastpath

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// testSource is a data source of testType's schema whose read gives pages.
type testSource struct {
	pages [][]client.Job
	fail  bool // the read fails, on workspace_id
	ready bool // the provider is configured
}

func (testSource) TypeName() string { return "test_jobs" }

func (testSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"workspace_id": schema.StringAttribute{Optional: true},
		"is_active":    schema.BoolAttribute{Optional: true},
		"jobs": schema.ListNestedAttribute{Computed: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true}, "name": schema.StringAttribute{Computed: true}, "is_active": schema.BoolAttribute{Computed: true},
		}}},
		"ids": schema.ListAttribute{Computed: true, ElementType: types.StringType},
	}}
}

func (s testSource) Reader() Reader {
	if !s.ready {
		return nil
	}
	return func(ctx context.Context, config tfsdk.Config, sink Sink) (map[string]tftypes.Value, diag.Diagnostics) {
		var diags diag.Diagnostics
		if s.fail {
			diags.AddAttributeError(path.Root("workspace_id"), "Access Denied", "not yours")
			return nil, diags
		}
		for _, p := range s.pages {
			sink.Add(p)
		}
		var attrs map[string]tftypes.Value
		if err := config.Raw.As(&attrs); err != nil {
			diags.AddError("config", err.Error())
		}
		return attrs, diags
	}
}

func (testSource) Fields() []Field { return testFields }

func (testSource) Job(j client.Job) testJob { return newTestJob(j) }

// framework stands for the framework's server: it counts the reads it gets.
type framework struct {
	FullServer
	reads int
}

func (f *framework) ReadDataSource(context.Context, *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	f.reads++
	return &tfprotov6.ReadDataSourceResponse{}, nil
}

func testConfig(t *testing.T, workspace any) *tfprotov6.DynamicValue {
	t.Helper()
	v := map[string]tftypes.Value{
		"workspace_id": tftypes.NewValue(tftypes.String, workspace), "is_active": tftypes.NewValue(tftypes.Bool, nil),
		"jobs": tftypes.NewValue(testType.AttributeTypes["jobs"], nil), "ids": tftypes.NewValue(testType.AttributeTypes["ids"], nil),
	}
	dv, err := tfprotov6.NewDynamicValue(testType, tftypes.NewValue(testType, v))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// TestServer_leavesTheRestToTheFramework: a read of another data source, one
// before the provider is configured, one without a configuration and one
// of a configuration not fully known go to the framework.
func TestServer_leavesTheRestToTheFramework(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		src      testSource
		typeName string
		config   *tfprotov6.DynamicValue
	}{
		{"another data source", testSource{ready: true}, "test_job", testConfig(t, "ws-1")},
		{"not configured", testSource{}, "test_jobs", testConfig(t, "ws-1")},
		{"no configuration", testSource{ready: true}, "test_jobs", nil},
		{"not fully known", testSource{ready: true}, "test_jobs", testConfig(t, tftypes.UnknownValue)},
	} {
		inner := &framework{}
		s := New(inner, Source[testJob](c.src))
		if _, err := s.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: c.typeName, Config: c.config}); err != nil {
			t.Fatal(err)
		}
		if inner.reads != 1 || s.Answered() != 0 {
			t.Errorf("%s: %d reads reached the framework, %d answered, want 1 and none", c.name, inner.reads, s.Answered())
		}
	}
}

// TestServer_answersWithTheReadersState: a read the fast path answers holds
// the jobs the reader added and the attributes it gave; a failed read
// answers with the configuration as the state, the diagnostics on their
// attributes, as the framework does.
func TestServer_answersWithTheReadersState(t *testing.T) {
	t.Parallel()
	inner := &framework{}
	src := testSource{ready: true, pages: [][]client.Job{{{ID: "a", IsActive: true}}, {{ID: "b"}}}}
	s := New(inner, Source[testJob](src))
	resp, err := s.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: "test_jobs", Config: testConfig(t, "ws-1")})
	if err != nil || resp.State == nil || len(resp.Diagnostics) != 0 {
		t.Fatalf("%+v, %v", resp, err)
	}
	state, err := resp.State.Unmarshal(testType)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	var ids []tftypes.Value
	if err := state.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if err := attrs["ids"].As(&ids); err != nil || len(ids) != 2 || !attrs["workspace_id"].Equal(tftypes.NewValue(tftypes.String, "ws-1")) {
		t.Errorf("state %v", state)
	}

	config := testConfig(t, "ws-2")
	failed, err := New(inner, Source[testJob](testSource{ready: true, fail: true})).ReadDataSource(context.Background(),
		&tfprotov6.ReadDataSourceRequest{TypeName: "test_jobs", Config: config})
	if err != nil {
		t.Fatal(err)
	}
	if len(failed.Diagnostics) != 1 || failed.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError ||
		!failed.Diagnostics[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("workspace_id")) {
		t.Errorf("diagnostics %+v", failed.Diagnostics)
	}
	if failed.State == nil || string(failed.State.MsgPack) != string(config.MsgPack) {
		t.Errorf("a failed read's state %v, want the configuration", failed.State)
	}
	if inner.reads != 0 {
		t.Errorf("%d reads reached the framework", inner.reads)
	}
}
