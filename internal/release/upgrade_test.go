package release

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// upgradeBaselines is the file that lists the provider versions a state may
// come from: every release, and the commits before the first.
const upgradeBaselines = "testdata/upgrade-baselines.txt"

// upgradeCase is one resource or data source that a baseline applies.
type upgradeCase struct {
	name string
	// hcl is the case's configuration; with rewritten, written another way
	// that means the same (another letter case, order or form), which must
	// plan nothing either once upgraded.
	hcl func(u upgradeJobs, rewritten bool) string
	// needs is the engine capability the case needs, if any.
	needs *acctest.Capability
}

// upgradeJobs are the jobs the triggers and lookups of the cases name.
type upgradeJobs struct {
	byID, byName, name string
	// withTokenWO says that the configuration holds connector_token_wo.
	withTokenWO bool
}

// upgradeCases covers each resource, in each way of configuring it that
// keeps something different in the state, and each data source.
var upgradeCases = []upgradeCase{
	{name: "connector_token", hcl: func(_ upgradeJobs, rewritten bool) string {
		streams := `["tickets", "chats"]`
		if rewritten {
			streams = `["chats", "tickets"]`
		}
		return `resource "dataintegration_customer_service_connector" "token" {
  name        = "upgrade with token"
  url         = "https://acme.example-helpdesk.com"
  agent_email = "agent@acme.com"
  token       = var.connector_token
  streams     = ` + streams + `
}

variable "connector_token" {
  type      = string
  sensitive = true
}
`
	}},
	{name: "connector_token_wo", needs: &acctest.CapWriteOnly, hcl: func(upgradeJobs, bool) string {
		return `resource "dataintegration_customer_service_connector" "token_wo" {
  name             = "upgrade with token_wo"
  url              = "https://acme.example-helpdesk.com"
  agent_email      = "agent@acme.com"
  token_wo         = var.connector_token_wo
  token_wo_version = 1
}

variable "connector_token_wo" {
  type      = string
  sensitive = true
  ephemeral = true
}
`
	}},
	{name: "trigger_job_id", hcl: func(u upgradeJobs, rewritten bool) string {
		if rewritten {
			return fmt.Sprintf(`resource "dataintegration_job_trigger" "job_id" {
  job_id             = %q
  force_full_refresh = true
  triggers           = {}
  timeouts {
    create = "120s"
  }
}
`, strings.ToUpper(u.byID))
		}
		return fmt.Sprintf(`resource "dataintegration_job_trigger" "job_id" {
  job_id             = %q
  force_full_refresh = true
  timeouts {
    create = "2m"
  }
}
`, u.byID)
	}},
	{name: "trigger_job_name", hcl: func(u upgradeJobs, _ bool) string {
		return fmt.Sprintf(`resource "dataintegration_job_trigger" "job_name" {
  job_name          = %q
  triggers          = { commit = "abc123" }
  cancel_on_destroy = true
}
`, u.name)
	}},
	{name: "data_jobs", hcl: func(u upgradeJobs, _ bool) string {
		// After the connectors, whose jobs it counts: the count is then the
		// same at the apply and at the plan after it.
		after := "dataintegration_customer_service_connector.token"
		if u.withTokenWO {
			after += ", dataintegration_customer_service_connector.token_wo"
		}
		return `data "dataintegration_jobs" "active" {
  is_active  = true
  depends_on = [` + after + `]
}

output "active_jobs" {
  value = length(data.dataintegration_jobs.active.jobs)
}
`
	}},
	{name: "data_job", hcl: func(u upgradeJobs, rewritten bool) string {
		id := u.byID
		if rewritten {
			id = strings.ToUpper(id)
		}
		return fmt.Sprintf(`data "dataintegration_job" "by_id" {
  id = %q
}

data "dataintegration_job" "by_name" {
  name = %q
}

output "job_names" {
  value = [data.dataintegration_job.by_id.name, data.dataintegration_job.by_name.id]
}
`, id, u.name)
	}},
	{name: "data_connector", hcl: func(upgradeJobs, bool) string {
		return `data "dataintegration_customer_service_connector" "by_name" {
  name = dataintegration_customer_service_connector.token.name
}

output "connector_streams" {
  value = data.dataintegration_customer_service_connector.by_name.streams
}
`
	}},
}

type baseline struct {
	rev      string
	release  string   // the version it released, if any
	predates []string // cases it cannot write
}

func readBaselines(t *testing.T) []baseline {
	t.Helper()
	var out []baseline
	for _, l := range acctest.ReadLines(t, upgradeBaselines) {
		b := baseline{rev: l.Fields[0], predates: l.Fields[1:]}
		if len(b.predates) > 0 && b.predates[0] == "release" {
			if len(b.predates) < 2 {
				t.Fatalf("%s:%d: `release` names no version", upgradeBaselines, l.N)
			}
			b.release, b.predates = b.predates[1], b.predates[2:]
		}
		for _, c := range b.predates {
			if !slices.ContainsFunc(upgradeCases, func(u upgradeCase) bool { return u.name == c }) {
				t.Fatalf("%s:%d: %s predates %q, which is no case of the upgrade test", upgradeBaselines, l.N, b.rev, c)
			}
		}
		out = append(out, b)
	}
	return out
}

// releasedVersions are the versions of CHANGELOG.md's dated headings.
func releasedVersions(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^## \[([0-9][^\]]*)\] - [0-9]`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestBaselines_everyReleaseListed: each version CHANGELOG.md releases has a
// line in the upgrade baselines, at the commit the bench's baselines name
// for it, and that commit is in this clone's history: a release that users
// hold state of is always upgraded from.
func TestBaselines_everyReleaseListed(t *testing.T) {
	t.Parallel()
	released := releasedVersions(t)
	if len(released) == 0 {
		t.Fatal("CHANGELOG.md releases no version: its headings are not read")
	}
	listed := map[string]string{}
	for _, b := range readBaselines(t) {
		if b.release != "" {
			listed[b.release] = b.rev
		}
	}
	bench := map[string]string{}
	for _, l := range acctest.ReadLines(t, "../bench/testdata/baselines.txt") {
		if len(l.Fields) > 1 {
			bench[l.Fields[0]] = l.Fields[1]
		}
	}
	for _, v := range released {
		rev, ok := listed[v]
		if !ok {
			t.Errorf("%s has no line for release %s: add `<the commit that released it>  release %s`", upgradeBaselines, v, v)
			continue
		}
		if want, ok := bench[v]; !ok || want != rev {
			t.Errorf("release %s is %s in %s, but %q in the bench's baselines", v, rev, upgradeBaselines, want)
		}
		if out, err := exec.Command("git", "-C", "../..", "cat-file", "-e", rev+"^{commit}").CombinedOutput(); err != nil {
			t.Errorf("release %s: %s is not a commit of this clone (%v: %s)", v, rev, err, out)
		}
	}
}

// TestAccUpgrade_fromBaselines: for each baseline, a state of every resource and data
// source written by the provider built there plans empty with the tree's provider (with
// and without a refresh, and written another way that means the same), sending no write
// request and running no job.
func TestAccUpgrade_fromBaselines(t *testing.T) {
	t.Parallel()
	current := acctest.NewEngine(t)
	for _, b := range readBaselines(t) {
		t.Run(b.rev, func(t *testing.T) {
			e := acctest.NewEnv(t, sandbox.Config{Jobs: 6})
			e.RequireSandbox(t, "count the requests and the executions of the plan after the upgrade")
			active, _ := acctest.ActiveJobs(t, e, 2)
			jobs := upgradeJobs{byID: active[0], byName: active[1]}
			for _, j := range e.Sandbox.Jobs(e.WorkspaceID) {
				if j.ID == jobs.byName {
					jobs.name = j.Name
				}
			}
			var cases []upgradeCase
			var written []string
			for _, c := range upgradeCases {
				switch {
				case slices.Contains(b.predates, c.name):
					t.Logf("%s: %s predates it", c.name, b.rev)
				case c.needs != nil && !current.Info.Has(*c.needs):
					t.Logf("%s: %s has no %s (%s)", c.name, current.Info, c.needs.Name, c.needs.Where())
				default:
					cases = append(cases, c)
					written = append(written, c.name)
				}
			}
			jobs.withTokenWO = slices.Contains(written, "connector_token_wo")
			var hcl, rewritten strings.Builder
			for _, c := range cases {
				hcl.WriteString(c.hcl(jobs, false) + "\n")
				rewritten.WriteString(c.hcl(jobs, true) + "\n")
			}
			dir := acctest.ConfigDir(t, hcl.String())
			// The tokens come from variables: the earliest baselines print
			// the line of a literal token in a warning.
			env := e.ServiceEnv("TF_VAR_connector_token=platform-token-1", "TF_VAR_connector_token_wo=wo-token-1")
			// A baseline missing from the clone's history fails the test:
			// it is listed in upgradeBaselines to be tested.
			old := acctest.EngineWithCLIConfig(t, acctest.DevOverrides(acctest.ProviderAt(t, b.rev)))
			old.Run(t, dir, env, "apply", "-input=false", "-no-color", "-auto-approve")

			before, executions := e.Sandbox.Stats(), e.Executions(t)
			for _, refresh := range []string{"-refresh=true", "-refresh=false"} {
				out, err := current.Try(dir, env, "plan", "-input=false", "-no-color", "-detailed-exitcode", refresh)
				if err != nil {
					t.Errorf("after an upgrade from %s, `plan %s` of %v is not empty:\n%v", b.rev, refresh, written, err)
				} else {
					t.Logf("after an upgrade from %s, plan %s of %v:\n%s", b.rev, refresh, written, out)
				}
			}
			// The same configuration written another way plans nothing
			// either: the upgraded state holds what a new one would.
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(rewritten.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := current.Try(dir, env, "plan", "-input=false", "-no-color", "-detailed-exitcode"); err != nil {
				t.Errorf("after an upgrade from %s, the configuration written another way (upper-case IDs, streams in another order, triggers = {}, 120s for 2m) plans:\n%v", b.rev, err)
			} else {
				t.Logf("the configuration written another way:\n%s", out)
			}
			after := e.Sandbox.Stats()
			for route, n := range after.ByRoute {
				if !strings.HasPrefix(route, "GET ") && n != before.ByRoute[route] {
					t.Errorf("the plan after the upgrade from %s sent %d requests %s", b.rev, n-before.ByRoute[route], route)
				}
			}
			if now := e.Executions(t); now != executions {
				t.Errorf("the plan after the upgrade from %s ran %d executions", b.rev, now-executions)
			}
			current.Run(t, dir, env, "destroy", "-input=false", "-no-color", "-auto-approve")
		})
	}
}
