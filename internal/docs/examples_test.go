package docs

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// examplesDir is the repository's examples/, which the docs show.
const examplesDir = "../../examples"

// exampleNeeds names the examples that need an engine capability beyond
// Terraform 1.5's. Write-only attributes come with ephemeral variables in
// both engines.
var exampleNeeds = map[string]acctest.Capability{
	"guides/connectors-write-only": acctest.CapWriteOnly,
	// An ephemeral variable into token_wo, and the tests of `terraform test`.
	"testing": acctest.CapWriteOnly,
	// An ephemeral variable, for the write-only token, and a query file.
	"guides/adopting-connectors": acctest.CapListResources,
	// Query files alone: nothing before Terraform 1.14 reads them.
	"list-resources/dataintegration_customer_service_connector":                  acctest.CapListResources,
	"resources/dataintegration_customer_service_connector/import-by-identity.tf": acctest.CapIdentity,
	"guides/jobs-from-ci-action":                                                 acctest.CapActionTriggers,
	"guides/cancel-before-destroy":                                               acctest.CapActionTriggers,
	"guides/adopting-connectors-module":                                          acctest.CapModuleImports,
	"guides/adopting-connectors-module/modules/connector":                        acctest.CapModuleImports,
	"actions/dataintegration_run_job":                                            acctest.CapActions,
	"actions/dataintegration_cancel_job":                                         acctest.CapActions,
}

// exampleDirs lists every folder of examples/ that holds a configuration
// or a query (a .tfquery.hcl file), relative to examples/.
func exampleDirs(t *testing.T) []string {
	t.Helper()
	return exampleFolders(t, func(path string) (string, bool) {
		return filepath.Dir(path), filepath.Ext(path) == ".tf" || strings.HasSuffix(path, queryFileSuffix)
	})
}

// exampleFolders lists, once each and relative to examples/, the folders
// that folder names for the files of examples/ it accepts.
func exampleFolders(t *testing.T, folder func(path string) (string, bool)) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(examplesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		dir, ok := folder(path)
		if !ok {
			return nil
		}
		rel, err := filepath.Rel(examplesDir, dir)
		if err == nil && !slices.Contains(dirs, rel) {
			dirs = append(dirs, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// queryFileSuffix names the files `terraform query` reads.
const queryFileSuffix = ".tfquery.hcl"

// TestAccExamples_valid checks every example the docs show: `fmt` finds
// nothing to change, `validate` passes with the provider built from this
// tree (with its query files where the engine reads them), and the shell
// examples parse.
func TestAccExamples_valid(t *testing.T) {
	eng := acctest.NewEngine(t)
	if out, err := eng.Try(examplesDir, nil, "fmt", "-check", "-recursive", "-diff"); err != nil {
		t.Errorf("examples/ is not `fmt` clean:\n%s%v", out, err)
	}
	dirs := exampleDirs(t)
	for _, want := range []string{
		"provider",
		"resources/dataintegration_customer_service_connector",
		"resources/dataintegration_job_trigger",
		"data-sources/dataintegration_customer_service_connector",
		"data-sources/dataintegration_job",
		"data-sources/dataintegration_jobs",
		"list-resources/dataintegration_customer_service_connector",
		"actions/dataintegration_run_job",
		"actions/dataintegration_cancel_job",
	} {
		if !slices.Contains(dirs, want) {
			t.Errorf("examples/%s is missing: the docs show it", want)
		}
	}
	validate := func(t *testing.T, at string) {
		t.Helper()
		// A configuration that calls a module of its own is validated in a
		// copy, once `init` has installed the module.
		if _, err := os.Stat(filepath.Join(at, "modules")); err == nil {
			dst := t.TempDir()
			if err := os.CopyFS(dst, os.DirFS(at)); err != nil {
				t.Fatal(err)
			}
			at = dst
			eng.Run(t, at, nil, "init", "-backend=false", "-input=false", "-no-color")
		}
		args := []string{"validate", "-no-color"}
		if queries, _ := filepath.Glob(filepath.Join(at, "*"+queryFileSuffix)); len(queries) > 0 && eng.Info.Has(acctest.CapListResources) {
			args = append(args, "-query")
		}
		eng.Run(t, at, nil, args...)
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			if c, ok := exampleNeeds[dir]; ok {
				acctest.RequireCapability(t, c)
			}
			// Import examples of the same resource, each shown alone in the
			// docs, are validated one at a time with the rest of the folder.
			imports, _ := filepath.Glob(filepath.Join(examplesDir, dir, "import-by-*.tf"))
			if len(imports) < 2 {
				validate(t, filepath.Join(examplesDir, dir))
				return
			}
			for _, imp := range imports {
				t.Run(filepath.Base(imp), func(t *testing.T) {
					if c, ok := exampleNeeds[dir+"/"+filepath.Base(imp)]; ok {
						acctest.RequireCapability(t, c)
					}
					var others []string
					for _, o := range imports {
						if o != imp {
							others = append(others, filepath.Base(o))
						}
					}
					validate(t, workdir(t, dir, others...))
				})
			}
		})
	}
	scripts, err := filepath.Glob(filepath.Join(examplesDir, "*/*/*.sh"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no shell example found (%v)", err)
	}
	for _, s := range scripts {
		if out, err := exec.Command("bash", "-n", s).CombinedOutput(); err != nil {
			t.Errorf("%s does not parse: %v\n%s", s, err, out)
		}
	}
}

// workdir copies an example, but for the files named in except, into a
// folder of its own, so that applying it leaves nothing in the repository.
func workdir(t *testing.T, example string, except ...string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join(examplesDir, example)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		if ent.IsDir() || slices.Contains(except, ent.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		info, err := ent.Info()
		if err != nil {
			t.Fatal(err)
		}
		// The owner's permissions, so that a script stays executable.
		if err := os.WriteFile(filepath.Join(dst, ent.Name()), b, info.Mode().Perm()&0o700); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestAccGuide_gettingStarted follows "Getting started with the sandbox" on
// examples/demo: apply, one full-refresh execution, an empty plan; step 7: a
// new token updates the connector and plans no change to the trigger, so
// the job does not run again, while a new stream replaces the trigger,
// which runs it again, and a connector created anew has its new job run;
// then destroy, which cancels the execution.
func TestAccGuide_gettingStarted(t *testing.T) {
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

	// A connector created anew has a new job: the trigger follows it, and
	// the data source reads the new one.
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

// TestAccGuide_connectorsAsCode follows "Managing connectors as code": two
// connectors from a map, their tokens from a sensitive variable; then the
// same connectors imported into a fresh state.
func TestAccGuide_connectorsAsCode(t *testing.T) {
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

	// The guide's import: the same connectors, adopted by a new state with
	// import blocks, then managed as before.
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

// TestAccGuide_writeOnlyToken follows the write-only part of "Managing
// connectors as code": the token never reaches the state, and a new one is
// sent when its version changes.
func TestAccGuide_writeOnlyToken(t *testing.T) {
	eng := acctest.NewEngine(t)
	acctest.RequireCapability(t, acctest.CapWriteOnly)
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

// TestAccGuide_jobsFromCI follows "Running jobs from CI": each pipeline run
// applies with its commit; a new commit runs the job again, the same commit
// does nothing.
func TestAccGuide_jobsFromCI(t *testing.T) {
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 4, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	job := e.AllJobs(t)[0] // the first generated job is active
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

// adoptTokenEdit is the command of "Adopting existing connectors" that
// gives the generated configuration the token, as a write-only token:
// each `token = null` line goes, `token_wo` becomes the variable and
// `token_wo_version` 1, aligned as generated.
const adoptTokenEdit = `sed -i -E \
  -e '/^ *token *= null/d' \
  -e 's/^( *)token_wo( *)= null.*$/\1token_wo\2= var.platform_token/' \
  -e 's/^( *)token_wo_version( *)= null$/\1token_wo_version\2= 1/' \
  generated.tf`

// TestAccGuide_adoptingConnectors follows "Adopting existing connectors":
// three connectors made with curl are listed by `terraform query`, their
// configuration generated, the token added with the guide's command; the
// plan imports the three and updates each in place once, the apply sends
// each its token, which the state does not hold, the next plan is empty,
// and the workspace holds the same three connectors.
func TestAccGuide_adoptingConnectors(t *testing.T) {
	eng := acctest.NewEngine(t)
	acctest.RequireCapability(t, acctest.CapListResources)
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

// expectAdopted checks, after the apply of an adoption, that the workspace
// holds the connectors ids it held before, and no other, each with the
// apply's token.
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

// createJobByHand is the side-door request of "Running jobs from CI" that
// makes the job a failed run did not find.
const createJobByHand = `curl -fsS -X POST -H "Authorization: $DATAINTEGRATION_API_KEY" \
  -H "Content-Type: application/json" \
  -d '{"name": "nightly load", "data_source": "warehouse", "connector_name": "customer_service", "schema_name": "nightly"}' \
  "$DATAINTEGRATION_BASE_URL/_sandbox/workspaces/$DATAINTEGRATION_WORKSPACE_ID/jobs/"`

// TestAccGuide_jobsFromCIAction follows the action form of "Running jobs
// from CI": a new commit runs the job, the same commit runs nothing, a
// commit whose job is still running waits for it, and -invoke runs it on
// demand; a run that failed (its job did not exist yet) taints the
// terraform_data, so the next apply of the same commit runs it, once.
func TestAccGuide_jobsFromCIAction(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActionTriggers) // before building the provider
	eng := acctest.NewEngine(t)
	// Executions that outlast the next apply or two, so that the next commit
	// finds the job running.
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 4, RunDuration: 6 * time.Second})
	e.RequireSandbox(t, "count the job's executions, read their times, and make a job")
	expectGuideSays(t, "running-jobs-from-ci", createJobByHand)
	job := e.AllJobs(t)[0] // the first generated job is active
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

// expectGuideSays fails the test unless the guide's template holds text,
// which the test runs as the guide's reader would.
func expectGuideSays(t *testing.T, guide, text string) {
	t.Helper()
	b, err := os.ReadFile("../../templates/guides/" + guide + ".md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), text) {
		t.Fatalf("the guide %s no longer says\n%s\nupdate this test with the guide", guide, text)
	}
}

// runScript runs a shell script of a guide in dir, with extra environment
// variables, and returns what it printed; a failure fails the test.
func runScript(t *testing.T, dir string, env []string, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// jobNamed is the ID of the one job of the given name.
func jobNamed(t *testing.T, e *acctest.Env, name string) string {
	t.Helper()
	var ids []string
	for _, j := range e.AllJobs(t) {
		if *j.Name == name {
			ids = append(ids, j.ID)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("the workspace has %d jobs named %q, want one", len(ids), name)
	}
	return ids[0]
}

func TestMain(m *testing.M) { acctest.Main(m) }
