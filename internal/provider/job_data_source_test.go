package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// expectJob checks every attribute of the dataintegration_job data source.
func expectJob(workspaceID string, j client.Job) []statecheck.StateCheck {
	want := map[string]knownvalue.Check{
		"workspace_id":   knownvalue.StringExact(workspaceID),
		"id":             knownvalue.StringExact(j.ID),
		"name":           knownvalue.StringExact(*j.Name),
		"data_source":    knownvalue.StringExact(*j.DataSource),
		"connector_name": knownvalue.StringExact(*j.ConnectorName),
		"schema_name":    knownvalue.StringExact(*j.SchemaName),
		"is_active":      knownvalue.Bool(j.IsActive),
		"created_at":     knownvalue.StringExact(*j.CreatedAt),
		"updated_at":     knownvalue.StringExact(*j.UpdatedAt),
	}
	var checks []statecheck.StateCheck
	for attr, c := range want {
		checks = append(checks, statecheck.ExpectKnownValue(acctest.JobAddress, tfjsonpath.New(attr), c))
	}
	return checks
}

func TestAccJobDataSource_byNameAndByID(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 250})
	all := e.JobsOneByOne(t, client.JobFilter{})
	// A job on the last page: finding it by id means reading every page.
	last := all[len(all)-1]
	other := all[len(all)/2]
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            e.ProviderConfig() + fmt.Sprintf(`data "dataintegration_job" "test" { name = %q }`, *other.Name),
				ConfigStateChecks: expectJob(e.WorkspaceID, other),
			},
			{
				Config:            e.ProviderConfig() + fmt.Sprintf(`data "dataintegration_job" "test" { id = %q }`, last.ID),
				ConfigStateChecks: expectJob(e.WorkspaceID, last),
			},
		},
	})
}

func TestAccJobDataSource_failures(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	const missingID = "0f0f0f0f-0000-4000-8000-00000000abcd"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      e.ProviderConfig() + `data "dataintegration_job" "test" { name = "no job has this name" }`,
				ExpectError: acctest.Phrases("Job Not Found", `No job is named "no job has this name" in workspace`),
			},
			{
				Config:      e.ProviderConfig() + fmt.Sprintf(`data "dataintegration_job" "test" { id = %q }`, missingID),
				ExpectError: acctest.Phrases("Job Not Found", "No job has the ID "+missingID),
			},
			{
				Config:      e.ProviderConfig() + `data "dataintegration_job" "test" {}`,
				ExpectError: acctest.Phrases("Missing Attribute Configuration", "Exactly one of these attributes must be configured: [id,name]"),
			},
			{
				Config:      e.ProviderConfig() + fmt.Sprintf("data \"dataintegration_job\" \"test\" {\n  id   = %q\n  name = \"x\"\n}", missingID),
				ExpectError: acctest.Phrases("Invalid Attribute Combination", "Exactly one of these attributes must be configured: [id,name]"),
			},
			{
				Config:      e.ProviderConfig() + `data "dataintegration_job" "test" { id = "job-1" }`,
				ExpectError: acctest.Phrases("Invalid Attribute Value", `"job-1" is not a UUID`),
			},
		},
	})
}

func TestAccJobDataSource_severalMatches(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.RequireSandbox(t, "create two jobs of the same name")
	twin := sandbox.Job{Name: "nightly export", DataSource: "postgres", ConnectorName: "database", SchemaName: "raw", IsActive: true}
	if err := e.Sandbox.AddJobs(e.WorkspaceID, twin, twin); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      e.ProviderConfig() + `data "dataintegration_job" "test" { name = "nightly export" }`,
			ExpectError: acctest.Phrases("Several Jobs Match", `2 jobs are named "nightly export"`, "give the job's ID instead"),
		}},
	})
}

// TestAccJobLookups_blankRefused: an empty or blank job name (the trigger's
// job_name, the job data source's name) and an empty or blank filter or
// ordering of the jobs data source are refused at plan, on the attribute,
// saying what is allowed, before any request. A name with spaces at either
// end is a name: it finds the job that has it.
func TestAccJobLookups_blankRefused(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs})
	e.RequireSandbox(t, "count the requests, and add a job whose name has spaces at either end")
	const padded = "  nightly export "
	if err := e.Sandbox.AddJobs(e.WorkspaceID, sandbox.Job{Name: padded, IsActive: true}); err != nil {
		t.Fatal(err)
	}
	const mustBeAName = "Allowed: a job's exact name, with a character that shows"
	type refusal struct{ address, attr, allowed string }
	var cases []refusal
	var hcl strings.Builder
	refuse := func(kind, block, attr, blank, allowed string) {
		name := fmt.Sprintf("c%d", len(cases))
		address := block + "." + name
		if kind == "data" {
			address = "data." + address
		}
		cases = append(cases, refusal{address, attr, allowed})
		fmt.Fprintf(&hcl, "%s %q %q {\n  %s = %q\n}\n", kind, block, name, attr, blank)
	}
	for _, blank := range []string{"", "   ", "\t", "\u200b", "\u3164"} {
		refuse("resource", "dataintegration_job_trigger", "job_name", blank, mustBeAName)
		refuse("data", "dataintegration_job", "name", blank, mustBeAName)
		refuse("data", "dataintegration_jobs", "ordering", blank, "leave it out for the service's order")
		for _, f := range []string{"connector_name", "data_source", "name", "schema_name"} {
			refuse("data", "dataintegration_jobs", f, blank, "leave it out to list jobs of any "+f)
		}
	}
	before := e.Sandbox.Stats().Requests
	// One plan holds every refusal: each diagnostic names its block.
	refused := false
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		ErrorCheck: func(err error) error {
			refused = true
			diags := strings.Split(err.Error(), "Error: ")
			for _, c := range cases {
				want := acctest.Phrases("Invalid Attribute Value", "with "+c.address+",", c.attr+": the value is blank", c.allowed)
				if !slices.ContainsFunc(diags, want.MatchString) {
					t.Errorf("no diagnostic matches %s", want)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{{Config: e.ProviderConfig() + hcl.String(), PlanOnly: true}},
	})
	if !refused {
		t.Error("the plan of blank values did not fail")
	}
	if n := e.Sandbox.Stats().Requests - before; n != 0 {
		t.Errorf("the sandbox served %d requests, want none", n)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.ProviderConfig() + fmt.Sprintf("data \"dataintegration_job\" \"test\" {\n  name = %q\n}\n", padded),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.JobAddress, tfjsonpath.New("name"), knownvalue.StringExact(padded)),
			},
		}},
	})
}
