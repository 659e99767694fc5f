package docs

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The guides' forms that need Terraform 1.16: a destroy-time action, and
// import blocks inside a module. Skipped, saying why, on other engines.

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

// startConnectorJobRun is the step of "Cancelling with an action" that
// starts a run of the connector's job through the API.
const startConnectorJobRun = `JOB_ID=$(curl -fsS -H "Authorization: $DATAINTEGRATION_API_KEY" \
  "$DATAINTEGRATION_BASE_URL/developers/workspaces/$DATAINTEGRATION_WORKSPACE_ID/jobs/?name=Support%20desk" |
  grep -o '"_id": *"[^"]*"' | head -n 1 | cut -d '"' -f 4)
curl -fsS -X POST -H "Authorization: $DATAINTEGRATION_API_KEY" \
  "$DATAINTEGRATION_BASE_URL/developers/workspaces/$DATAINTEGRATION_WORKSPACE_ID/jobs/${JOB_ID:?no job is named Support desk: apply first}/run/"`

// TestAccGuide_cancelBeforeDestroy follows "Cancelling before destroy with
// an action" of "Running jobs from CI": destroying the connector first
// cancels its job's running execution, then deletes the connector; a
// destroy-time action that fails halts a replacement, and is a warning to
// `terraform destroy`, which deletes the connector all the same.
func TestAccGuide_cancelBeforeDestroy(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapActionTriggers) // before building the provider
	eng := acctest.NewEngine(t)
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
	// The sandbox answers a cancel 204 only when it ended a running
	// execution as cancelled, and deleting the connector deletes its job and
	// executions: the order of the requests says what the status was.
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

// TestAccGuide_adoptingWithAModule follows "Adopting with a module" of
// "Adopting existing connectors": three connectors made with curl are
// adopted by the import block inside a module of one connector, called with
// for_each; the next plan is empty, with or without the IDs; a name written
// in another case is refused before any request.
func TestAccGuide_adoptingWithAModule(t *testing.T) {
	acctest.RequireCapability(t, acctest.CapModuleImports) // before building the provider
	eng := acctest.NewEngine(t)
	e := acctest.NewEnv(t, sandbox.Config{})
	e.RequireSandbox(t, "have a workspace of the test's own: the guide adopts every connector in it")
	// As the guide copies them: the example with its module, and the
	// script of the guide's first part.
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
