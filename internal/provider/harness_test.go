package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// testAccProtoV6ProviderFactories serves the provider in-process to the
// Terraform CLI that the acceptance tests drive.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"dataintegration": NewServer("test"),
}

// faultsRunEachOnce applies config while the sandbox refuses 30% of
// requests with 429 or 503 (faults seeded with seed), and checks that
// triggers were retried and that each of jobs ran exactly once.
func faultsRunEachOnce(t *testing.T, e *acctest.Env, config string, jobs []string, seed uint64) {
	t.Helper()
	var checks []resource.TestCheckFunc
	for _, id := range jobs {
		checks = append(checks, e.ExpectExecutions(id, sandbox.Execution{}))
	}
	checks = append(checks, func(*terraform.State) error {
		st := e.Sandbox.Stats()
		if st.Faults == 0 {
			return fmt.Errorf("no fault was injected: %+v", st)
		}
		if got := st.ByRoute[acctest.RouteRunJob]; got <= int64(len(jobs)) {
			return fmt.Errorf("%d trigger requests for %d jobs: no trigger was retried", got, len(jobs))
		}
		t.Logf("%d faults injected, %d trigger requests for %d jobs", st.Faults, st.ByRoute[acctest.RouteRunJob], len(jobs))
		return nil
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				if err := e.Sandbox.SetFaults(sandbox.Faults{Rate: 0.3, Statuses: []int{429, 503}, Seed: seed}); err != nil {
					t.Fatal(err)
				}
			},
			Config: config,
			Check:  resource.ComposeAggregateTestCheckFunc(checks...),
		}},
	})
	for _, id := range jobs {
		if n := len(e.Sandbox.Executions(e.WorkspaceID, id)); n != 1 {
			t.Errorf("after the whole test, job %s has %d executions, want 1", id, n)
		}
	}
}

func TestMain(m *testing.M) { acctest.Main(m) }

// serveProto serves this package's provider over protocol 6, in-process,
// not configured yet.
func serveProto(tb testing.TB) *acctest.ProtoProvider {
	tb.Helper()
	return acctest.ServeProto(tb, NewServer("test"))
}

// newProtoProvider serves this package's provider over protocol 6,
// in-process, configured with settings.
func newProtoProvider(tb testing.TB, settings map[string]string) *acctest.ProtoProvider {
	tb.Helper()
	return acctest.NewProtoProvider(tb, NewServer("test"), settings)
}
