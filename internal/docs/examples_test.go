package docs

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// exampleDirs: the folders of examples/ holding a configuration or a query file.
func exampleDirs(t *testing.T) []string {
	t.Helper()
	return exampleFolders(t, func(path string) (string, bool) {
		return filepath.Dir(path), filepath.Ext(path) == ".tf" || strings.HasSuffix(path, queryFileSuffix)
	})
}

// exampleFolders lists once each, relative to examples/, the folders folder names.
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

const queryFileSuffix = ".tfquery.hcl"

// TestAccExamples_valid: every example the docs show is `fmt` clean and validates (with
// its query files where the engine reads them), and the shell examples parse.
func TestAccExamples_valid(t *testing.T) {
	t.Parallel()
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
		// A configuration calling a module of its own is validated in a copy, after `init`.
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
			// Import examples of one resource, shown alone in the docs, are validated one at a time.
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

// The test files of examples/ ("Testing configurations"), run by the engine's `test`.

// offlineEnv reaches nothing, so that a mocked test that sent a request would fail.
var offlineEnv = []string{
	providerenv.BaseURL + "=http://127.0.0.1:1",
	providerenv.APIKey + "=offline-test-key",
	providerenv.WorkspaceID + "=6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
}

var mockedFile = regexp.MustCompile(`(?m)^mock_provider "dataintegration"`)

// testFiles are the test files the engine reads in a module's folder and its tests/:
// OpenTofu reads a .tofutest.hcl file instead of the .tftest.hcl of the same name.
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

// testedModules: the folders of examples/ with test files, in themselves or in tests/.
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

// TestAccExamples_terraformTest runs each module's test files with the engine's `test`:
// the mocked ones offline, then all against a sandbox (or the service), after which
// the workspace holds no more connectors than before.
func TestAccExamples_terraformTest(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t, acctest.CapTestMocks)
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

// mockedExamples: the docs' configurations TestAccExamples_mockedOnTerraform tests offline,
// with their variables; left out are those needing what `terraform test` does not mock
// (actions, queries, imports) or a module to install.
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

// TestAccExamples_mockedOnTerraform applies the docs' configurations offline with the
// published mock defaults (`command = apply`): each resource's computed values must be
// accepted where they feed another's arguments. Terraform only: OpenTofu's mock_provider
// has no `source` (the guide "Testing configurations").
func TestAccExamples_mockedOnTerraform(t *testing.T) {
	t.Parallel()
	eng := acctest.NewEngine(t, acctest.CapTestMocks)
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
			// The example's own configuration, less its import blocks and test files.
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
