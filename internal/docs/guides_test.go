package docs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// TestAccGuide_gettingStarted follows "Getting started with the sandbox" on examples/demo:
// apply, one full-refresh execution, an empty plan; step 7: a new token plans no change to
// the trigger, a new stream replaces it and runs the job again, a connector created anew
// has its new job run; destroy cancels the execution.
func TestAccGuide_gettingStarted(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{})
	e.RequireSandbox(t, "see the executions the guide's trigger starts")
	dir := workdir(t, "demo")
	vars := e.ServiceEnv()
	const (
		connector = "dataintegration_customer_service_connector.support"
		trigger   = "dataintegration_job_trigger.support_sync"
	)

	eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false")
	outs := eng.Outputs(t, dir)
	job := acctest.Unquote(t, outs["triggered_job_id"])
	if ex := e.Sandbox.Executions(e.WorkspaceID, job); len(ex) != 1 || !ex[0].ForceFullRefresh {
		t.Fatalf("job %s: executions %+v, want one full refresh", job, ex)
	}
	eng.ExpectConverged(t, dir, vars)
	runs := func() int { return len(e.Sandbox.Executions(e.WorkspaceID, job)) }

	rotated := e.ServiceEnv("TF_VAR_platform_token=" + acctest.Name("rotated token"))
	actions, _ := eng.Plan(t, dir, rotated)
	acctest.ExpectActions(t, actions, connector, "update")
	acctest.ExpectActions(t, actions, trigger, "no-op")
	eng.Run(t, dir, rotated, "apply", "-auto-approve", "-input=false", "tfplan")
	if runs() != 1 {
		t.Errorf("a new token ran the job again: %d executions, want 1", runs())
	}
	eng.ExpectConverged(t, dir, rotated)

	main := filepath.Join(dir, "main.tf")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	const streams = `streams     = ["tickets", "ticket_interactions", "chats"]`
	if !strings.Contains(string(b), streams) {
		t.Fatalf("examples/demo/main.tf no longer has %s: update this test with the guide", streams)
	}
	more := strings.Replace(string(b), streams, `streams     = ["tickets", "ticket_interactions", "chats", "contacts"]`, 1)
	if err := os.WriteFile(main, []byte(more), 0o600); err != nil {
		t.Fatal(err)
	}
	actions, _ = eng.Plan(t, dir, rotated)
	acctest.ExpectActions(t, actions, connector, "update")
	acctest.ExpectActions(t, actions, trigger, "delete", "create")
	eng.Run(t, dir, rotated, "apply", "-auto-approve", "-input=false", "tfplan")
	if runs() != 2 {
		t.Errorf("a new stream did not run the job again: %d executions, want 2", runs())
	}
	eng.ExpectConverged(t, dir, rotated)

	// A connector created anew has a new job, which the trigger and the data source follow.
	eng.Run(t, dir, rotated, "apply", "-auto-approve", "-input=false", "-replace="+connector)
	newJob := acctest.Unquote(t, eng.Outputs(t, dir)["triggered_job_id"])
	if newJob == job || len(e.Sandbox.Executions(e.WorkspaceID, newJob)) != 1 {
		t.Errorf("after the connector was replaced the trigger ran job %s (%d executions), want its new job once", newJob, len(e.Sandbox.Executions(e.WorkspaceID, newJob)))
	}
	eng.ExpectConverged(t, dir, rotated)

	// The replaced trigger has cancelled once already (cancel_on_destroy).
	cancels := e.Sandbox.Stats().ByRoute[acctest.RouteCancelJob]
	eng.Run(t, dir, rotated, "destroy", "-auto-approve", "-input=false")
	if _, ok := e.Sandbox.Connector(e.WorkspaceID, acctest.Unquote(t, outs["connector_id"])); ok {
		t.Error("the connector is still there after destroy")
	}
	if got := e.Sandbox.Stats().ByRoute[acctest.RouteCancelJob] - cancels; got != 1 {
		t.Errorf("destroy with cancel_on_destroy sent %d cancel requests, want 1", got)
	}
}

// TestAccGuide_connectorsAsCode follows "Managing connectors as code": two connectors from
// a map, tokens from a sensitive variable, then imported into a fresh state.
func TestAccGuide_connectorsAsCode(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{})
	e.RequireSandbox(t, "see the tokens the connectors hold")
	dir := workdir(t, "guides/connectors-as-code")
	tokens := map[string]string{"Support EU": "eu-" + acctest.Name("token"), "Support US": "us-" + acctest.Name("token")}
	tokensJSON, err := json.Marshal(tokens)
	if err != nil {
		t.Fatal(err)
	}
	vars := e.ServiceEnv("TF_VAR_platform_tokens=" + string(tokensJSON))

	out := eng.Run(t, dir, vars, "apply", "-auto-approve", "-input=false", "-no-color")
	for _, tok := range tokens {
		if strings.Contains(out, tok) {
			t.Errorf("apply printed a token")
		}
	}
	var ids map[string]string
	if err := json.Unmarshal(eng.Outputs(t, dir)["connector_ids"], &ids); err != nil {
		t.Fatal(err)
	}
	for name, tok := range tokens {
		v, ok := e.Sandbox.Connector(e.WorkspaceID, ids[name])
		if !ok || v.Name != name || v.Token != tok {
			t.Errorf("connector %q: the sandbox holds %+v (found: %v), want its token from the variable", name, v.Name, ok)
		}
	}
	if v, _ := e.Sandbox.Connector(e.WorkspaceID, ids["Support US"]); len(v.Streams) != len(validate.CustomerServiceStreams) {
		t.Errorf("Support US loads %v, want every stream when streams is left out", v.Streams)
	}
	eng.ExpectConverged(t, dir, vars)

	// The guide's import blocks adopt the same connectors into a new state.
	adopt := workdir(t, "guides/connectors-as-code")
	var blocks strings.Builder
	for name, id := range ids {
		fmt.Fprintf(&blocks, "import {\n  to = dataintegration_customer_service_connector.desk[%q]\n  id = %q\n}\n", name, id)
	}
	if err := os.WriteFile(filepath.Join(adopt, "imports.tf"), []byte(blocks.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	before := e.Sandbox.Stats().ByRoute["PATCH "+acctest.RouteConnectors+"{_id}/"]
	eng.Run(t, adopt, vars, "apply", "-auto-approve", "-input=false")
	if got := e.Sandbox.Stats().ByRoute["PATCH "+acctest.RouteConnectors+"{_id}/"] - before; got != 2 {
		t.Errorf("the apply after import sent %d updates, want 2: one per connector, sending the token once", got)
	}
	eng.ExpectConverged(t, adopt, vars)
	eng.Run(t, adopt, vars, "destroy", "-auto-approve", "-input=false")
	left, err := e.Client(t).ListConnectors(context.Background(), e.WorkspaceID, client.ConnectorFilter{})
	if err != nil || len(left) != 0 {
		t.Errorf("after destroy, connectors %v (%v), want none", left, err)
	}
}

// TestAccGuide_writeOnlyToken: the token never reaches the state, and a new one is sent
// when its version changes ("Managing connectors as code").
func TestAccGuide_writeOnlyToken(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t, acctest.CapWriteOnly)
	e := acctest.NewEnv(t, sandbox.Config{})
	e.RequireSandbox(t, "see the token the connector holds")
	dir := workdir(t, "guides/connectors-write-only")
	first, second := acctest.Name("first token"), acctest.Name("second token")

	eng.Run(t, dir, e.ServiceEnv("TF_VAR_platform_token="+first), "apply", "-auto-approve", "-input=false")
	state := eng.Run(t, dir, nil, "show", "-json")
	if strings.Contains(state, first) {
		t.Error("the state holds the write-only token")
	}
	id := acctest.StateResourceID(t, state, "dataintegration_customer_service_connector.support")
	if v, _ := e.Sandbox.Connector(e.WorkspaceID, id); v.Token != first {
		t.Error("the sandbox does not hold the first token")
	}
	eng.ExpectConverged(t, dir, e.ServiceEnv("TF_VAR_platform_token="+second))
	eng.Run(t, dir, e.ServiceEnv("TF_VAR_platform_token="+second), "apply", "-auto-approve", "-input=false", "-var", "platform_token_version=2")
	if v, _ := e.Sandbox.Connector(e.WorkspaceID, id); v.Token != second {
		t.Error("a new token_wo_version did not send the new token")
	}
	eng.Run(t, dir, e.ServiceEnv("TF_VAR_platform_token="+second), "destroy", "-auto-approve", "-input=false", "-var", "platform_token_version=2")
}

// TestAccGuide_jobsFromCI follows "Running jobs from CI": a new commit runs the job
// again, the same commit does nothing.
func TestAccGuide_jobsFromCI(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 4, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	job := e.JobsOneByOne(t, client.JobFilter{})[0] // the first generated job is active
	dir := workdir(t, "guides/jobs-from-ci")
	run := func(commit string, fullRefresh bool) {
		t.Helper()
		eng.Run(t, dir, e.ServiceEnv(), "apply", "-input=false", "-auto-approve",
			"-var", "job_name="+*job.Name, "-var", "commit="+commit, "-var", fmt.Sprintf("full_refresh=%t", fullRefresh))
	}
	run("a1b2c3", false)
	before := e.Sandbox.Stats().Requests
	run("a1b2c3", false)
	if n := e.Sandbox.Stats().Requests - before; n != 0 {
		t.Errorf("the rerun of the same commit sent %d requests, want none", n)
	}
	time.Sleep(10 * time.Millisecond) // the first execution ends
	run("d4e5f6", true)
	ex := e.Sandbox.Executions(e.WorkspaceID, job.ID)
	if len(ex) != 2 || ex[0].ForceFullRefresh || !ex[1].ForceFullRefresh {
		t.Fatalf("executions %+v, want two: one per commit, the second a full refresh", ex)
	}
	if got := acctest.Unquote(t, eng.Outputs(t, dir)["job_id"]); got != job.ID {
		t.Errorf("output job_id = %s, want %s", got, job.ID)
	}
	eng.Run(t, dir, e.ServiceEnv(), "destroy", "-auto-approve", "-input=false",
		"-var", "job_name="+*job.Name, "-var", "commit=d4e5f6")
	if n := len(e.Sandbox.Executions(e.WorkspaceID, job.ID)); n != 2 {
		t.Errorf("destroy started or removed executions: %d, want 2", n)
	}
}

// adoptTokenEdit, of "Adopting existing connectors", turns each `token = null` of the
// generated configuration into `token_wo` from the variable and `token_wo_version` 1.
const adoptTokenEdit = `sed -i -E \
  -e '/^ *token *= null/d' \
  -e 's/^( *)token_wo( *)= null.*$/\1token_wo\2= var.platform_token/' \
  -e 's/^( *)token_wo_version( *)= null$/\1token_wo_version\2= 1/' \
  generated.tf`

// TestAccGuide_adoptingConnectors follows "Adopting existing connectors": three connectors
// made with curl are listed by `terraform query`, their configuration generated and given
// the token; the plan imports and updates each once, the next plan is empty.
func TestAccGuide_adoptingConnectors(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t, acctest.CapListResources)
	e := acctest.NewEnv(t, sandbox.Config{})
	e.RequireSandbox(t, "have a workspace of the test's own: the guide adopts every connector in it")
	expectGuideSays(t, "adopting-existing-connectors", adoptTokenEdit)
	dir := workdir(t, "guides/adopting-connectors")
	token := acctest.Name("token")
	vars := e.ServiceEnv("TF_VAR_platform_token=" + token)
	runScript(t, dir, vars, "./make-connectors.sh")
	made, err := e.Client(t).ListConnectors(context.Background(), e.WorkspaceID, client.ConnectorFilter{})
	if err != nil || len(made) != 3 {
		t.Fatalf("make-connectors.sh made %+v (%v), want three connectors", made, err)
	}
	var ids []string
	listed := eng.Run(t, dir, vars, "query", "-no-color")
	for _, c := range made {
		ids = append(ids, c.ID)
		if !strings.Contains(listed, c.ID) || !strings.Contains(listed, c.Name) {
			t.Errorf("terraform query printed no line of connector %s %q:\n%s", c.ID, c.Name, listed)
		}
	}

	eng.Run(t, dir, vars, "query", "-no-color", "-generate-config-out=generated.tf")
	runScript(t, dir, vars, adoptTokenEdit)
	actions, imports := eng.Plan(t, dir, vars)
	if len(actions) != 3 || len(imports) != 3 {
		t.Errorf("the plan has actions %v and imports %v, want three imports", actions, imports)
	}
	for address := range actions {
		acctest.ExpectActions(t, actions, address, "update")
	}
	eng.Run(t, dir, vars, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, vars)
	if strings.Contains(eng.Run(t, dir, nil, "show", "-json"), token) {
		t.Error("the state holds the write-only token")
	}
	expectAdopted(t, e, ids, token)
}

// TestAccGuide_adoptingWithImportBlocks: three connectors made with curl are imported by the
// import blocks over the connectors data source, each updated once for its token; the next
// plan is empty ("Adopting with import blocks").
func TestAccGuide_adoptingWithImportBlocks(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t, acctest.CapImportForEach)
	e := acctest.NewEnv(t, sandbox.Config{})
	e.RequireSandbox(t, "have a workspace of the test's own: the guide adopts every connector in it")
	expectGuideSays(t, "adopting-existing-connectors", "cp <repository>/examples/guides/adopting-connectors-for-each/main.tf .")
	dir := workdir(t, "guides/adopting-connectors-for-each")
	script, err := os.ReadFile(filepath.Join(examplesDir, "guides/adopting-connectors/make-connectors.sh"))
	if err != nil {
		t.Fatal(err)
	}
	token := acctest.Name("token")
	vars := e.ServiceEnv("TF_VAR_platform_token=" + token)
	runScript(t, dir, vars, string(script))
	made, err := e.Client(t).ListConnectors(context.Background(), e.WorkspaceID, client.ConnectorFilter{})
	if err != nil || len(made) != 3 {
		t.Fatalf("make-connectors.sh made %+v (%v), want three connectors", made, err)
	}
	var ids []string
	for _, c := range made {
		ids = append(ids, c.ID)
	}

	actions, imports := eng.Plan(t, dir, vars)
	if len(actions) != 3 || len(imports) != 3 {
		t.Errorf("the plan has actions %v and imports %v, want three imports", actions, imports)
	}
	for address := range actions {
		acctest.ExpectActions(t, actions, address, "update")
	}
	eng.Run(t, dir, vars, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, vars)
	expectAdopted(t, e, ids, token)
}

// expectAdopted: the workspace holds the connectors ids and no other, each with token.
func expectAdopted(t *testing.T, e *acctest.Env, ids []string, token string) {
	t.Helper()
	after, err := e.Client(t).ListConnectors(context.Background(), e.WorkspaceID, client.ConnectorFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, c := range after {
		held = append(held, c.ID)
		if v, _ := e.Sandbox.Connector(e.WorkspaceID, c.ID); v.Token != token {
			t.Errorf("connector %q does not hold the token of the apply", c.Name)
		}
	}
	if !acctest.SameIDs(held, ids) {
		t.Errorf("after the apply the workspace holds %v, want the same %v", held, ids)
	}
}

// createJobByHand makes, through the side door, the job a failed run did not find.
const createJobByHand = `curl -fsS -X POST -H "Authorization: $DATAINTEGRATION_API_KEY" \
  -H "Content-Type: application/json" \
  -d '{"name": "nightly load", "data_source": "warehouse", "connector_name": "customer_service", "schema_name": "nightly"}' \
  "$DATAINTEGRATION_BASE_URL/_sandbox/workspaces/$DATAINTEGRATION_WORKSPACE_ID/jobs/"`

// TestAccGuide_jobsFromCIAction follows the action form of "Running jobs from CI": a new
// commit runs the job, the same commit nothing, a commit whose job still runs waits, and
// -invoke runs it; a failed run taints the terraform_data, so the next apply runs it once.
// It runs serially: an execution must outlast the applies between two commits.
func TestAccGuide_jobsFromCIAction(t *testing.T) {
	eng := acctest.NewEngine(t, acctest.CapActionTriggers)
	// Executions that outlast an apply or two, so that the next commit finds one running.
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 4, RunDuration: 6 * time.Second})
	e.RequireSandbox(t, "count the job's executions, read their times, and make a job")
	expectGuideSays(t, "running-jobs-from-ci", createJobByHand)
	job := e.JobsOneByOne(t, client.JobFilter{})[0] // the first generated job is active
	dir := workdir(t, "guides/jobs-from-ci-action")
	try := func(name, commit string, extra ...string) (string, error) {
		return eng.Try(dir, e.ServiceEnv(), append([]string{"apply", "-input=false", "-auto-approve", "-no-color",
			"-var", "job_name=" + name, "-var", "commit=" + commit}, extra...)...)
	}
	apply := func(commit string, extra ...string) string {
		t.Helper()
		out, err := try(*job.Name, commit, extra...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	apply("a1b2c3")
	if n := len(e.Sandbox.Executions(e.WorkspaceID, job.ID)); n != 1 {
		t.Fatalf("the first commit ran the job %d times, want once", n)
	}
	before := e.Sandbox.Stats().Requests
	apply("a1b2c3")
	if n := e.Sandbox.Stats().Requests - before; n != 0 {
		t.Errorf("the rerun of the same commit sent %d requests, want none", n)
	}
	if ex := e.Sandbox.Executions(e.WorkspaceID, job.ID); ex[0].Status != sandbox.StatusRunning {
		t.Fatalf("the first execution ended before the next commit (%+v): the test is too slow for its RunDuration", ex[0])
	}
	out := apply("d4e5f6")
	if !strings.Contains(out, "is running; waiting") {
		t.Errorf("the apply did not report its wait:\n%s", out)
	}
	// The second execution still runs too: the invoke waits for it.
	apply("d4e5f6", "-var", "full_refresh=true", "-invoke=action.dataintegration_run_job.this")
	ex := e.Sandbox.Executions(e.WorkspaceID, job.ID)
	acctest.ExpectSequential(t, ex, 3)
	if len(ex) == 3 && (ex[1].ForceFullRefresh || !ex[2].ForceFullRefresh) {
		t.Errorf("executions %+v, want the invoked one alone a full refresh", ex)
	}

	// A run that failed: the job does not exist yet.
	if _, err := try("nightly load", "0a1b2c"); err == nil || !strings.Contains(err.Error(), "Job Not Found") {
		t.Fatalf("the run of a job not made yet did not fail with Job Not Found: %v", err)
	}
	if show := eng.Run(t, dir, nil, "show", "-no-color"); !strings.Contains(show, "terraform_data.commit: (tainted)") {
		t.Errorf("the failed run left the terraform_data untainted:\n%s", show)
	}
	runScript(t, dir, e.ServiceEnv(), createJobByHand)
	nightly := jobNamed(t, e, "nightly load")
	if out, err := try("nightly load", "0a1b2c"); err != nil || !strings.Contains(out, "job "+nightly+" triggered") {
		t.Fatalf("the next apply of the same commit did not run the job: %v\n%s", err, out)
	}
	before = e.Sandbox.Stats().Requests
	if _, err := try("nightly load", "0a1b2c"); err != nil {
		t.Fatal(err)
	}
	if n := e.Sandbox.Stats().Requests - before; n != 0 {
		t.Errorf("the apply after the run that worked sent %d requests, want none", n)
	}
	if n := len(e.Sandbox.Executions(e.WorkspaceID, nightly)); n != 1 {
		t.Errorf("the job made by hand ran %d times, want once", n)
	}
}

func jobNamed(t *testing.T, e *acctest.Env, name string) string {
	t.Helper()
	var ids []string
	for _, j := range e.JobsOneByOne(t, client.JobFilter{}) {
		if *j.Name == name {
			ids = append(ids, j.ID)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("the workspace has %d jobs named %q, want one", len(ids), name)
	}
	return ids[0]
}

// The guides' forms that need Terraform 1.16, skipped on other engines.

// syncBuffer is a log the sandbox writes to while a test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startConnectorJobRun starts the connector's job ("Cancelling with an action").
const startConnectorJobRun = `JOB_ID=$(curl -fsS -H "Authorization: $DATAINTEGRATION_API_KEY" \
  "$DATAINTEGRATION_BASE_URL/developers/workspaces/$DATAINTEGRATION_WORKSPACE_ID/jobs/?name=Support%20desk" |
  grep -o '"_id": *"[^"]*"' | head -n 1 | cut -d '"' -f 4)
curl -fsS -X POST -H "Authorization: $DATAINTEGRATION_API_KEY" \
  "$DATAINTEGRATION_BASE_URL/developers/workspaces/$DATAINTEGRATION_WORKSPACE_ID/jobs/${JOB_ID:?no job is named Support desk: apply first}/run/"`

// TestAccGuide_cancelBeforeDestroy: destroying the connector cancels its job's running
// execution first; a destroy-time action that fails halts a replacement, and only warns
// `terraform destroy`. It runs serially: the execution must still run at the destroy.
func TestAccGuide_cancelBeforeDestroy(t *testing.T) {
	eng := acctest.NewEngine(t, acctest.CapActionTriggers)
	var requests syncBuffer
	e := acctest.NewEnv(t, sandbox.Config{RunDuration: time.Minute, Log: log.New(&requests, "", 0)})
	e.RequireSandbox(t, "read the order of the requests and the execution's status")
	dir := workdir(t, "guides/cancel-before-destroy")
	env := e.ServiceEnv("TF_VAR_platform_token=" + acctest.Name("token"))
	eng.Run(t, dir, env, "apply", "-input=false", "-auto-approve", "-no-color")
	connector := acctest.StateResourceID(t, eng.Run(t, dir, nil, "show", "-json"), "dataintegration_customer_service_connector.support")
	job := jobNamed(t, e, "Support desk")
	expectGuideSays(t, "running-jobs-from-ci", startConnectorJobRun)
	runScript(t, dir, env, startConnectorJobRun)
	if ex := e.Sandbox.Executions(e.WorkspaceID, job); len(ex) != 1 || ex[0].Status != sandbox.StatusRunning {
		t.Fatalf("the guide's commands started %+v, want one running execution", ex)
	}

	out := eng.Run(t, dir, env, "destroy", "-input=false", "-auto-approve", "-no-color")
	if want := "the running execution of job " + job + " cancelled"; !strings.Contains(out, want) {
		t.Errorf("the destroy did not say %q:\n%s", want, out)
	}
	// The sandbox answers a cancel 204 only when it ended a running execution, and deleting
	// the connector deletes its executions: the requests' order says what the status was.
	cancel := fmt.Sprintf("DELETE /developers/workspaces/%s/jobs/%s/cancel/ 204", e.WorkspaceID, job)
	deleted := fmt.Sprintf("DELETE /developers/workspaces/%s/connectors/%s/ 204", e.WorkspaceID, connector)
	got := requests.String()
	if c, d := strings.Index(got, cancel), strings.Index(got, deleted); c < 0 || d < 0 || c > d {
		t.Errorf("want %q, then %q; the sandbox served:\n%s", cancel, deleted, got)
	}
	if ids := e.Sandbox.ConnectorIDs(e.WorkspaceID); len(ids) != 0 {
		t.Errorf("the workspace still holds connectors %v", ids)
	}

	// A cancel that fails: here, of a job of another name.
	failing := regexp.MustCompile(`job_name = caller.name`)
	mainTF := filepath.Join(dir, "main.tf")
	b, err := os.ReadFile(mainTF)
	if err != nil || !failing.Match(b) {
		t.Fatalf("the example no longer cancels the job named after the connector (%v)", err)
	}
	if err := os.WriteFile(mainTF, failing.ReplaceAll(b, []byte(`job_name = "${caller.name} (old)"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	eng.Run(t, dir, env, "apply", "-input=false", "-auto-approve", "-no-color")
	connector = acctest.StateResourceID(t, eng.Run(t, dir, nil, "show", "-json"), "dataintegration_customer_service_connector.support")
	_, err = eng.Try(dir, env, "apply", "-input=false", "-auto-approve", "-no-color",
		"-replace=dataintegration_customer_service_connector.support")
	if err == nil || !strings.Contains(err.Error(), "Error: Job Not Found") {
		t.Errorf("a replacement whose cancel failed did not fail with Job Not Found: %v", err)
	}
	if ids := e.Sandbox.ConnectorIDs(e.WorkspaceID); len(ids) != 1 || ids[0] != connector {
		t.Errorf("after the halted replacement the workspace holds %v, want %s alone", ids, connector)
	}
	out = eng.Run(t, dir, env, "destroy", "-input=false", "-auto-approve", "-no-color")
	if !strings.Contains(out, "Warning: Job Not Found") || !strings.Contains(out, "Destroy complete!") {
		t.Errorf("the destroy whose cancel failed did not warn and go on:\n%s", out)
	}
	if ids := e.Sandbox.ConnectorIDs(e.WorkspaceID); len(ids) != 0 {
		t.Errorf("the destroy whose cancel failed left connectors %v", ids)
	}
}

// TestAccGuide_adoptingWithAModule: three connectors made with curl are adopted by the
// import block inside a module called with for_each; the next plan is empty with or
// without the IDs; a name in another case is refused before any request.
func TestAccGuide_adoptingWithAModule(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t, acctest.CapModuleImports)
	e := acctest.NewEnv(t, sandbox.Config{})
	e.RequireSandbox(t, "have a workspace of the test's own: the guide adopts every connector in it")
	// As the guide copies them: the example, its module, and the first part's script.
	dir := workdir(t, "guides/adopting-connectors-module")
	if err := os.CopyFS(filepath.Join(dir, "modules"), os.DirFS(filepath.Join(examplesDir, "guides/adopting-connectors-module/modules"))); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(examplesDir, "guides/adopting-connectors/make-connectors.sh"))
	if err != nil {
		t.Fatal(err)
	}
	token := acctest.Name("token")
	vars := e.ServiceEnv("TF_VAR_platform_token=" + token)
	runScript(t, dir, vars, string(script))
	eng.Run(t, dir, nil, "init", "-input=false", "-no-color") // installs the module
	made, err := e.Client(t).ListConnectors(context.Background(), e.WorkspaceID, client.ConnectorFilter{})
	if err != nil || len(made) != 3 {
		t.Fatalf("make-connectors.sh made %+v (%v), want three connectors", made, err)
	}

	adopt := filepath.Join(dir, "adopt.auto.tfvars")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(adopt, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := e.Sandbox.Stats().Requests
	for _, c := range []struct{ adopt, want string }{
		{fmt.Sprintf("%q = %q", strings.ToLower(made[0].Name), made[0].ID), "Each name in adopt must be one of"},
		{fmt.Sprintf("%q = %q\n  %q = %q", made[0].Name, made[0].ID, made[1].Name, strings.ToUpper(made[0].ID)), "Each ID in adopt must be given once"},
	} {
		write("adopt = {\n  " + c.adopt + "\n}\n")
		if out, err := eng.Try(dir, vars, "plan", "-input=false", "-no-color"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("adopt = { %s } was not refused with %q: %v\n%s", c.adopt, c.want, err, out)
		}
	}
	if n := e.Sandbox.Stats().Requests - before; n != 0 {
		t.Errorf("the refused plans sent %d requests", n)
	}

	var ids []string
	lines := "adopt = {\n"
	for _, c := range made {
		ids = append(ids, c.ID)
		lines += fmt.Sprintf("  %q = %q\n", c.Name, c.ID)
	}
	write(lines + "}\n")
	actions, imports := eng.Plan(t, dir, vars)
	if len(actions) != 3 || len(imports) != 3 {
		t.Errorf("the plan has actions %v and imports %v, want three imports", actions, imports)
	}
	for _, c := range made {
		address := fmt.Sprintf("module.connector[%q].dataintegration_customer_service_connector.this", c.Name)
		acctest.ExpectActions(t, actions, address, "update")
	}
	eng.Run(t, dir, vars, "apply", "-input=false", "-no-color", "tfplan")
	eng.ExpectConverged(t, dir, vars)
	if err := os.Remove(adopt); err != nil {
		t.Fatal(err)
	}
	eng.ExpectConverged(t, dir, vars)

	expectAdopted(t, e, ids, token)
}

// The guide's commands that start the sandbox from its archive, test, and stop it.
const (
	guideStartSandbox = `tar -xzf "dataintegration-sandbox_${version}_${platform}.tar.gz" dataintegration-sandbox
./dataintegration-sandbox -addr 127.0.0.1:8089 >sandbox.env 2>sandbox.log &
until grep -q DATAINTEGRATION_WORKSPACE_ID sandbox.env; do sleep 0.2; done
. ./sandbox.env
`
	guideRunSandboxTest = `terraform init
terraform test -filter=tests/sandbox.tftest.hcl
`
	guideStopSandbox = "kill %1\n"
)

// TestAccGuide_testingAgainstTheSandbox follows "Testing configurations" with the sandbox
// from the release's archive (dist/): unpack, start on a free port (-addr 127.0.0.1:0),
// `terraform test`, stop; its log shows the test's connector created and deleted.
func TestAccGuide_testingAgainstTheSandbox(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t, acctest.CapTestMocks, exampleNeeds["testing"])
	r := acctest.BuiltRelease(t)
	for _, text := range []string{guideStartSandbox, guideRunSandboxTest, guideStopSandbox} {
		expectGuideSays(t, "testing-configurations", text)
	}
	platform := runtime.GOOS + "_" + runtime.GOARCH
	archive := "dataintegration-sandbox_" + r.Version + "_" + platform + ".tar.gz"
	b, err := os.ReadFile(filepath.Join(r.Dir, archive))
	if err != nil {
		t.Fatalf("the release has no sandbox for this platform: %v", err)
	}
	dir := filepath.Join(copyExamples(t), "testing")
	if err := os.WriteFile(filepath.Join(dir, archive), b, 0o600); err != nil {
		t.Fatal(err)
	}
	// The guide's `terraform` is the engine under test, with the tree's provider by a dev
	// override instead of `init`, which OpenTofu would send to the Registry.
	run := strings.Replace(guideRunSandboxTest, "terraform init\n", "", 1)
	// The sandbox is stopped when a command fails, too.
	script := "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + strings.Replace(guideStartSandbox, "127.0.0.1:8089", "127.0.0.1:0", 1) +
		strings.ReplaceAll(run, "terraform ", eng.Path+" ") + guideStopSandbox + "wait\n"
	out := runScript(t, dir, append(slices.Clone(eng.Env), "version="+r.Version, "platform="+platform), script)
	expectAllPassed(t, out, []string{"tests/sandbox.tftest.hcl"})
	log, err := os.ReadFile(filepath.Join(dir, "sandbox.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`POST /\S+/connectors/ 201`),
		regexp.MustCompile(`DELETE /\S+/connectors/[0-9a-f-]+/ 204`),
	} {
		if !want.Match(log) {
			t.Errorf("the sandbox's log has no line matching %s:\n%s", want, log)
		}
	}
}
