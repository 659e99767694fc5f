package docs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The test files of examples/ (the guide "Testing configurations"), run by
// the engine's own `test` command as their users run them.

// offlineEnv points the provider at nothing that answers, so that a mocked
// test that sent a request would fail.
var offlineEnv = []string{
	acctest.EnvBaseURL + "=http://127.0.0.1:1",
	acctest.EnvAPIKey + "=offline-test-key",
	acctest.EnvWorkspaceID + "=6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
}

// mockedFile tells a test file that mocks the provider.
var mockedFile = regexp.MustCompile(`(?m)^mock_provider "dataintegration"`)

// testFiles are the test files the engine reads in a module's folder, its
// tests/ folder included, relative to it: OpenTofu reads a .tofutest.hcl
// file instead of the .tftest.hcl file of the same name, Terraform ignores
// it.
func testFiles(t *testing.T, eng *acctest.Engine, dir string) []string {
	t.Helper()
	var files []string
	for _, sub := range []string{".", "tests"} {
		tf, _ := filepath.Glob(filepath.Join(dir, sub, "*.tftest.hcl"))
		for _, f := range tf {
			tofu := strings.TrimSuffix(f, ".tftest.hcl") + ".tofutest.hcl"
			if _, err := os.Stat(tofu); err == nil && eng.Info.Tofu {
				f = tofu
			}
			rel, err := filepath.Rel(dir, f)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, rel)
		}
	}
	return files
}

// testedModules are the folders of examples/ that hold test files, in
// themselves or in tests/, relative to examples/.
func testedModules(t *testing.T) []string {
	t.Helper()
	return exampleFolders(t, func(path string) (string, bool) {
		dir := filepath.Dir(path)
		if filepath.Base(dir) == "tests" {
			dir = filepath.Dir(dir)
		}
		return dir, strings.HasSuffix(path, ".tftest.hcl")
	})
}

// copyExamples copies examples/ into a folder of the test's own, so that a
// test file's relative paths (../testing/mocks) hold and nothing is written
// into the repository.
func copyExamples(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(examplesDir)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// expectAllPassed checks the summary of `terraform test`: each file passed,
// and no run failed.
func expectAllPassed(t *testing.T, out string, files []string) {
	t.Helper()
	out = ansiColour.ReplaceAllString(out, "")
	for _, f := range files {
		if !strings.Contains(out, f+"... pass") {
			t.Errorf("%s did not pass:\n%s", f, out)
		}
	}
	if !testSuccess.MatchString(out) {
		t.Errorf("no success in the summary:\n%s", out)
	}
}

var (
	// ansiColour is a colour code of an engine's output.
	ansiColour = regexp.MustCompile("\x1b\\[[0-9;]*m")
	// testSuccess is the summary of a `test` command in which no run failed.
	testSuccess = regexp.MustCompile(`(?m)^Success! \d+ passed, 0 failed`)
)

// TestAccExamples_terraformTest runs the test files of each module under
// examples/ with the engine's `test`: the mocked ones alone with the
// service out of reach, then all of them against a sandbox started for the
// test (or the service), after which the workspace holds no more
// connectors than before.
func TestAccExamples_terraformTest(t *testing.T) {
	eng := acctest.NewEngine(t)
	acctest.RequireCapability(t, acctest.CapTestMocks)
	e := acctest.NewEnv(t, sandbox.Config{})
	modules := testedModules(t)
	if !slices.Contains(modules, "testing") || !slices.Contains(modules, "demo") {
		t.Fatalf("examples/ has test files for %q, want testing and demo among them", modules)
	}
	tree := copyExamples(t)
	connectors := func() int {
		cs, err := e.Client(t).ListConnectors(context.Background(), e.WorkspaceID, client.ConnectorFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}
	for _, module := range modules {
		t.Run(module, func(t *testing.T) {
			if c, ok := exampleNeeds[module]; ok {
				acctest.RequireCapability(t, c)
			}
			dir := filepath.Join(tree, module)
			files := testFiles(t, eng, dir)
			var mocked []string
			args := []string{"test", "-no-color"}
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if mockedFile.Match(b) {
					mocked = append(mocked, f)
					args = append(args, "-filter="+f)
				}
			}
			if len(mocked) > 0 {
				expectAllPassed(t, eng.Run(t, dir, offlineEnv, args...), mocked)
			}
			before := connectors()
			expectAllPassed(t, eng.Run(t, dir, e.ServiceEnv(), "test", "-no-color"), files)
			if after := connectors(); after != before {
				t.Errorf("the workspace held %d connectors before the tests and %d after: the teardown left some", before, after)
			}
		})
	}
}

// The guide's commands that start the sandbox from its release archive,
// then run the module's sandbox test and stop it.
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

// TestAccGuide_testingAgainstTheSandbox follows "Testing configurations"
// against the sandbox, from the sandbox's archive in the release that
// scripts/release.sh built (dist/, as a user downloads it): unpack, start,
// read its variables, `terraform test`, stop. The
// sandbox's log shows the test's connector created and deleted. The guide's
// port is changed to a free one, which the guide says `-addr 127.0.0.1:0`
// picks.
func TestAccGuide_testingAgainstTheSandbox(t *testing.T) {
	eng := acctest.NewEngine(t)
	acctest.RequireCapability(t, acctest.CapTestMocks)
	acctest.RequireCapability(t, exampleNeeds["testing"])
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
	// The engine under test runs the guide's `terraform` (OpenTofu's
	// commands are the same), with the provider built from the tree by a
	// dev override instead of `init`, which OpenTofu would send to the
	// Registry (TestAccRelease_install installs the release).
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

// mockedExamples are the configurations of the docs that
// TestAccExamples_mockedOnTerraform tests offline, each with the variables
// it needs: every example that creates or reads something, but those that
// need an engine feature `terraform test` does not mock (actions, queries,
// imports) or a module to install.
var mockedExamples = map[string]string{
	"demo": "",
	"resources/dataintegration_customer_service_connector":    `platform_token = "not-a-real-token"`,
	"resources/dataintegration_job_trigger":                   `schema_version = "1"`,
	"data-sources/dataintegration_customer_service_connector": "",
	"data-sources/dataintegration_job":                        "",
	"data-sources/dataintegration_jobs":                       "",
	"guides/connectors-as-code":                               `platform_tokens = { "Support US" = "not-a-real-token", "Support EU" = "not-a-real-token" }`,
	"guides/connectors-write-only":                            `platform_token = "not-a-real-token"`,
	"guides/jobs-from-ci":                                     "job_name = \"Support desk\"\ncommit = \"0123abc\"",
}

// TestAccExamples_mockedOnTerraform applies the docs' configurations with
// the published mock defaults, under `terraform test` with `command =
// apply`, with the service out of reach: "any configuration of the docs"
// is testable offline, each resource's computed values accepted where they
// feed another's arguments. Terraform only: OpenTofu's mock_provider has no
// `source`, and its inline blocks depend on the configuration (the guide
// "Testing configurations").
func TestAccExamples_mockedOnTerraform(t *testing.T) {
	eng := acctest.NewEngine(t)
	acctest.RequireCapability(t, acctest.CapTestMocks)
	if eng.Info.Tofu {
		t.Skipf("OpenTofu's mock_provider has no `source` to load the published defaults with; this engine is %s", eng.Info)
	}
	tree := copyExamples(t)
	for example, vars := range mockedExamples {
		t.Run(example, func(t *testing.T) {
			if c, ok := exampleNeeds[example]; ok {
				acctest.RequireCapability(t, c)
			}
			dir := filepath.Join(tree, example)
			// The example's own configuration, without its import blocks or
			// test files.
			for _, glob := range []string{"import-by-*.tf", "tests"} {
				matches, _ := filepath.Glob(filepath.Join(dir, glob))
				for _, m := range matches {
					if err := os.RemoveAll(m); err != nil {
						t.Fatal(err)
					}
				}
			}
			mocks, err := filepath.Rel(dir, filepath.Join(tree, "testing", "mocks"))
			if err != nil {
				t.Fatal(err)
			}
			test := fmt.Sprintf("mock_provider \"dataintegration\" {\n  source = %q\n}\n\nvariables {\n%s\n}\n\nrun \"apply\" {\n  command = apply\n}\n", filepath.ToSlash(mocks), vars)
			if err := os.WriteFile(filepath.Join(dir, "mocked.tftest.hcl"), []byte(test), 0o600); err != nil {
				t.Fatal(err)
			}
			expectAllPassed(t, eng.Run(t, dir, offlineEnv, "test", "-no-color"), []string{"mocked.tftest.hcl"})
		})
	}
}
