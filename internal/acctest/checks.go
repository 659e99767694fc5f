package acctest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// StoredToken checks the token the sandbox holds and how many times one was
// sent.
func StoredToken(token string, writes int) func(sandbox.ConnectorView) error {
	return func(v sandbox.ConnectorView) error {
		if v.Token != token || v.TokenWrites != writes {
			return fmt.Errorf("the sandbox holds token %q written %d times, want %q written %d times", v.Token, v.TokenWrites, token, writes)
		}
		return nil
	}
}

// CaptureID stores the ID of the test's connector.
func CaptureID(id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[ConnectorAddress]
		if !ok {
			return fmt.Errorf("%s is not in the state", ConnectorAddress)
		}
		*id = rs.Primary.ID
		return nil
	}
}

// ConnectorIdentityCheck is the identity of connector id in workspace ws.
func ConnectorIdentityCheck(id, ws string) map[string]knownvalue.Check {
	return map[string]knownvalue.Check{"id": knownvalue.StringExact(id), "workspace_id": knownvalue.StringExact(ws)}
}

// SameIDs tells whether two lists hold the same IDs, in any order.
func SameIDs(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

var (
	UUIDRE    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	RFC3339RE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)
)

// ExpectSequential checks that a job has n executions, each started after
// the one before had ended.
func ExpectSequential(t *testing.T, ex []sandbox.Execution, n int) {
	t.Helper()
	if len(ex) != n {
		t.Fatalf("executions %+v, want %d", ex, n)
	}
	for i := 1; i < n; i++ {
		if ex[i-1].EndedAt == nil || ex[i].CreatedAt.Before(*ex[i-1].EndedAt) {
			t.Errorf("execution %d started at %v, before execution %d ended (%v)", i, ex[i].CreatedAt, i-1, ex[i-1].EndedAt)
		}
	}
}

// JobIDs are the IDs of jobs, in their order.
func JobIDs(jobs []client.Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// ExpectIDs checks the ids attribute of the test's jobs data source.
func ExpectIDs(ids []string) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(JobsAddress, tfjsonpath.New("ids"), StringsExact(ids...))
}

// NoLogVars unsets, for one command, whatever log levels the environment of
// the test run sets.
var NoLogVars = []string{"TF_LOG=", "TF_LOG_PROVIDER=", "TF_LOG_CORE=", "TF_LOG_PATH="}

// LogHasRequest tells whether one of the provider's DEBUG "API request"
// lines has every field, in any order.
func LogHasRequest(log string, fields []string) bool {
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, "[DEBUG] provider.terraform-provider-dataintegration: API request:") {
			continue
		}
		all := true
		for _, f := range fields {
			all = all && regexp.MustCompile(`(^| )`+f).MatchString(line)
		}
		if all {
			return true
		}
	}
	return false
}

// TimestampRE is the service's timestamp format: ISO 8601 with milliseconds
// and Z.
var TimestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
