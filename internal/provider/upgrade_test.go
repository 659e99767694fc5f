package provider

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

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
	needs *capability
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
	{name: "connector_token_wo", needs: &capWriteOnly, hcl: func(upgradeJobs, bool) string {
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

// baseline is a line of the baselines file.
type baseline struct {
	rev      string
	predates []string // cases it cannot write
}

func readBaselines(t *testing.T) []baseline {
	t.Helper()
	f, err := os.Open(upgradeBaselines)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []baseline
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, c := range fields[1:] {
			if !slices.ContainsFunc(upgradeCases, func(u upgradeCase) bool { return u.name == c }) {
				t.Fatalf("%s: %s predates %q, which is no case of the upgrade test", upgradeBaselines, fields[0], c)
			}
		}
		out = append(out, baseline{rev: fields[0], predates: fields[1:]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s lists no baseline", upgradeBaselines)
	}
	return out
}

// TestAccUpgrade_fromBaselines: for each baseline, a state written by the
// provider built there, of every resource and data source, is planned by the
// provider built from the tree: the plan is empty (exit code 0 under
// -detailed-exitcode, with and without a refresh, and with the configuration
// written another way that means the same), and it sends no write request
// and runs no job.
func TestAccUpgrade_fromBaselines(t *testing.T) {
	current := newEngine(t)
	for _, b := range readBaselines(t) {
		t.Run(b.rev, func(t *testing.T) {
			e := newTestEnv(t, sandbox.Config{Jobs: 6})
			e.requireSandbox(t, "count the requests and the executions of the plan after the upgrade")
			active, _ := activeJobs(t, e, 2)
			jobs := upgradeJobs{byID: active[0], byName: active[1]}
			for _, j := range e.sandbox.Jobs(e.workspaceID) {
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
				case c.needs != nil && !current.info.has(*c.needs):
					t.Logf("%s: %s has no %s (%s)", c.name, current.info, c.needs.name, c.needs.where())
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
			dir := configDir(t, hcl.String())
			// The tokens come from variables: a provider before issue 24
			// printed the line of a literal token in a warning.
			env := e.serviceEnv("TF_VAR_connector_token=platform-token-1", "TF_VAR_connector_token_wo=wo-token-1")
			// A baseline missing from the clone's history fails the test:
			// it is listed in upgradeBaselines to be tested.
			old := engineWithCLIConfig(t, devOverrides(providerAt(t, b.rev)))
			old.run(t, dir, env, "apply", "-input=false", "-no-color", "-auto-approve")

			before, executions := e.sandbox.Stats(), e.executions(t)
			for _, refresh := range []string{"-refresh=true", "-refresh=false"} {
				out, err := current.try(dir, env, "plan", "-input=false", "-no-color", "-detailed-exitcode", refresh)
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
			if out, err := current.try(dir, env, "plan", "-input=false", "-no-color", "-detailed-exitcode"); err != nil {
				t.Errorf("after an upgrade from %s, the configuration written another way (upper-case IDs, streams in another order, triggers = {}, 120s for 2m) plans:\n%v", b.rev, err)
			} else {
				t.Logf("the configuration written another way:\n%s", out)
			}
			after := e.sandbox.Stats()
			for route, n := range after.ByRoute {
				if !strings.HasPrefix(route, "GET ") && n != before.ByRoute[route] {
					t.Errorf("the plan after the upgrade from %s sent %d requests %s", b.rev, n-before.ByRoute[route], route)
				}
			}
			if now := e.executions(t); now != executions {
				t.Errorf("the plan after the upgrade from %s ran %d executions", b.rev, now-executions)
			}
			current.run(t, dir, env, "destroy", "-input=false", "-no-color", "-auto-approve")
		})
	}
}

// executions counts the executions of every job of the test's workspace.
func (e *testEnv) executions(t *testing.T) int {
	t.Helper()
	n := 0
	for _, j := range e.sandbox.Jobs(e.workspaceID) {
		n += len(e.sandbox.Executions(e.workspaceID, j.ID))
	}
	return n
}

// TestJobTriggerStateUpgrade: a trigger's state of schema version 0, as
// Terraform hands it over, is read with if_running as that version behaved
// ("fail") where it has none, keeps the one it has, and keeps every other
// attribute; job_name, which states before it lack, is null.
func TestJobTriggerStateUpgrade(t *testing.T) {
	p := serveProto(t)
	const typ = "dataintegration_job_trigger"
	const before = `"id":"7d0c5a44-3b7e-4c7a-9d8e-2f6b1a0c9e11","workspace_id":"11111111-1111-4111-8111-111111111111",` +
		`"job_id":"3F94703E-61D2-5F9C-A8A9-B88DB4DFA78E","force_full_refresh":true,"triggers":{"commit":"abc"},` +
		`"cancel_on_destroy":false,"triggered_at":"2026-11-21T07:00:00Z","timeouts":{"create":"2m","delete":null}`
	cases := []struct {
		name, state, ifRunning, jobName string
	}{
		{"before job_name and if_running (1addb2e)", `{` + before + `}`, "fail", ""},
		{"no triggers (1addb2e)", `{` + strings.Replace(before, `{"commit":"abc"}`, "null", 1) + `}`, "fail", ""},
		{"before if_running (a0b1d65)", `{` + before + `,"job_name":null}`, "fail", ""},
		{"if_running null", `{` + before + `,"job_name":"Nightly","if_running":null}`, "fail", "Nightly"},
		{"if_running wait", `{` + before + `,"job_name":null,"if_running":"wait"}`, "wait", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := p.srv.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
				TypeName: typ, Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(c.state)},
			})
			if err != nil {
				t.Fatal(err)
			}
			failOnProto(t, resp.Diagnostics)
			v, err := resp.UpgradedState.Unmarshal(p.schemas.ResourceSchemas[typ].ValueType())
			if err != nil {
				t.Fatal(err)
			}
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				t.Fatal(err)
			}
			str := func(name string) string {
				var s *string
				if err := attrs[name].As(&s); err != nil {
					t.Fatal(err)
				}
				if s == nil {
					return ""
				}
				return *s
			}
			if got := str("if_running"); got != c.ifRunning {
				t.Errorf("if_running = %q, want %q", got, c.ifRunning)
			}
			if got := str("job_name"); got != c.jobName {
				t.Errorf("job_name = %q, want %q", got, c.jobName)
			}
			if got := str("job_id"); got != "3F94703E-61D2-5F9C-A8A9-B88DB4DFA78E" {
				t.Errorf("job_id = %q, not kept as written", got)
			}
			var triggers map[string]tftypes.Value
			want := 1
			if strings.Contains(c.state, `"triggers":null`) {
				want = 0 // and known: the empty map written since
			}
			if err := attrs["triggers"].As(&triggers); err != nil || attrs["triggers"].IsNull() || len(triggers) != want {
				t.Errorf("triggers = %v (%v), want %d elements", attrs["triggers"], err, want)
			}
		})
	}
	if v := p.schemas.ResourceSchemas[typ].Version; v != 1 {
		t.Errorf("the trigger's schema version is %d: a new version needs an upgrader from the one before (UpgradeState)", v)
	}
}
