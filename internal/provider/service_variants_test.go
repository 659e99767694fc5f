package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// serviceVariants are services the published API allows, each settling
// its open points another way than the sandbox's default: which envelope
// fields a page carries, how many items it holds at most, what a page past
// the last answers, how filters match, fields beyond those listed, and
// null for a listed string.
var serviceVariants = map[string]sandbox.Variant{
	"default":                          {},
	"next_page only, 25 a page":        {Envelope: []string{"next_page"}, MaxPageSize: 25},
	"results only, 404 past the end":   {Envelope: []string{}, PastEnd: sandbox.PastEnd404},
	"results only, empty past the end": {Envelope: []string{}, PastEnd: sandbox.PastEndEmpty, MaxPageSize: 25},
	"count only, 25 a page":            {Envelope: []string{"count"}, MaxPageSize: 25},
	"count and total_pages, no next":   {Envelope: []string{"count", "total_pages"}},
	"partial filters, extra, null":     {Envelope: []string{"total_pages", "page_size"}, Filters: sandbox.FiltersPartial, ExtraFields: true, NullFields: []string{"data_source"}},
	"ignored filters, next and count":  {Envelope: []string{"next_page", "count"}, Filters: sandbox.FiltersIgnored, ExtraFields: true, MaxPageSize: 25},
	"everything left out but results":  {Envelope: []string{}, Filters: sandbox.FiltersIgnored, NullFields: []string{"data_source", "schema_name"}, MaxPageSize: 30},
}

// variantEnv is a sandbox playing variant v, whose workspace holds 260
// jobs: 256 generated, the job of a connector made outside Terraform whose
// name contains name in upper case, and three jobs last in the service's
// order (on page 3 of 100) whose names a partial or ignored name filter
// confuses with "nightly", the last of them.
type variantEnv struct {
	*acctest.Env
	jobs    []sandbox.Job
	nightly sandbox.Job
	// other is the connector made outside Terraform: a name check that a
	// partial filter misleads would take it for the one to create.
	other *client.Connector
}

func newVariantEnv(t *testing.T, v sandbox.Variant, name string, run time.Duration) *variantEnv {
	t.Helper()
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 256, Variant: v, RunDuration: run})
	e.RequireSandbox(t, "play a service that settles the API's open points another way")
	ve := &variantEnv{Env: e, other: e.MakeConnector(t, strings.ToUpper(name)+" (old)")}
	now := time.Now().UTC()
	for i, n := range []string{"nightly (copy)", "Nightly", "nightly"} {
		at := now.Add(time.Duration(i) * time.Second)
		if err := e.Sandbox.AddJobs(e.WorkspaceID, sandbox.Job{
			Name: n, DataSource: "zendesk", ConnectorName: "customer_service", SchemaName: "raw", IsActive: true, CreatedAt: at, UpdatedAt: at,
		}); err != nil {
			t.Fatal(err)
		}
	}
	ve.jobs = e.Sandbox.Jobs(e.WorkspaceID)
	ve.nightly = ve.jobs[len(ve.jobs)-1]
	if ve.nightly.Name != "nightly" || len(ve.jobs) != 260 {
		t.Fatalf("the sandbox's last job is %q of %d", ve.nightly.Name, len(ve.jobs))
	}
	return ve
}

// expectOnlyNightlyRan checks that "nightly" has the executions want
// (their statuses, oldest first) and every other job none, and that the
// connector made outside Terraform is still there.
func (ve *variantEnv) expectOnlyNightlyRan(want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, j := range ve.jobs {
			ex := ve.Sandbox.Executions(ve.WorkspaceID, j.ID)
			if j.ID != ve.nightly.ID {
				if len(ex) != 0 {
					return fmt.Errorf("job %q ran %d times, want none: only %q was named", j.Name, len(ex), ve.nightly.Name)
				}
				continue
			}
			got := make([]string, len(ex))
			for i, x := range ex {
				got[i] = x.Status
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("job %q has executions %v, want %v", j.Name, got, want)
			}
		}
		if _, ok := ve.Sandbox.Connector(ve.WorkspaceID, ve.other.ID); !ok {
			return fmt.Errorf("the connector %q made outside Terraform is gone", ve.other.Name)
		}
		return nil
	}
}

// TestAccLists_serviceVariants runs every list and lookup of resources and
// data sources against each service of serviceVariants, over 260 jobs: the
// jobs data source holds all of them, each once, in the service's order; a
// job on page 3 is found by ID and by name; a trigger by job_name runs
// exactly the job of that name, not one whose name a partial or ignored
// filter also matches; a connector's name check, and the connector data
// source by name, find exactly theirs; a null is null. The plan after is
// empty.
func TestAccLists_serviceVariants(t *testing.T) {
	for label, v := range serviceVariants {
		t.Run(label, func(t *testing.T) {
			name := acctest.Name("variant")
			e := newVariantEnv(t, v, name, time.Millisecond)
			ids := make([]string, len(e.jobs))
			for i, j := range e.jobs {
				ids[i] = j.ID
			}
			page3 := e.jobs[210]
			config := e.ProviderConfig() + fmt.Sprintf(`
data "dataintegration_jobs" "all" {}

data "dataintegration_job" "by_id" {
  id = %q
}

data "dataintegration_job" "by_name" {
  name = "nightly"
}

resource "dataintegration_job_trigger" "nightly" {
  job_name = "nightly"
}

resource "dataintegration_customer_service_connector" "c" {
  name        = %q
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = "platform-token-1"
}

data "dataintegration_customer_service_connector" "by_name" {
  name = dataintegration_customer_service_connector.c.name
}
`, page3.ID, name)
			// A field the service sends as null is null; else it is set.
			nulls := func(addr, prefix, field string) resource.TestCheckFunc {
				if slices.Contains(v.NullFields, field) {
					return resource.TestCheckNoResourceAttr(addr, prefix+field)
				}
				return resource.TestCheckResourceAttrSet(addr, prefix+field)
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: config,
						Check: resource.ComposeAggregateTestCheckFunc(
							expectList("data.dataintegration_jobs.all", "ids", ids),
							resource.TestCheckResourceAttr("data.dataintegration_jobs.all", "jobs.#", "260"),
							resource.TestCheckResourceAttr("data.dataintegration_job.by_id", "name", page3.Name),
							nulls("data.dataintegration_job.by_id", "", "data_source"),
							nulls("data.dataintegration_job.by_id", "", "schema_name"),
							nulls("data.dataintegration_jobs.all", "jobs.259.", "data_source"),
							resource.TestCheckResourceAttr("data.dataintegration_job.by_name", "id", e.nightly.ID),
							resource.TestCheckResourceAttr("dataintegration_job_trigger.nightly", "job_id", e.nightly.ID),
							resource.TestCheckResourceAttrPair("data.dataintegration_customer_service_connector.by_name", "id", "dataintegration_customer_service_connector.c", "id"),
							e.expectOnlyNightlyRan(sandbox.StatusSucceeded),
						),
					},
					{Config: config, PlanOnly: true},
				},
			})
		})
	}
}

// TestAccLists_serviceVariantsActionsAndQuery runs the lookups of the
// actions and the list resource against each service of serviceVariants
// (Terraform 1.14+): run_job and cancel_job by job_name reach exactly the
// job of that name; `terraform query` lists every connector, each once,
// over more than one page where the service serves 25, and by name finds
// exactly the one of that name.
func TestAccLists_serviceVariantsActionsAndQuery(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActions)
	acctest.RequireCapability(t, acctest.CapListResources)
	for label, v := range serviceVariants {
		t.Run(label, func(t *testing.T) {
			name := acctest.Name("variant")
			e := newVariantEnv(t, v, name, time.Hour)
			made := []string{e.other.ID}
			for i := range 30 {
				made = append(made, e.MakeConnector(t, fmt.Sprintf("%s %02d", name, i)).ID)
			}
			exact := e.MakeConnector(t, name)
			made = append(made, exact.ID)
			run := e.ProviderConfig() + acctest.RunJobHCL("run", "a", `    job_name = "nightly"`)
			cancel := run + `
action "dataintegration_cancel_job" "cancel" {
  config {
    job_name = "nightly"
  }
}

resource "terraform_data" "cancel" {
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.dataintegration_cancel_job.cancel]
    }
  }
}
`
			all := []querycheck.QueryResultCheck{querycheck.ExpectLength(acctest.ConnectorType+".all", len(made))}
			for _, id := range made {
				all = append(all, querycheck.ExpectIdentity(acctest.ConnectorType+".all", acctest.ConnectorIdentityCheck(id, e.WorkspaceID)))
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{Config: run, Check: e.expectOnlyNightlyRan(sandbox.StatusRunning)},
					{Config: cancel, Check: e.expectOnlyNightlyRan(sandbox.StatusCancelled)},
					{
						Query: true,
						Config: acctest.ListBlock("all", nil, nil) +
							acctest.ListBlock("by_name", nil, []string{fmt.Sprintf("name = %q", name)}),
						QueryResultChecks: append(all,
							querycheck.ExpectLength(acctest.ConnectorType+".by_name", 1),
							querycheck.ExpectIdentity(acctest.ConnectorType+".by_name", acctest.ConnectorIdentityCheck(exact.ID, e.WorkspaceID)),
						),
					},
				},
			})
		})
	}
}

// expectList checks that the list attribute attr of the resource at addr
// holds want, in order.
func expectList(addr, attr string, want []string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s is not in the state", addr)
		}
		got := make([]string, 0, len(want))
		for i := 0; ; i++ {
			v, ok := rs.Primary.Attributes[fmt.Sprintf("%s.%d", attr, i)]
			if !ok {
				break
			}
			got = append(got, v)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s.%s holds %d items, want %d in the service's order (first difference at %d)", addr, attr, len(got), len(want), firstDifference(got, want))
		}
		return nil
	}
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
