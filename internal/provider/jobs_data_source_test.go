package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func TestAccJobsDataSource_all(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	want := e.JobsOneByOne(t, client.JobFilter{})
	if e.Sandbox != nil {
		// Against the sandbox, the oracle is its seed, not the list itself.
		want = nil
		for _, j := range sandbox.SeedJobs(e.WorkspaceID, sandbox.DefaultJobs) {
			want = append(want, client.Job{ID: j.ID})
		}
	}
	first := e.JobsOneByOne(t, client.JobFilter{})[0]
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectIDs(acctest.JobIDs(want)),
				statecheck.ExpectKnownValue(acctest.JobsAddress, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.WorkspaceID)),
				statecheck.ExpectKnownValue(acctest.JobsAddress, tfjsonpath.New("jobs").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"id":             knownvalue.StringExact(first.ID),
					"name":           knownvalue.StringExact(*first.Name),
					"data_source":    knownvalue.StringExact(*first.DataSource),
					"connector_name": knownvalue.StringExact(*first.ConnectorName),
					"schema_name":    knownvalue.StringExact(*first.SchemaName),
					"is_active":      knownvalue.Bool(first.IsActive),
					"created_at":     knownvalue.StringExact(*first.CreatedAt),
					"updated_at":     knownvalue.StringExact(*first.UpdatedAt),
				})),
			},
		}},
	})
}

// TestAccJobsDataSource_filters checks each filter alone and two together
// against the unfiltered list filtered here: the provider must send the
// filters, and the service apply them.
func TestAccJobsDataSource_filters(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	all := e.JobsOneByOne(t, client.JobFilter{})
	ref := all[0]
	f := func(keep func(client.Job) bool) []string {
		var ids []string
		for _, j := range all {
			if keep(j) {
				ids = append(ids, j.ID)
			}
		}
		if len(ids) == 0 || len(ids) == len(all) {
			t.Fatalf("the workspace's jobs make a useless filter case: %d of %d match", len(ids), len(all))
		}
		return ids
	}
	cases := []struct {
		args string
		want []string
	}{
		{fmt.Sprintf("connector_name = %q", *ref.ConnectorName), f(func(j client.Job) bool { return *j.ConnectorName == *ref.ConnectorName })},
		{fmt.Sprintf("data_source = %q", *ref.DataSource), f(func(j client.Job) bool { return *j.DataSource == *ref.DataSource })},
		{fmt.Sprintf("name = %q", *ref.Name), f(func(j client.Job) bool { return *j.Name == *ref.Name })},
		{fmt.Sprintf("schema_name = %q", *ref.SchemaName), f(func(j client.Job) bool { return *j.SchemaName == *ref.SchemaName })},
		{"is_active = false", f(func(j client.Job) bool { return !j.IsActive })},
		{"is_active = true", f(func(j client.Job) bool { return j.IsActive })},
		{fmt.Sprintf("connector_name = %q\n  schema_name = %q", *ref.ConnectorName, *ref.SchemaName),
			f(func(j client.Job) bool {
				return *j.ConnectorName == *ref.ConnectorName && *j.SchemaName == *ref.SchemaName
			})},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:            e.ProviderConfig() + "data \"dataintegration_jobs\" \"test\" {\n  " + c.args + "\n}",
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(c.want)},
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

func TestAccJobsDataSource_ordering(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	all := e.JobsOneByOne(t, client.JobFilter{})
	if len(all) < 2 {
		t.Fatal("need at least two jobs to check an order")
	}
	slices.SortStableFunc(all, func(a, b client.Job) int { return strings.Compare(*b.Name, *a.Name) })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + `data "dataintegration_jobs" "test" { ordering = "-name" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectIDs(acctest.JobIDs(all)),
				statecheck.ExpectKnownValue(acctest.JobsAddress, tfjsonpath.New("ordering"), knownvalue.StringExact("-name")),
			},
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(acctest.JobsAddress, "jobs.0.name", *all[0].Name),
				resource.TestCheckResourceAttr(acctest.JobsAddress, "jobs.1.name", *all[1].Name),
			),
		}},
	})
}

// TestAccJobsDataSource_everyPage reads 250 jobs: three pages of 100, three
// requests, following next_page.
func TestAccJobsDataSource_everyPage(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 250})
	e.RequireSandbox(t, "seed 250 jobs and count the list requests")
	var want []string
	for _, j := range sandbox.SeedJobs(e.WorkspaceID, 250) {
		want = append(want, j.ID)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            e.ProviderConfig() + `data "dataintegration_jobs" "test" {}`,
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(want)},
			// Checked right after the apply: the plan read the data source once.
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(acctest.JobsAddress, "jobs.#", "250"),
				e.ExpectRouteCount(acctest.RouteListJobs, 3),
			),
		}},
	})
}

func TestAccJobsDataSource_unknownOrdering(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	want := []string{"Unable to List Jobs", "HTTP 400"}
	if e.Sandbox != nil {
		want = append(want, `invalid ordering field "colour"`)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      e.ProviderConfig() + `data "dataintegration_jobs" "test" { ordering = "colour" }`,
			ExpectError: acctest.Phrases(want...),
		}},
	})
}

// TestAccJobsDataSource_missingWorkspace runs with no workspace anywhere:
// not in the provider, not in the data source, not in the environment.
func TestAccJobsDataSource_missingWorkspace(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	t.Setenv(EnvWorkspaceID, "")
	config := e.ProviderWithoutWorkspace() + `data "dataintegration_jobs" "test" {}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      config,
			ExpectError: acctest.Phrases("Missing Workspace", "workspace_id", "DATAINTEGRATION_WORKSPACE_ID"),
		}},
	})
	e.ExpectNoRequests(t)
}

func TestAccJobsDataSource_unknownAPIKey(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	badKey := "not-a-key-" + strings.Repeat("7", 24)
	config := e.ProviderWithKey(badKey) + `data "dataintegration_jobs" "test" {}`
	check := &acctest.ErrorMatching{Want: acctest.Phrases("Authentication Failed", "Authentication failed", "HTTP 401"), Secrets: []string{badKey, e.APIKey}}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		ErrorCheck:               check.Check,
		Steps:                    []resource.TestStep{{Config: config}},
	})
	if !check.Seen {
		t.Error("the apply with an unknown API key did not fail")
	}
}

// TestJobsDataSource_readsEachPageOnce: over 10,000 jobs, the data source
// makes exactly 100 list requests, the API's floor, and returns every job.
func TestJobsDataSource_readsEachPageOnce(t *testing.T) {
	srv, err := sandbox.New(sandbox.Config{Jobs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	p := newProtoProvider(t, map[string]string{"base_url": ts.URL, "api_key": sandbox.DefaultAPIKey, "workspace_id": sandbox.DefaultWorkspaceID})
	state := p.ReadJobs(t)
	if n := p.JobsInState(t, state); n != 10000 {
		t.Errorf("%d jobs in the state, want 10000", n)
	}
	st := srv.Stats()
	if st.Requests != 100 || st.ByRoute[acctest.RouteListJobs] != 100 {
		t.Errorf("%d requests (%v), want exactly 100 list requests", st.Requests, fmt.Sprint(st.ByRoute))
	}
}

// clientAndConversion returns a read of every job as the data source does
// it: the provider's client, and the encoding of each page into the state
// Terraform receives, the state itself included.
func clientAndConversion(tb testing.TB, p *acctest.ProtoProvider, base string) func() {
	tb.Helper()
	typ, ok := p.Schemas.DataSourceSchemas[jobsTypeName].ValueType().(tftypes.Object)
	if !ok {
		tb.Fatal("the data source's type is not an object")
	}
	c, err := client.New(client.Config{BaseURL: base, APIKey: sandbox.DefaultAPIKey, Version: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	attrs := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(t, nil)
	}
	return func() {
		sink, err := newPackedJobs(typ)
		if err != nil {
			tb.Fatal(err)
		}
		if err := c.EachJobPage(context.Background(), sandbox.DefaultWorkspaceID, client.JobFilter{}, client.Visitor[client.Job]{Page: sink.add, Reset: sink.reset}); err != nil || sink.n != 10000 {
			tb.Fatalf("%d jobs, %v", sink.n, err)
		}
		if _, err := sink.state(attrs); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkJobsDataSource_clientAndConversion is the provider's client and conversion of
// 10,000 jobs, BenchmarkJobsRead the whole read through the protocol, and
// BenchmarkBareRead the bare loop, for `go test -bench`.
func BenchmarkJobsDataSource_clientAndConversion(b *testing.B) {
	s := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	read := clientAndConversion(b, newProtoProvider(b, map[string]string{"base_url": s.BaseURL, "api_key": s.APIKey}), s.BaseURL)
	b.ReportAllocs()
	for b.Loop() {
		read()
	}
}

// BenchmarkJobsDataSource_againstBareLoop holds the provider's client and
// the data source's conversion of 10,000 jobs to at most 1.2 times the bare
// loop's read (acctest.BareRead), best of 5 each, in turns so that the
// machine's load falls on both alike. make bench prints its row.
func BenchmarkJobsDataSource_againstBareLoop(b *testing.B) {
	e := acctest.NewEnv(b, sandbox.Config{Jobs: 10000})
	p := newProtoProvider(b, map[string]string{"base_url": e.BaseURL, "api_key": e.APIKey, "workspace_id": e.WorkspaceID})
	read := clientAndConversion(b, p, e.BaseURL)
	ours, bare := time.Duration(1<<63-1), time.Duration(1<<63-1)
	for range 5 {
		ours = min(ours, acctest.Best(1, read))
		bare = min(bare, acctest.Best(1, func() {
			if n, err := acctest.BareRead(e.BaseURL); err != nil || n != 10000 {
				b.Fatalf("bare loop: %d jobs, %v", n, err)
			}
		}))
	}
	ratio := float64(ours) / float64(bare)
	rows := []acctest.BenchRow{{
		Figure: "same read: the provider's client and data-source conversion against a bare net/http + encoding/json loop, best of 5",
		Value:  fmt.Sprintf("%.2f× (%v against %v)", ratio, ours.Round(time.Millisecond), bare.Round(time.Millisecond)),
		Target: "at most 1.2×", Met: ratio <= 1.2,
	}}
	acctest.PrintFigures(rows)
	b.ReportMetric(ratio, "provider/bare")
	acctest.Missed(b, rows)
}

// TestJobsDataSource_readLeavesConfigAlone: the jobs data source builds its state
// without writing into the configuration it is given: jobs written into it
// would make the framework compare every job of the state with the
// configuration after Read, for nothing (BENCHMARKS.md, "The 10,000-job
// plan").
func TestJobsDataSource_readLeavesConfigAlone(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 150})
	ctx := context.Background()
	d := &jobsDataSource{data: &providerData{client: e.Client(t), workspaceID: e.WorkspaceID}}
	var s datasource.SchemaResponse
	d.Schema(ctx, datasource.SchemaRequest{}, &s)
	typ, ok := s.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema's type is not an object")
	}
	config := tftypes.NewValue(typ, acctest.ObjectAttrs[any](typ, nil))
	want := config.Copy()
	resp := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema, Raw: config.Copy()}}
	d.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: config}}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if !config.Equal(want) {
		t.Error("Read wrote into the configuration it was given")
	}
	var ids []string
	resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("ids"), &ids)...)
	if resp.Diagnostics.HasError() || len(ids) != 150 {
		t.Errorf("the state holds %d ids, want 150: %v", len(ids), resp.Diagnostics)
	}
}

// TestJobsDataSource_jobModelDescribesEveryAttribute: jobModel is the one description of a
// job: each of its fields has a description and each description a field,
// and both data sources, and packedJobs, show exactly its attributes, of
// its types.
func TestJobsDataSource_jobModelDescribesEveryAttribute(t *testing.T) {
	ctx := context.Background()
	fields := map[string]tftypes.Type{}
	for _, f := range jobModelFields() {
		fields[f.name] = f.typ
		if jobAttributeDescriptions[f.name] == "" {
			t.Errorf("jobModel's %s has no description", f.name)
		}
	}
	for name := range jobAttributeDescriptions {
		if _, ok := fields[name]; !ok {
			t.Errorf("the description of %s describes no field of jobModel", name)
		}
	}
	same := func(what string, got map[string]tftypes.Type) {
		t.Helper()
		if len(got) != len(fields) {
			t.Errorf("%s has %d attributes, jobModel %d", what, len(got), len(fields))
		}
		for name, typ := range fields {
			if !typ.Equal(got[name]) {
				t.Errorf("%s's %s is a %v, jobModel's a %s", what, name, got[name], typ)
			}
		}
	}

	var jobs datasource.SchemaResponse
	(&jobsDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &jobs)
	typ, ok := jobs.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema's type is not an object")
	}
	list, ok := typ.AttributeTypes["jobs"].(tftypes.List)
	if !ok {
		t.Fatal("jobs is not a list")
	}
	job, ok := list.ElementType.(tftypes.Object)
	if !ok {
		t.Fatal("a job is not an object")
	}
	same("a job of dataintegration_jobs", job.AttributeTypes)
	if _, err := newPackedJobs(typ); err != nil {
		t.Errorf("packedJobs refuses the schema: %v", err)
	}

	var one datasource.SchemaResponse
	(&jobDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &one)
	oneType, ok := one.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema's type is not an object")
	}
	attrs := maps.Clone(oneType.AttributeTypes)
	delete(attrs, "workspace_id")
	same("dataintegration_job", attrs)
}

// The tests below hold fastJobs to the framework: the framework's
// own server, with jobsDataSource.Read, is the reference, and fastJobs must
// give, for every read it answers, the diagnostics the framework gives and
// the state it gives, byte for byte; every read it does not answer must
// reach the framework.

// frameworkServer is the provider as the framework alone serves it, without
// fastJobs, configured with settings; not configured when settings is nil.
func frameworkServer(tb testing.TB, settings map[string]string) tfprotov6.ProviderServer {
	tb.Helper()
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		tb.Fatal(err)
	}
	if settings != nil {
		cfg := acctest.ProtoValue(tb, serveProto(tb).Schemas.Provider, settings)
		resp, err := srv.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: &cfg})
		if err != nil {
			tb.Fatal(err)
		}
		acctest.FailOnProto(tb, resp.Diagnostics)
	}
	return srv
}

// readBothWays reads a dataintegration_jobs of configuration config through
// the provider as NewServer serves it and through the framework alone, each
// configured with settings, and fails unless fastJobs answered the read and
// both gave the same diagnostics and the same state, byte for byte. It
// returns fastJobs' answer, and the state decoded (null after an error).
func readBothWays(t *testing.T, settings map[string]string, config map[string]any) (*tfprotov6.ReadDataSourceResponse, tftypes.Value) {
	t.Helper()
	fast := newProtoProvider(t, settings)
	plain := frameworkServer(t, settings)
	cfg := acctest.ProtoValue(t, fast.Schemas.DataSourceSchemas[jobsTypeName], config)
	req := &tfprotov6.ReadDataSourceRequest{TypeName: jobsTypeName, Config: &cfg}
	got, err1 := fast.Server.ReadDataSource(context.Background(), req)
	want, err2 := plain.ReadDataSource(context.Background(), req)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if n := fast.Server.(*secretLines).fullServer.(*fastJobs).answered.Load(); n != 1 {
		t.Fatalf("fastJobs answered %d reads, want 1", n)
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

// sameDiagnostics fails unless got are want, in the same order.
func sameDiagnostics(t *testing.T, got, want []*tfprotov6.Diagnostic) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("diagnostics: %v, the framework's %v", got, want)
	}
	for i, d := range got {
		w := want[i]
		if d.Severity != w.Severity || d.Summary != w.Summary || d.Detail != w.Detail || !d.Attribute.Equal(w.Attribute) {
			t.Errorf("diagnostic %d: %+v, the framework's %+v", i, d, w)
		}
	}
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

// TestJobsDataSource_fastAnswersAsTheFramework: fastJobs gives the state and the
// diagnostics the framework gives for the same read, configuration by
// configuration: every filter, an ordering, a workspace in upper case,
// nothing found, a workspace the key cannot reach, no workspace at all, an
// ordering the service refuses; over three pages, over eleven pages of 25,
// over no job at all, and from a service that sends null for every field
// it may. Between them, the states compared show each attribute of a job
// set, and null where the service may send null.
func TestJobsDataSource_fastAnswersAsTheFramework(t *testing.T) {
	t.Setenv(EnvWorkspaceID, "")
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

// craftedJobs are jobs that hold, between them, every kind of value the
// client hands over: each field the service may send as null null in some
// jobs, empty strings, strings of every length MessagePack encodes
// differently (up to 31 bytes, 255, 65,535 and beyond), text outside ASCII,
// quotes and new lines, and both values of is_active.
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

func ptr[T any](v T) *T { return &v }

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

// TestJobsDataSource_fastAnswersAsTheFrameworkForAnyValue: over jobs that hold every
// kind of value (craftedJobs), three pages of them, fastJobs gives the
// framework's state byte for byte, each attribute of a job null or set.
func TestJobsDataSource_fastAnswersAsTheFrameworkForAnyValue(t *testing.T) {
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

// frameworkSpy counts the reads of data sources that reach the framework.
type frameworkSpy struct {
	fullServer
	reads atomic.Int64
}

func (s *frameworkSpy) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	s.reads.Add(1)
	return s.fullServer.ReadDataSource(ctx, req)
}

// TestJobsDataSource_fastLeavesTheRestToTheFramework: each read fastJobs cannot answer
// as the framework would goes to the framework, which answers it as it
// does without fastJobs: another data source, a provider not configured,
// no configuration, a configuration not fully known, a configuration of
// another type.
func TestJobsDataSource_fastLeavesTheRestToTheFramework(t *testing.T) {
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
			p := &dataIntegrationProvider{version: "test"}
			inner, err := providerserver.NewProtocol6WithError(p)()
			if err != nil {
				t.Fatal(err)
			}
			spy := &frameworkSpy{fullServer: inner.(fullServer)}
			fast := &fastJobs{fullServer: spy, p: p}
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
			if n := fast.answered.Load(); n != 0 {
				t.Errorf("fastJobs answered %d reads, want none", n)
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

// BenchmarkJobsDataSource_readPaths reads 10,000 jobs through the protocol both ways,
// against the same sandbox: fastJobs, and the framework alone, whose Read
// is the reference fastJobs is held to. The difference is what fastJobs
// saves a plan (BENCHMARKS.md, "The 10,000-job plan").
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

// BenchmarkJobsDataSource_packedJobs is packedJobs' own work for 10,000 jobs already
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
		sink, err := newPackedJobs(typ)
		if err != nil {
			b.Fatal(err)
		}
		for page := range 100 {
			sink.add(jobs[page*100 : (page+1)*100])
		}
		if _, err := sink.state(attrs); err != nil {
			b.Fatal(err)
		}
	}
}

// TestJobsDataSource_readsAChangedListAgain: a job created while the data
// source reads the list (between its pages) makes it read the list again
// from the start, once, and the state holds every job once; a list that
// keeps changing fails the read with a clear error.
func TestJobsDataSource_readsAChangedListAgain(t *testing.T) {
	for _, changes := range []int64{1, 2} {
		srv, err := sandbox.New(sandbox.Config{Jobs: 450})
		if err != nil {
			t.Fatal(err)
		}
		var left atomic.Int64
		left.Store(changes)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") == "3" && left.Add(-1) >= 0 {
				if err := srv.AddJobs(sandbox.DefaultWorkspaceID, sandbox.Job{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", left.Load()), Name: "new"}); err != nil {
					t.Error(err)
				}
			}
			srv.ServeHTTP(w, r)
		}))
		p := newProtoProvider(t, map[string]string{"base_url": ts.URL, "api_key": sandbox.DefaultAPIKey, "workspace_id": sandbox.DefaultWorkspaceID})
		resp := p.ReadJobsResponse(t)
		switch changes {
		case 1:
			var want []string
			for _, j := range srv.Jobs(sandbox.DefaultWorkspaceID) {
				want = append(want, j.ID)
			}
			if got := p.IDsInState(t, resp.State); len(want) != 451 || !slices.Equal(got, want) {
				t.Errorf("one change: %d jobs in the state, want the sandbox's %d in its order", len(got), len(want))
			}
			// Page 1 to 5 asked, then the list again: 5 pages.
			if got := srv.Stats().ByRoute[acctest.RouteListJobs]; got < 6 || got > 10 {
				t.Errorf("one change: %d list requests, want 6 to 10", got)
			}
		case 2:
			if len(resp.Diagnostics) == 0 || !strings.Contains(resp.Diagnostics[0].Detail, "changed while it was read, twice in a row") ||
				strings.Contains(resp.Diagnostics[0].Detail, "could not be read") {
				t.Errorf("two changes: %v", resp.Diagnostics)
			}
		}
		ts.Close()
	}
}
