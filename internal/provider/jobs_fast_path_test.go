package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/jobsfastpath"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// These tests hold the fast path to the framework's own server, with
// jobsDataSource.Read: for every read the fast path answers, the same diagnostics
// and the same state, byte for byte; every other read reaches the framework.

// TestJobsDataSource_fastAnswersAsTheFramework: configuration by configuration
// and service by service, the states compared show each attribute set and null.
func TestJobsDataSource_fastAnswersAsTheFramework(t *testing.T) {
	t.Parallel()
	seen := newSeenValues()
	type readCase struct {
		name    string
		noWS    bool // the provider without a workspace
		config  map[string]any
		wantErr string
		minJobs int // the state must hold at least as many jobs
	}
	for _, svc := range []struct {
		name  string
		cfg   sandbox.Config
		cases func(e *acctest.Env) []readCase
	}{
		{"three pages", sandbox.Config{Jobs: 250}, func(e *acctest.Env) []readCase {
			j := e.Sandbox.Jobs(e.WorkspaceID)[7]
			return []readCase{
				{name: "every job", minJobs: 250},
				{name: "connector_name", config: map[string]any{"connector_name": j.ConnectorName}, minJobs: 1},
				{name: "data_source", config: map[string]any{"data_source": j.DataSource}, minJobs: 1},
				{name: "name", config: map[string]any{"name": j.Name}, minJobs: 1},
				{name: "schema_name", config: map[string]any{"schema_name": j.SchemaName}, minJobs: 1},
				{name: "is_active true", config: map[string]any{"is_active": true}, minJobs: 1},
				{name: "is_active false", config: map[string]any{"is_active": false}, minJobs: 1},
				{name: "filters and an ordering", config: map[string]any{"is_active": true, "ordering": "-name"}, minJobs: 1},
				{name: "every filter", config: map[string]any{
					"connector_name": j.ConnectorName, "data_source": j.DataSource, "name": j.Name, "schema_name": j.SchemaName,
					"is_active": j.IsActive, "ordering": "name,-_created_at",
				}, minJobs: 1},
				{name: "workspace in upper case", config: map[string]any{"workspace_id": strings.ToUpper(e.WorkspaceID)}, minJobs: 250},
				{name: "nothing found", config: map[string]any{"name": "no such job"}},
				{name: "a workspace out of reach", config: map[string]any{"workspace_id": acctest.SecondWorkspace}, wantErr: "Access Denied"},
				{name: "no workspace", noWS: true, wantErr: "Missing Workspace"},
				{name: "an ordering the service refuses", config: map[string]any{"ordering": "no_such_field"}, wantErr: "Unable to List Jobs"},
			}
		}},
		{"eleven pages of 25", sandbox.Config{Jobs: 260, Variant: sandbox.Variant{Envelope: []string{"next_page"}, MaxPageSize: 25}}, func(*acctest.Env) []readCase {
			return []readCase{
				{name: "every job", minJobs: 260},
				{name: "an ordering", config: map[string]any{"ordering": "-name"}, minJobs: 260},
			}
		}},
		{"no job", sandbox.Config{}, func(*acctest.Env) []readCase {
			return []readCase{
				{name: "every job"},
				{name: "a filter", config: map[string]any{"is_active": true}},
			}
		}},
		{"nulls from the service", sandbox.Config{Jobs: 130, Variant: sandbox.Variant{NullFields: sandbox.NullableFields}}, func(*acctest.Env) []readCase {
			return []readCase{
				{name: "every job", minJobs: 130},
				{name: "is_active false", config: map[string]any{"is_active": false}, minJobs: 1},
			}
		}},
	} {
		t.Run(svc.name, func(t *testing.T) {
			e := acctest.NewEnv(t, svc.cfg)
			e.RequireSandbox(t, "serve the jobs each comparison needs")
			for _, tc := range svc.cases(e) {
				t.Run(tc.name, func(t *testing.T) {
					settings := map[string]string{"base_url": e.BaseURL, "api_key": e.APIKey, "workspace_id": e.WorkspaceID}
					if tc.noWS {
						delete(settings, "workspace_id")
					}
					got, state := readBothWays(t, settings, tc.config)
					if tc.wantErr != "" {
						if len(got.Diagnostics) == 0 || got.Diagnostics[0].Summary != tc.wantErr {
							t.Errorf("want %q, got %v", tc.wantErr, got.Diagnostics)
						}
						return
					}
					acctest.FailOnProto(t, got.Diagnostics)
					if n := seen.add(t, state); n < tc.minJobs || (tc.minJobs == 0 && n != 0) {
						t.Errorf("the state holds %d jobs, want at least %d (none if 0): the comparison proved less than it says", n, tc.minJobs)
					}
				})
			}
		})
	}
	// created_at and id cannot be null in the sandbox; see
	// TestJobsDataSource_fastAnswersAsTheFrameworkForAnyValue.
	seen.covered(t, "name", "data_source", "connector_name", "schema_name", "updated_at")
}

func TestJobsDataSource_fastAnswersAsTheFrameworkForAnyValue(t *testing.T) {
	t.Parallel()
	base := jobsService(t, craftedJobs(230), 100)
	settings := map[string]string{"base_url": base, "api_key": sandbox.DefaultAPIKey, "workspace_id": sandbox.DefaultWorkspaceID}
	seen := newSeenValues()
	for _, config := range []map[string]any{nil, {"name": "any", "is_active": false, "ordering": "name"}} {
		got, state := readBothWays(t, settings, config)
		acctest.FailOnProto(t, got.Diagnostics)
		if n := seen.add(t, state); n != 230 {
			t.Errorf("the state holds %d jobs, want 230", n)
		}
	}
	seen.covered(t, "name", "data_source", "connector_name", "schema_name", "created_at", "updated_at")
}

// TestJobsDataSource_fastLeavesTheRestToTheFramework: each read the fast path
// cannot answer as the framework would goes to the framework.
func TestJobsDataSource_fastLeavesTheRestToTheFramework(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 120})
	e.RequireSandbox(t, "name one of its jobs")
	settings := map[string]string{"base_url": e.BaseURL, "api_key": e.APIKey, "workspace_id": e.WorkspaceID}
	schemas := serveProto(t).Schemas
	jobsType, ok := schemas.DataSourceSchemas[jobsTypeName].ValueType().(tftypes.Object)
	if !ok {
		t.Fatal("the data source's type is not an object")
	}
	value := func(t *testing.T, typ tftypes.Object, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
		t.Helper()
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	unknownName := acctest.ObjectAttrs[any](jobsType, nil)
	unknownName["name"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	otherType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"workspace_id": tftypes.String}}
	job := acctest.ProtoValue(t, schemas.DataSourceSchemas["dataintegration_job"], map[string]string{"id": e.Sandbox.Jobs(e.WorkspaceID)[3].ID})
	every := acctest.ProtoValue[any](t, schemas.DataSourceSchemas[jobsTypeName], nil)

	for _, tc := range []struct {
		name       string
		configured bool
		typeName   string
		config     *tfprotov6.DynamicValue
		wantErr    string // the framework's first diagnostic; none if empty
	}{
		{"another data source", true, "dataintegration_job", &job, ""},
		{"the provider not configured", false, jobsTypeName, &every, "Provider Not Configured"},
		{"no configuration", true, jobsTypeName, nil, "Value Conversion Error"},
		{"a configuration not fully known", true, jobsTypeName, value(t, jobsType, unknownName), ""},
		{"a configuration of another type", true, jobsTypeName, value(t, otherType, map[string]tftypes.Value{"workspace_id": tftypes.NewValue(tftypes.String, e.WorkspaceID)}), "Unable to Convert Configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &dataIntegrationProvider{version: "test", getenv: os.Getenv}
			inner, err := providerserver.NewProtocol6WithError(p)()
			if err != nil {
				t.Fatal(err)
			}
			spy := &frameworkSpy{fullServer: inner.(fullServer)}
			fast := jobsfastpath.New(spy, jobsSource{p})
			var plainSettings map[string]string
			if tc.configured {
				plainSettings = settings
				cfg := acctest.ProtoValue(t, schemas.Provider, settings)
				resp, err := fast.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: &cfg})
				if err != nil {
					t.Fatal(err)
				}
				acctest.FailOnProto(t, resp.Diagnostics)
			}
			plain := frameworkServer(t, plainSettings)
			req := &tfprotov6.ReadDataSourceRequest{TypeName: tc.typeName, Config: tc.config}
			got, err1 := fast.ReadDataSource(context.Background(), req)
			want, err2 := plain.ReadDataSource(context.Background(), req)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if n := fast.Answered(); n != 0 {
				t.Errorf("the fast path answered %d reads, want none", n)
			}
			if n := spy.reads.Load(); n != 1 {
				t.Errorf("%d reads reached the framework, want 1", n)
			}
			sameDiagnostics(t, got.Diagnostics, want.Diagnostics)
			if (got.State == nil) != (want.State == nil) || (got.State != nil && !bytes.Equal(got.State.MsgPack, want.State.MsgPack)) {
				t.Errorf("state: %v, the framework's %v", got.State, want.State)
			}
			if tc.wantErr == "" {
				acctest.FailOnProto(t, got.Diagnostics)
				if got.State == nil {
					t.Error("no state")
				}
			} else if len(got.Diagnostics) == 0 || got.Diagnostics[0].Summary != tc.wantErr {
				t.Errorf("want %q, got %v", tc.wantErr, got.Diagnostics)
			}
		})
	}
}

// BenchmarkJobsDataSource_readPaths: what the fast path saves a plan
// (BENCHMARKS.md, "The 10,000-job plan").
func BenchmarkJobsDataSource_readPaths(b *testing.B) {
	e := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	settings := map[string]string{"base_url": e.BaseURL, "api_key": e.APIKey, "workspace_id": e.WorkspaceID}
	fast := newProtoProvider(b, settings)
	for name, srv := range map[string]tfprotov6.ProviderServer{"fastJobs": fast.Server, "framework": frameworkServer(b, settings)} {
		b.Run(name, func(b *testing.B) {
			p := &acctest.ProtoProvider{Server: srv, Schemas: fast.Schemas}
			var state *tfprotov6.DynamicValue
			b.ReportAllocs()
			for b.Loop() {
				state = p.ReadJobs(b)
			}
			if n := p.JobsInState(b, state); n != 10000 {
				b.Fatalf("%d jobs read", n)
			}
		})
	}
}

// BenchmarkJobsDataSource_packedJobs is jobsfastpath.PackedJobs' own work for 10,000 jobs already
// decoded, 100 a page: each job encoded, then the state.
func BenchmarkJobsDataSource_packedJobs(b *testing.B) {
	typ, ok := serveProto(b).Schemas.DataSourceSchemas[jobsTypeName].ValueType().(tftypes.Object)
	if !ok {
		b.Fatal("the data source's type is not an object")
	}
	jobs := craftedJobs(10000)
	for i := range jobs {
		// Values of a size a service sends.
		for _, f := range []**string{&jobs[i].Name, &jobs[i].DataSource, &jobs[i].ConnectorName, &jobs[i].SchemaName, &jobs[i].CreatedAt, &jobs[i].UpdatedAt} {
			if *f != nil && len(**f) > 40 {
				*f = ptr(fmt.Sprintf("value %d", i))
			}
		}
	}
	attrs := acctest.ObjectAttrs[any](typ, nil)
	b.ReportAllocs()
	for b.Loop() {
		sink, err := jobsfastpath.NewPackedJobs(typ, jobsSource{}.Fields(), newJobModel)
		if err != nil {
			b.Fatal(err)
		}
		for page := range 100 {
			sink.Add(jobs[page*100 : (page+1)*100])
		}
		if _, err := sink.State(attrs); err != nil {
			b.Fatal(err)
		}
	}
}

// readBothWays fails unless the fast path answered the read as the framework
// alone does, byte for byte; it returns the state decoded (null after an error).
func readBothWays(t *testing.T, settings map[string]string, config map[string]any) (*tfprotov6.ReadDataSourceResponse, tftypes.Value) {
	t.Helper()
	getenv := noWorkspaceEnv().getenv
	fast := newProtoProviderIn(t, getenv, settings)
	plain := frameworkServerIn(t, getenv, settings)
	cfg := acctest.ProtoValue(t, fast.Schemas.DataSourceSchemas[jobsTypeName], config)
	req := &tfprotov6.ReadDataSourceRequest{TypeName: jobsTypeName, Config: &cfg}
	got, err1 := fast.Server.ReadDataSource(context.Background(), req)
	want, err2 := plain.ReadDataSource(context.Background(), req)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if n := fast.Server.(*secretLines).fullServer.(*jobsfastpath.Server[jobModel]).Answered(); n != 1 {
		t.Fatalf("the fast path answered %d reads, want 1", n)
	}
	sameDiagnostics(t, got.Diagnostics, want.Diagnostics)
	typ := fast.Schemas.DataSourceSchemas[jobsTypeName].ValueType()
	if (got.State == nil) != (want.State == nil) {
		t.Fatalf("state: %v, the framework's %v", got.State, want.State)
	}
	if got.State == nil {
		return got, tftypes.NewValue(typ, nil)
	}
	gv, err1 := got.State.Unmarshal(typ)
	wv, err2 := want.State.Unmarshal(typ)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !gv.Equal(wv) {
		t.Errorf("the states differ:\n%v\nthe framework's:\n%v", gv, wv)
	}
	// Byte for byte, so that whatever an acctest.Engine reads of the framework's,
	// it reads of these.
	if !bytes.Equal(got.State.MsgPack, want.State.MsgPack) {
		t.Errorf("the encoded states differ (%d bytes, the framework's %d)", len(got.State.MsgPack), len(want.State.MsgPack))
	}
	return got, gv
}

// seenValues records, for each attribute of a job, whether a state showed
// it null and whether it showed it set, and which values of is_active it
// showed: what a comparison of states covered.
type seenValues struct {
	null, set map[string]bool
	active    map[bool]bool
}

func newSeenValues() *seenValues {
	return &seenValues{null: map[string]bool{}, set: map[string]bool{}, active: map[bool]bool{}}
}

// add records the jobs of a dataintegration_jobs state and returns how many
// it holds.
func (s *seenValues) add(t *testing.T, state tftypes.Value) int {
	t.Helper()
	if state.IsNull() {
		return 0
	}
	var attrs map[string]tftypes.Value
	var jobs []tftypes.Value
	if err := state.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if err := attrs["jobs"].As(&jobs); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		var fields map[string]tftypes.Value
		if err := j.As(&fields); err != nil {
			t.Fatal(err)
		}
		for name, v := range fields {
			if v.IsNull() {
				s.null[name] = true
				continue
			}
			s.set[name] = true
			if name == "is_active" {
				var b bool
				if err := v.As(&b); err != nil {
					t.Fatal(err)
				}
				s.active[b] = true
			}
		}
	}
	return len(jobs)
}

// covered fails unless every attribute of a job was seen set, those of
// nullable null, and is_active both true and false.
func (s *seenValues) covered(t *testing.T, nullable ...string) {
	t.Helper()
	for name := range jobAttributeDescriptions {
		if !s.set[name] {
			t.Errorf("no state compared showed %s set", name)
		}
	}
	for _, name := range nullable {
		if !s.null[name] {
			t.Errorf("no state compared showed %s null", name)
		}
	}
	if !s.active[true] || !s.active[false] {
		t.Errorf("the states compared showed is_active %v, want both true and false", s.active)
	}
}

// craftedJobs hold every kind of value the client hands over: nulls, empty
// strings, strings at each length MessagePack encodes differently, non-ASCII.
func craftedJobs(n int) []client.Job {
	values := []*string{
		nil, ptr(""), ptr("a"), ptr("Ünïcødé ✓ 名前"), ptr(`"quoted" \ and
a new line`),
		ptr(strings.Repeat("x", 31)), ptr(strings.Repeat("y", 32)), ptr(strings.Repeat("z", 255)),
		ptr(strings.Repeat("w", 256)), ptr(strings.Repeat("v", 65535)), ptr(strings.Repeat("u", 65536)),
	}
	at := func(i, shift int) *string { return values[(i+shift)%len(values)] }
	jobs := make([]client.Job, n)
	for i := range jobs {
		jobs[i] = client.Job{
			ID:            fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			CreatedAt:     at(i, 0),
			UpdatedAt:     at(i, 1),
			DataSource:    at(i, 2),
			ConnectorName: at(i, 3),
			SchemaName:    at(i, 4),
			Name:          at(i, 5),
			IsActive:      i%3 == 0,
		}
	}
	return jobs
}

// jobsService serves jobs as the service's list of jobs does, pageSize a
// page, with count and next_page, whatever the filters.
func jobsService(t testing.TB, jobs []client.Job, pageSize int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil || page < 1 || (page-1)*pageSize > len(jobs) {
			http.Error(w, `{"detail": "Invalid page."}`, http.StatusNotFound)
			return
		}
		end := min(page*pageSize, len(jobs))
		var next *int
		if end < len(jobs) {
			next = ptr(page + 1)
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(map[string]any{"count": len(jobs), "next_page": next, "results": jobs[(page-1)*pageSize : end]}); err != nil {
			t.Error(err)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
