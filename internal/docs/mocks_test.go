package docs

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/provider"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/zclconf/go-cty/cty"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// The mock defaults the provider publishes for `terraform test`
// (examples/testing/mocks), kept true to the schemas: every computed
// attribute has a default of its type that passes the provider's checks, so
// that a mocked value fed into another argument is accepted as a real one
// would be.

// mocksFile is the published file of mock defaults.
var mocksFile = filepath.Join(examplesDir, "testing", "mocks", "dataintegration.tfmock.hcl")

// mockKey names a mock block: "resource" or "data", and the type.
type mockKey struct{ kind, typ string }

func (k mockKey) String() string { return fmt.Sprintf("mock_%s %q", k.kind, k.typ) }

// mockBlocksSchema is what a .tfmock.hcl file, or a mock_provider block,
// holds.
var mockBlocksSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "mock_resource", LabelNames: []string{"type"}},
	{Type: "mock_data", LabelNames: []string{"type"}},
}}

// mockDefaults reads the defaults of each mock block of a body.
func mockDefaults(t *testing.T, body hcl.Body) map[mockKey]map[string]cty.Value {
	t.Helper()
	content, _, diags := body.PartialContent(mockBlocksSchema)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out := map[mockKey]map[string]cty.Value{}
	for _, b := range content.Blocks {
		key := mockKey{strings.TrimPrefix(b.Type, "mock_"), b.Labels[0]}
		attrs, diags := b.Body.JustAttributes()
		if diags.HasErrors() {
			t.Fatalf("%s: %s", key, diags)
		}
		def, ok := attrs["defaults"]
		if !ok {
			t.Fatalf("%s has no defaults", key)
		}
		v, diags := def.Expr.Value(nil)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", key, diags)
		}
		out[key] = v.AsValueMap()
	}
	return out
}

func parseHCL(t *testing.T, path string) hcl.Body {
	t.Helper()
	f, diags := hclparse.NewParser().ParseHCLFile(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return f.Body
}

// mockedSchemas are the schemas of everything a mock block may name.
func mockedSchemas(t *testing.T) map[mockKey]*tfprotov6.SchemaBlock {
	t.Helper()
	schemas := acctest.ServeProto(t, provider.NewServer("test")).Schemas
	out := map[mockKey]*tfprotov6.SchemaBlock{}
	for name, s := range schemas.ResourceSchemas {
		out[mockKey{"resource", name}] = s.Block
	}
	for name, s := range schemas.DataSourceSchemas {
		out[mockKey{"data", name}] = s.Block
	}
	return out
}

// serviceTime is a time as the service gives it: ISO 8601 with
// milliseconds, in UTC.
var serviceTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// mockChecks says, for each computed attribute's name, what a value must be
// to pass for one the provider or the service gives. A computed attribute
// whose name is not here fails the test: decide what its default must be.
var mockChecks = map[string]func(cty.Value) error{
	"id":             uuidValue,
	"workspace_id":   uuidValue,
	"job_id":         uuidValue,
	"ids":            eachValue(uuidValue),
	"created_at":     timeValue,
	"updated_at":     timeValue,
	"triggered_at":   triggeredAtValue,
	"name":           stringValue(validate.Name),
	"url":            stringValue(validate.AccountURL),
	"agent_email":    stringValue(validate.Email),
	"connector_name": stringValue(validate.NotBlank),
	"data_source":    stringValue(validate.NotBlank),
	"schema_name":    stringValue(validate.NotBlank),
	"if_running":     stringValue(validate.IfRunning),
	"streams": func(v cty.Value) error {
		s, err := ctyStrings(v)
		if err != nil {
			return err
		}
		return validate.Streams(s)
	},
	"is_active":          boolValue,
	"force_full_refresh": boolValue,
	"cancel_on_destroy":  boolValue,
	// The state holds an empty map when the configuration has none.
	"triggers": func(v cty.Value) error {
		if !v.Type().IsObjectType() && !v.Type().IsMapType() || v.LengthInt() != 0 {
			return fmt.Errorf("%#v is not an empty map", v)
		}
		return nil
	},
}

func stringValue(check func(string) error) func(cty.Value) error {
	return func(v cty.Value) error {
		if v.Type() != cty.String || v.IsNull() {
			return fmt.Errorf("%#v is not a string", v)
		}
		return check(v.AsString())
	}
}

var uuidValue = stringValue(validate.UUID)

func timeValue(v cty.Value) error {
	return stringValue(func(s string) error {
		if _, err := time.Parse(time.RFC3339, s); err != nil || !serviceTime.MatchString(s) {
			return fmt.Errorf("%q is not a time as the service gives it, such as 2026-01-01T00:00:00.000Z", s)
		}
		return nil
	})(v)
}

func triggeredAtValue(v cty.Value) error {
	return stringValue(func(s string) error {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil || at.Format(time.RFC3339) != s || at.Location() != time.UTC {
			return fmt.Errorf("%q is not an RFC 3339 time in UTC in whole seconds, such as 2026-01-01T00:00:00Z", s)
		}
		return nil
	})(v)
}

func boolValue(v cty.Value) error {
	if v.Type() != cty.Bool || v.IsNull() {
		return fmt.Errorf("%#v is not a bool", v)
	}
	return nil
}

func eachValue(check func(cty.Value) error) func(cty.Value) error {
	return func(v cty.Value) error {
		if !v.CanIterateElements() || v.Type().IsObjectType() || v.Type().IsMapType() {
			return fmt.Errorf("%#v is not a list", v)
		}
		for _, e := range v.AsValueSlice() {
			if err := check(e); err != nil {
				return err
			}
		}
		return nil
	}
}

func ctyStrings(v cty.Value) ([]string, error) {
	var out []string
	err := eachValue(func(e cty.Value) error {
		if e.Type() != cty.String || e.IsNull() {
			return fmt.Errorf("%#v is not a string", e)
		}
		out = append(out, e.AsString())
		return nil
	})(v)
	return out, err
}

// checkMockAttrs checks the defaults of the computed attributes of attrs,
// nested ones included, and returns the problems found.
func checkMockAttrs(at string, attrs []*tfprotov6.SchemaAttribute, defaults map[string]cty.Value) []string {
	var problems []string
	for _, a := range attrs {
		if !a.Computed || a.WriteOnly {
			continue
		}
		name := at + a.Name
		v, ok := defaults[a.Name]
		if !ok {
			problems = append(problems, name+" is computed but has no default")
			continue
		}
		if a.NestedType != nil {
			// Terraform takes an object, what each element holds, and
			// mocks no element; OpenTofu takes a list.
			if v.Type().IsObjectType() {
				problems = append(problems, checkMockAttrs(name+".", a.NestedType.Attributes, v.AsValueMap())...)
				continue
			}
			if err := eachValue(func(e cty.Value) error {
				if !e.Type().IsObjectType() {
					return fmt.Errorf("%#v is not an object", e)
				}
				problems = append(problems, checkMockAttrs(name+"[].", a.NestedType.Attributes, e.AsValueMap())...)
				return nil
			})(v); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			}
			continue
		}
		check, ok := mockChecks[a.Name]
		if !ok {
			problems = append(problems, name+" is computed, and mockChecks has no check for it")
			continue
		}
		if err := check(v); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
		}
	}
	return problems
}

// frameworkDefaults are the values the provider plans for the resources'
// arguments that the configuration leaves out, by mock key and attribute.
func frameworkDefaults(t *testing.T) map[mockKey]map[string]cty.Value {
	t.Helper()
	ctx := context.Background()
	out := map[mockKey]map[string]cty.Value{}
	for _, newResource := range provider.New("test")().Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "dataintegration"}, &meta)
		var s resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &s)
		key := mockKey{"resource", meta.TypeName}
		out[key] = map[string]cty.Value{}
		for name, a := range s.Schema.Attributes {
			var v cty.Value
			switch d := a.(type) {
			case interface{ BoolDefaultValue() defaults.Bool }:
				if d.BoolDefaultValue() == nil {
					continue
				}
				var resp defaults.BoolResponse
				d.BoolDefaultValue().DefaultBool(ctx, defaults.BoolRequest{}, &resp)
				v = cty.BoolVal(resp.PlanValue.ValueBool())
			case interface{ StringDefaultValue() defaults.String }:
				if d.StringDefaultValue() == nil {
					continue
				}
				var resp defaults.StringResponse
				d.StringDefaultValue().DefaultString(ctx, defaults.StringRequest{}, &resp)
				v = cty.StringVal(resp.PlanValue.ValueString())
			case interface{ ListDefaultValue() defaults.List }:
				if d.ListDefaultValue() == nil {
					continue
				}
				var resp defaults.ListResponse
				d.ListDefaultValue().DefaultList(ctx, defaults.ListRequest{}, &resp)
				var elems []cty.Value
				for _, e := range resp.PlanValue.Elements() {
					elems = append(elems, cty.StringVal(e.(types.String).ValueString()))
				}
				v = cty.TupleVal(elems)
			default:
				continue
			}
			out[key][name] = v
		}
	}
	return out
}

// TestMockDefaults_fitTheSchemas checks the published mock defaults against the schemas:
// a block for every resource and data source, a default for every computed
// attribute that passes mockChecks, the provider's own default for every
// argument that has one, and nothing the schema does not name.
func TestMockDefaults_fitTheSchemas(t *testing.T) {
	t.Parallel()
	published := mockDefaults(t, parseHCL(t, mocksFile))
	schemas := mockedSchemas(t)
	planned := frameworkDefaults(t)
	for key, block := range schemas {
		defaults, ok := published[key]
		if !ok {
			t.Errorf("%s has no %s block", mocksFile, key)
			continue
		}
		for _, p := range checkMockAttrs("", block.Attributes, defaults) {
			t.Errorf("%s, %s: %s", mocksFile, key, p)
		}
		for name, want := range planned[key] {
			if got, ok := defaults[name]; ok && !got.Equals(want).True() {
				t.Errorf("%s, %s: %s is %#v, but the provider's default is %#v", mocksFile, key, name, got, want)
			}
		}
	}
	for key, defaults := range published {
		block, ok := schemas[key]
		if !ok {
			t.Errorf("%s: %s names nothing the provider has", mocksFile, key)
			continue
		}
		for name := range defaults {
			if !slices.ContainsFunc(block.Attributes, func(a *tfprotov6.SchemaAttribute) bool { return a.Name == name && a.Computed }) {
				t.Errorf("%s, %s: %s is not a computed attribute", mocksFile, key, name)
			}
		}
	}
}

// TestMockDefaults_checksFail shows that the checks refuse what a mocked
// provider invents without defaults: random strings, empty lists.
func TestMockDefaults_checksFail(t *testing.T) {
	t.Parallel()
	schemas := mockedSchemas(t)
	invented := map[string]cty.Value{}
	for _, a := range schemas[mockKey{"resource", "dataintegration_job_trigger"}].Attributes {
		invented[a.Name] = cty.StringVal("bmhbbuca")
	}
	problems := checkMockAttrs("", schemas[mockKey{"resource", "dataintegration_job_trigger"}].Attributes, invented)
	for _, want := range []string{"job_id: ", "triggered_at: ", "force_full_refresh: ", "triggers: "} {
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("a random string for %s passed; problems: %q", strings.TrimSuffix(want, ": "), problems)
		}
	}
	missing := checkMockAttrs("", schemas[mockKey{"data", "dataintegration_jobs"}].Attributes, map[string]cty.Value{
		"jobs": cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("1")})}),
	})
	// Terraform's form: an object, what each job holds.
	missing = append(missing, checkMockAttrs("", schemas[mockKey{"data", "dataintegration_jobs"}].Attributes, map[string]cty.Value{
		"jobs": cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("1")}),
	})...)
	for _, want := range []string{"ids is computed but has no default", "jobs[].id: ", "jobs[].name is computed but has no default", "jobs.id: ", "jobs.name is computed but has no default"} {
		if !slices.ContainsFunc(missing, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("no problem %q; problems: %q", want, missing)
		}
	}
}

// TestMockDefaults_openTofuCopies checks the mock blocks written inside
// mock_provider in the OpenTofu test files (.tofutest.hcl) under examples/,
// which have no `source` there: each value is the published one, and each
// attribute the configuration cannot set (computed only) is there. The
// arguments the provider computes may be left out: OpenTofu refuses a
// default for one the configuration sets.
func TestMockDefaults_openTofuCopies(t *testing.T) {
	t.Parallel()
	published := mockDefaults(t, parseHCL(t, mocksFile))
	schemas := mockedSchemas(t)
	files := openTofuTestFiles(t)
	for _, file := range files {
		content, _, diags := parseHCL(t, file).PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "mock_provider", LabelNames: []string{"name"}}}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, mp := range content.Blocks {
			for key, defaults := range mockDefaults(t, mp.Body) {
				for name, v := range defaults {
					if want, ok := published[key][name]; !ok || !sameMockValue(v, want) {
						t.Errorf("%s, %s: %s = %#v, but %s has %#v", file, key, name, v, mocksFile, want)
					}
				}
				for _, a := range schemas[key].Attributes {
					if _, ok := defaults[a.Name]; a.Computed && !a.Optional && !ok {
						t.Errorf("%s, %s: %s, computed only, has no default (%s has one)", file, key, a.Name, mocksFile)
					}
				}
			}
		}
	}
}

// sameMockValue tells whether an OpenTofu copy's value is the published
// one: the same value, or, for the object Terraform takes as what each
// element of a list holds, a list of that object, which OpenTofu takes.
func sameMockValue(v, published cty.Value) bool {
	if v.Equals(published).True() {
		return true
	}
	if !published.Type().IsObjectType() || !v.Type().IsTupleType() || v.LengthInt() == 0 {
		return false
	}
	for _, e := range v.AsValueSlice() {
		if !e.Equals(published).True() {
			return false
		}
	}
	return true
}

// openTofuTestFiles are the OpenTofu test files (.tofutest.hcl) under
// examples/.
func openTofuTestFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(examplesDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".tofutest.hcl") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no .tofutest.hcl file under examples/")
	}
	return files
}

// TestMockDefaults_openTofuTwins checks that each OpenTofu test file under
// examples/ runs what its Terraform twin of the same name runs: the same
// blocks, in the same order, but for mock_provider, which differs by engine.
func TestMockDefaults_openTofuTwins(t *testing.T) {
	t.Parallel()
	for _, tofu := range openTofuTestFiles(t) {
		terraform := strings.TrimSuffix(tofu, ".tofutest.hcl") + ".tftest.hcl"
		if got, want := testBlocks(t, tofu), testBlocks(t, terraform); got != want {
			t.Errorf("%s does not run what %s runs: besides mock_provider, its blocks are\n%s\nwant\n%s", tofu, terraform, got, want)
		}
	}
}

// testBlocks is the text of a test file's top-level blocks and attributes
// but mock_provider, in order.
func testBlocks(t *testing.T, path string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	body := f.Body.(*hclsyntax.Body)
	var parts []hcl.Range
	for _, a := range body.Attributes {
		parts = append(parts, a.SrcRange)
	}
	for _, b := range body.Blocks {
		if b.Type != "mock_provider" {
			parts = append(parts, b.Range())
		}
	}
	slices.SortFunc(parts, func(a, b hcl.Range) int { return a.Start.Byte - b.Start.Byte })
	var out []string
	for _, r := range parts {
		out = append(out, string(r.SliceBytes(src)))
	}
	return strings.Join(out, "\n\n")
}
