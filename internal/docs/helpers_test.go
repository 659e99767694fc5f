package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
)

const examplesDir = "../../examples"

// workdir copies an example, less the files in except, so that applying it writes elsewhere.
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

// expectGuideSays fails unless the guide's template holds text, which the test runs.
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

// runScript runs a guide's script in dir with env added; a failure fails the test.
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

func TestMain(m *testing.M) { acctest.Main(m) }

// exampleNeeds names the examples that need an engine capability beyond
// Terraform 1.5's. Write-only attributes come with ephemeral variables in
// both engines.
var exampleNeeds = map[string]acctest.Capability{
	"guides/connectors-write-only": acctest.CapWriteOnly,
	// An ephemeral variable into token_wo, and the tests of `terraform test`.
	"testing": acctest.CapWriteOnly,
	// An ephemeral variable, for the write-only token, and a query file.
	"guides/adopting-connectors": acctest.CapListResources,
	// Import blocks with for_each.
	"guides/adopting-connectors-for-each": acctest.CapImportForEach,
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

// copyExamples copies examples/ so that relative paths (../testing/mocks) hold and
// nothing is written into the repository.
func copyExamples(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(examplesDir)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// expectAllPassed: each file of a `terraform test` passed, and no run failed.
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
	ansiColour = regexp.MustCompile("\x1b\\[[0-9;]*m")
	// testSuccess is the summary of a `test` command in which no run failed.
	testSuccess = regexp.MustCompile(`(?m)^Success! \d+ passed, 0 failed`)
)

func docsPages(t *testing.T) []string {
	t.Helper()
	var pages []string
	err := filepath.WalkDir("../../docs", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil || len(pages) == 0 {
		t.Fatalf("no page in docs/ (%v)", err)
	}
	return pages
}
