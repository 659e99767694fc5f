package acctest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
)

const (
	ConnectorAddress = "dataintegration_customer_service_connector.test"
	RouteConnectors  = "/developers/workspaces/{workspace_id}/connectors/"
)

// ConnectorArgs are a connector block's attributes as HCL expressions.
type ConnectorArgs map[string]string

// NewConnectorArgs is a valid connector of the given name, with a token.
func NewConnectorArgs(name string) ConnectorArgs {
	return ConnectorArgs{
		"name":        strconv.Quote(name),
		"url":         `"https://acme.example-helpdesk.com"`,
		"agent_email": `"agent@acme.com"`,
		"token":       `"platform-token-1"`,
	}
}

// With is a copy of a with each key set to the value after it; "" leaves it out.
func (a ConnectorArgs) With(kv ...string) ConnectorArgs {
	out := maps.Clone(a)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

func (a ConnectorArgs) HCL() string {
	var b strings.Builder
	b.WriteString("resource \"dataintegration_customer_service_connector\" \"test\" {\n")
	for _, k := range slices.Sorted(maps.Keys(a)) {
		fmt.Fprintf(&b, "  %s = %s\n", k, a[k])
	}
	b.WriteString("}\n")
	return b.String()
}

// Name is a connector name no other run uses, as the real service is shared.
func Name(what string) string {
	return "tfacc " + what + " " + sdkacctest.RandString(8)
}

const ConnectorType = "dataintegration_customer_service_connector"

// ListBlock is a list block of connectors for a .tfquery.hcl file.
func ListBlock(name string, args, config []string) string {
	inner := make([]string, len(config))
	for i, l := range config {
		inner[i] = "  " + l
	}
	return fmt.Sprintf("list %q %q {\n  provider = dataintegration\n%s  config {\n%s  }\n}\n",
		ConnectorType, name, indentLines(args), indentLines(inner))
}

// ImportBlock is an import block of a resource by its import ID.
func ImportBlock(to, id string) string {
	return fmt.Sprintf("import {\n  to = %s\n  id = %q\n}\n", to, id)
}

// IdentityImportBlock is an import block by identity, attrs in HCL.
func IdentityImportBlock(to string, attrs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "import {\n  to = %s\n  identity = {\n", to)
	for i := 0; i+1 < len(attrs); i += 2 {
		fmt.Fprintf(&b, "    %s = %s\n", attrs[i], attrs[i+1])
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// GeneratedTokenLine is the `token = null` line of -generate-config-out.
var GeneratedTokenLine = regexp.MustCompile(`(?m)^(\s*)token\s*=\s*null.*$`)

const (
	TriggerAddress = "dataintegration_job_trigger.test"
	RouteRunJob    = "POST /developers/workspaces/{workspace_id}/jobs/{_id}/run/"
	RouteCancelJob = "DELETE /developers/workspaces/{workspace_id}/jobs/{_id}/cancel/"
)

// TriggerHCL is a trigger block named name.
func TriggerHCL(name, jobID, body string) string {
	return fmt.Sprintf("resource \"dataintegration_job_trigger\" %q {\n  job_id = %q\n%s\n}\n", name, jobID, body)
}

const JobAddress = "data.dataintegration_job.test"

// TriggerByNameHCL is the trigger at TriggerAddress, by job name.
func TriggerByNameHCL(jobName, body string) string {
	return fmt.Sprintf("resource \"dataintegration_job_trigger\" \"test\" {\n  job_name = %q\n%s\n}\n", jobName, body)
}

// RunJobHCL is a run_job action and a terraform_data that runs it.
func RunJobHCL(name, input, body string) string {
	return fmt.Sprintf(`
action "dataintegration_run_job" %[1]q {
  config {
%[3]s
  }
}

resource "terraform_data" %[1]q {
  input = %[2]q

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.dataintegration_run_job.%[1]s]
    }
  }
}
`, name, input, body)
}

const JobsAddress = "data.dataintegration_jobs.test"

// ProviderConfig is a provider block with every setting given, so that the
// environment of whoever runs the tests plays no part.
func (e *Env) ProviderConfig(extra ...string) string {
	return fmt.Sprintf(`
provider "dataintegration" {
  base_url     = %q
  api_key      = %q
  workspace_id = %q
%s}
`, e.BaseURL, e.APIKey, e.WorkspaceID, indentLines(extra))
}

// ProviderWithWorkspace is ProviderConfig with the given workspace.
func (e *Env) ProviderWithWorkspace(ws string) string {
	return ProviderBlock(e.BaseURL, e.APIKey, ws)
}

// ProviderWithoutWorkspace is ProviderConfig without workspace_id.
func (e *Env) ProviderWithoutWorkspace() string {
	return ProviderBlock(e.BaseURL, e.APIKey, "")
}

// ProviderWithKey is ProviderConfig with the given API key.
func (e *Env) ProviderWithKey(apiKey string) string {
	return ProviderBlock(e.BaseURL, apiKey, e.WorkspaceID)
}

// ProviderBlock is a provider block; workspace_id is left out when ws is "".
func ProviderBlock(baseURL, apiKey, ws string) string {
	b := fmt.Sprintf("provider \"dataintegration\" {\n  base_url     = %q\n  api_key      = %q\n", baseURL, apiKey)
	if ws != "" {
		b += fmt.Sprintf("  workspace_id = %q\n", ws)
	}
	return b + "}\n"
}

func indentLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

const RouteListJobs = "GET /developers/workspaces/{workspace_id}/jobs/"

// FleetHCL is n connectors, a trigger of each job in TF_VAR_jobs and, with
// listJobs, a jobs data source.
func FleetHCL(n int, providerExtra string, listJobs bool) string {
	hcl := fmt.Sprintf(`
provider "dataintegration" {
  %s
}

variable "jobs" {
  type    = list(string)
  default = []
}
`, providerExtra) + FleetConnectorsHCL(n) + `
resource "dataintegration_job_trigger" "t" {
  count  = length(var.jobs)
  job_id = var.jobs[count.index]
}
`
	if listJobs {
		// The output counts the seeded jobs, which the apply does not change.
		hcl += `
data "dataintegration_jobs" "all" {}

output "seeded_jobs_listed" {
  value = length([for j in data.dataintegration_jobs.all.jobs : j if !startswith(j.data_source, "fleet ")])
}
`
	}
	return hcl
}

// FleetConnectorsHCL is FleetHCL's connectors alone, for the bench's yardstick.
func FleetConnectorsHCL(n int) string {
	return fmt.Sprintf(`
resource "dataintegration_customer_service_connector" "c" {
  count       = %d
  name        = "fleet ${count.index}"
  url         = "https://acme.example.com"
  agent_email = "agent@acme.com"
  token       = "fleet-token-${count.index}"
  streams     = ["tickets"]
}
`, n)
}
