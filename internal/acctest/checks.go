package acctest

import (
	"context"
	"fmt"
	"maps"
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

// StoredToken checks the token the sandbox holds and how often one was sent.
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

// ExpectSequential checks that n executions ran one after another.
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

// NoLogVars unsets, for one command, the log levels of the test run's environment.
var NoLogVars = []string{"TF_LOG=", "TF_LOG_PROVIDER=", "TF_LOG_CORE=", "TF_LOG_PATH="}

// LogHasRequest tells whether a DEBUG "API request" line has every field.
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

// TimestampRE is the service's timestamp: ISO 8601 with milliseconds and Z.
var TimestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// ExpectRouteCount checks how many requests the sandbox served on a route.
func (e *Env) ExpectRouteCount(route string, want int64) resource.TestCheckFunc {
	return e.ExpectRouteCountIn(route, want, want)
}

// ExpectRouteCountIn is ExpectRouteCount within a range, for shared reads.
func (e *Env) ExpectRouteCountIn(route string, least, most int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := e.Sandbox.Stats().ByRoute[route]
		switch {
		case least == most && got != least:
			return fmt.Errorf("sandbox served %d requests on %q, want %d", got, route, least)
		case got < least || got > most:
			return fmt.Errorf("sandbox served %d requests on %q, want %d to %d", got, route, least, most)
		}
		return nil
	}
}

// ExpectNoRequests checks that the sandbox served no request.
func (e *Env) ExpectNoRequests(t *testing.T) {
	t.Helper()
	if e.Sandbox == nil {
		return
	}
	if st := e.Sandbox.Stats(); st.Requests != 0 {
		t.Errorf("the sandbox served %d requests (%v), want none", st.Requests, st.ByRoute)
	}
}

// ExpectStored checks the test's connector as the sandbox holds it, token included.
func (e *Env) ExpectStored(t *testing.T, check func(sandbox.ConnectorView) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if e.Sandbox == nil {
			t.Logf("not checked against the real service: what the sandbox holds for %s", ConnectorAddress)
			return nil
		}
		rs, ok := s.RootModule().Resources[ConnectorAddress]
		if !ok {
			return fmt.Errorf("%s is not in the state", ConnectorAddress)
		}
		v, ok := e.Sandbox.Connector(rs.Primary.Attributes["workspace_id"], rs.Primary.ID)
		if !ok {
			return fmt.Errorf("the sandbox holds no connector %s", rs.Primary.ID)
		}
		return check(v)
	}
}

// ConnectorsGone is a CheckDestroy: no connector of the state is left.
func (e *Env) ConnectorsGone(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		c := e.Client(t)
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "dataintegration_customer_service_connector" {
				continue
			}
			_, err := c.GetConnector(context.Background(), rs.Primary.Attributes["workspace_id"], rs.Primary.ID)
			if !client.IsNotFound(err) {
				return fmt.Errorf("connector %s: want 404 after destroy, got %w", rs.Primary.ID, err)
			}
		}
		return nil
	}
}

// ExpectMoved checks that *first left the test's workspace and *moved is in to.
func (e *Env) ExpectMoved(first, moved *string, to string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if _, ok := e.Sandbox.Connector(to, *moved); !ok {
			return fmt.Errorf("no connector %s in workspace %s", *moved, to)
		}
		if _, ok := e.Sandbox.Connector(e.WorkspaceID, *first); ok {
			return fmt.Errorf("connector %s is still in workspace %s", *first, e.WorkspaceID)
		}
		return nil
	}
}

// ExpectExecutions checks a job's executions, oldest first (status "" is not checked).
func (e *Env) ExpectExecutions(jobID string, want ...sandbox.Execution) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := e.Sandbox.Executions(e.WorkspaceID, jobID)
		if len(got) != len(want) {
			return fmt.Errorf("job %s has %d executions, want %d: %+v", jobID, len(got), len(want), got)
		}
		for i := range want {
			if got[i].ForceFullRefresh != want[i].ForceFullRefresh || (want[i].Status != "" && got[i].Status != want[i].Status) {
				return fmt.Errorf("execution %d of job %s is %+v, want status %q and force_full_refresh %v",
					i, jobID, got[i], want[i].Status, want[i].ForceFullRefresh)
			}
		}
		return nil
	}
}

// ErrorMatching is an ErrorCheck that accepts only Want free of Secrets.
type ErrorMatching struct {
	Want    *regexp.Regexp
	Secrets []string
	Seen    bool
}

func (c *ErrorMatching) Check(err error) error {
	msg := err.Error()
	for _, s := range c.Secrets {
		if strings.Contains(msg, s) {
			return fmt.Errorf("the error shows a secret: %s", msg)
		}
	}
	if !c.Want.MatchString(msg) {
		return fmt.Errorf("error does not match %s: %s", c.Want, msg)
	}
	c.Seen = true
	return nil
}

// Phrases matches ps in order, across the line breaks of long diagnostics.
func Phrases(ps ...string) *regexp.Regexp {
	parts := make([]string, len(ps))
	for i, p := range ps {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		parts[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(strings.Join(parts, `[\s\S]*`))
}

// StringsExact checks a list of strings, in order.
func StringsExact(ss ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(ss))
	for i, s := range ss {
		checks[i] = knownvalue.StringExact(s)
	}
	return knownvalue.ListExact(checks)
}

// ExpectStateMatchesService checks that the state holds the sandbox's
// connectors and a trigger of every job that ran, each once.
func ExpectStateMatchesService(t testing.TB, eng *Engine, dir string, e *Env, jobs []string) (connectors, triggered int) {
	t.Helper()
	inState := slices.Sorted(maps.Keys(eng.StateIDs(t, dir, "dataintegration_customer_service_connector")))
	if held := e.Sandbox.ConnectorIDs(e.WorkspaceID); !slices.Equal(inState, held) {
		t.Errorf("the state holds connectors %v, the service %v", inState, held)
	}
	triggeredInState := map[string]bool{}
	for _, job := range eng.StateIDs(t, dir, "dataintegration_job_trigger") {
		triggeredInState[job] = true
	}
	for _, job := range jobs {
		if got := len(e.Sandbox.Executions(e.WorkspaceID, job)); got > 1 || (got == 1 && !triggeredInState[job]) {
			t.Errorf("job %s: %d executions, and the state holds a trigger of it: %v", job, got, triggeredInState[job])
		}
	}
	return len(inState), len(triggeredInState)
}
