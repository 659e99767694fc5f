package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-version"
)

// capability is an engine feature that a test may need, with the first
// version of each engine that has it. A version number alone does not say
// it: OpenTofu's numbers will pass 1.14 without actions or list resources.
type capability struct {
	name      string
	terraform string // the first Terraform version that has it
	tofu      string // the first OpenTofu version that has it; "" when no release has it
}

var (
	capImportBlocks = capability{name: "import blocks and `plan -generate-config-out`", terraform: "1.5.0", tofu: "1.6.0"}
	capWriteOnly    = capability{name: "write-only attributes", terraform: "1.11.0", tofu: "1.11.0"}
	capIdentity     = capability{name: "resource identity", terraform: "1.12.0", tofu: "1.12.0"}
	// `terraform test` came in Terraform 1.6, mock_provider in 1.7;
	// OpenTofu's mock_provider in 1.8.
	capTestMocks = capability{name: "`terraform test` with `mock_provider`", terraform: "1.7.0", tofu: "1.8.0"}
	// OpenTofu has neither actions (its issue 3309) nor list resources and
	// `query` (its issue 3787) in any release.
	capActions       = capability{name: "actions", terraform: "1.14.0"}
	capListResources = capability{name: "list resources and `terraform query`", terraform: "1.14.0"}
	// Terraform 1.16 added on_failure to action_trigger, its before_destroy
	// and after_destroy events with caller, and import blocks in modules.
	// Terraform 1.14 and 1.15 refuse the first two, and ignore an import
	// block in a module without a word.
	capActionTriggers = capability{name: "`on_failure` and destroy-time events on `action_trigger`", terraform: "1.16.0"}
	capModuleImports  = capability{name: "`import` blocks inside modules", terraform: "1.16.0"}
)

// where says which versions have a capability, for skip messages.
func (c capability) where() string {
	tofu := "no OpenTofu release"
	if c.tofu != "" {
		tofu = "OpenTofu " + c.tofu + "+"
	}
	return "Terraform " + c.terraform + "+, " + tofu
}

// engineInfo says which engine runs, Terraform or OpenTofu, and its version.
type engineInfo struct {
	tofu    bool
	version *version.Version
}

func (i engineInfo) String() string {
	if i.tofu {
		return "OpenTofu " + i.version.String()
	}
	return "Terraform " + i.version.String()
}

func (i engineInfo) has(c capability) bool {
	first := c.terraform
	if i.tofu {
		first = c.tofu
	}
	// Prereleases of a version count as that version.
	return first != "" && !i.version.Core().LessThan(version.Must(version.NewVersion(first)))
}

var engineVersionLine = regexp.MustCompile(`(?m)^(Terraform|OpenTofu) v(\S+)`)

// parseEngineVersion reads the first line of `terraform version` or
// `tofu version`.
func parseEngineVersion(out string) (engineInfo, error) {
	m := engineVersionLine.FindStringSubmatch(out)
	if m == nil {
		return engineInfo{}, fmt.Errorf("not the output of `version` of Terraform or OpenTofu: %.80q", out)
	}
	v, err := version.NewVersion(m[2])
	if err != nil {
		return engineInfo{}, err
	}
	return engineInfo{tofu: m[1] == "OpenTofu", version: v}, nil
}

// enginePath is the CLI the acceptance tests drive: TF_ACC_TERRAFORM_PATH,
// else terraform on PATH, as terraform-plugin-testing picks it.
func enginePath(t testing.TB) string {
	t.Helper()
	if realEngine != "" {
		return realEngine
	}
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set and there is no terraform on PATH: `make test` builds one")
	}
	return p
}

var (
	detectEngine sync.Once
	detected     engineInfo
	detectErr    error
)

// engineUnderTest says which engine the acceptance tests drive; it asks
// the CLI once per test binary.
func engineUnderTest(t testing.TB) engineInfo {
	t.Helper()
	info, err := detectEngineAt(enginePath(t))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func detectEngineAt(path string) (engineInfo, error) {
	detectEngine.Do(func() {
		cmd := exec.Command(path, "version")
		cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
		out, err := cmd.Output()
		if err != nil {
			detectErr = fmt.Errorf("%s version: %w", path, err)
			return
		}
		detected, detectErr = parseEngineVersion(string(out))
	})
	return detected, detectErr
}

// TestMain names the engine of an acceptance run in its output, as the CLI
// itself reports it, so that a log of `make test` shows what ran.
func TestMain(m *testing.M) {
	if path := os.Getenv("TF_ACC_TERRAFORM_PATH"); os.Getenv("TF_ACC") != "" && path != "" {
		info, err := detectEngineAt(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "acceptance tests:", err)
			os.Exit(1)
		}
		fmt.Printf("Acceptance tests under %s (%s)\n", info, path)
		done, err := recordCLIOutput(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "acceptance tests:", err)
			os.Exit(1)
		}
		code := m.Run()
		done()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// requireCapability skips an acceptance test that the engine cannot run,
// saying why. It is called after the TF_ACC check (newTestEnv or newEngine
// makes it), so that unit runs do not look for an engine.
func requireCapability(t testing.TB, c capability) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	if info := engineUnderTest(t); !info.has(c) {
		t.Skipf("needs %s (%s); this engine is %s", c.name, c.where(), info)
	}
}

// requireMissingCapability skips a test of how an engine without a
// capability is refused, where the engine has it.
func requireMissingCapability(t testing.TB, c capability) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	if info := engineUnderTest(t); info.has(c) {
		t.Skipf("tests an engine without %s (%s); this engine is %s and has them", c.name, c.where(), info)
	}
}

// engine is the Terraform or OpenTofu CLI the acceptance tests drive, run by
// hand with the provider built from this tree, the way a user runs it.
type engine struct {
	path     string
	provider string // the provider binary the dev override points at
	info     engineInfo
	env      []string

	mu     sync.Mutex
	leaked []string // secrets a command printed (see cli_output_test.go)
}

func newEngine(t testing.TB) *engine {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	bin := buildProvider(t, "../..", "the tree")
	eng := engineWithCLIConfig(t, devOverrides(bin))
	eng.provider = filepath.Join(bin, "terraform-provider-dataintegration")
	return eng
}

// buildProvider builds the provider of the module in src into a folder of
// its own, which it returns; what names it in a failure.
func buildProvider(tb testing.TB, src, what string) string {
	tb.Helper()
	bin := tb.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-dataintegration"), ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("building the provider at %s: %v\n%s", what, err, out)
	}
	return bin
}

// providerAt builds the provider at a git revision of this clone, for a
// figure before a change (make bench) or a state written by an earlier
// version (the upgrade test).
func providerAt(tb testing.TB, rev string) string {
	tb.Helper()
	if out, err := exec.Command("git", "-C", "../..", "cat-file", "-e", rev+"^{commit}").CombinedOutput(); err != nil {
		tb.Fatalf("%s is not in this clone's history (%v: %s): building the provider at an earlier revision needs a clone with full history (git fetch --unshallow)", rev, err, out)
	}
	src := tb.TempDir()
	if out, err := exec.Command("sh", "-c", `git -C ../.. archive "$0" | tar -x -C "$1"`, rev, src).CombinedOutput(); err != nil {
		tb.Fatalf("extracting %s: %v\n%s", rev, err, out)
	}
	return buildProvider(tb, src, rev)
}

// devOverrides is a CLI configuration that loads the provider from dir for
// both addresses an example may use: the one in required_providers, and the
// default for a bare resource example.
func devOverrides(dir string) string {
	return fmt.Sprintf(`provider_installation {
  dev_overrides {
    "dataintegration/dataintegration" = %[1]q
    "hashicorp/dataintegration"       = %[1]q
  }
  direct {}
}
`, dir)
}

// engineWithCLIConfig is the engine under test with a CLI configuration of
// the given text and a data folder of its own.
func engineWithCLIConfig(t testing.TB, text string) *engine {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	cfg := filepath.Join(t.TempDir(), "cli-config.tfrc")
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	eng := &engine{path: enginePath(t), info: engineUnderTest(t), env: []string{
		"TF_CLI_CONFIG_FILE=" + cfg, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"TF_DATA_DIR=" + filepath.Join(t.TempDir(), "data"),
	}}
	t.Cleanup(func() {
		eng.mu.Lock()
		defer eng.mu.Unlock()
		for _, leak := range eng.leaked {
			t.Errorf("an engine command printed a secret: %s", leak)
		}
	})
	return eng
}

// run runs the engine in dir with extra environment variables and returns
// its standard output; a non-zero exit fails the test.
func (eng *engine) run(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := eng.try(dir, env, args...)
	if err != nil {
		t.Fatalf("%s %s in %s: %v", filepath.Base(eng.path), strings.Join(args, " "), dir, err)
	}
	return out
}

// try runs the engine like run, and returns its failure with what it printed.
func (eng *engine) try(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command(eng.path, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), eng.env...), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if !jsonCommand(args) {
		secrets := append(secretsInEnv(cmd.Env), configSecrets(dir)...)
		if found := leaks(stdout.String()+stderr.String(), secrets); len(found) > 0 {
			eng.mu.Lock()
			eng.leaked = append(eng.leaked, found...)
			eng.mu.Unlock()
		}
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("%w\n%s%s", err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// similarWarnings is how an engine sums up the warnings of one summary
// after the first: "(and one more similar warning elsewhere)", "(and 19
// more similar warnings elsewhere)".
var similarWarnings = regexp.MustCompile(`^\(and (one|\d+) more similar warnings?(?: elsewhere)?\)$`)

// countWarnings counts the warnings of a summary in an engine's output,
// those it sums up included.
func countWarnings(out, summary string) int {
	n := 0
	counting := false
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		switch m := similarWarnings.FindStringSubmatch(line); {
		case strings.HasPrefix(line, "Warning: "):
			counting = line == "Warning: "+summary
			if counting {
				n++
			}
		case strings.HasPrefix(line, "Error: "):
			counting = false
		case m != nil && counting:
			more := 1
			if m[1] != "one" {
				more, _ = strconv.Atoi(m[1])
			}
			n += more
		}
	}
	return n
}

// expectConverged runs a plan that must propose nothing.
func (eng *engine) expectConverged(t testing.TB, dir string, env []string) {
	t.Helper()
	if out, err := eng.try(dir, env, "plan", "-input=false", "-detailed-exitcode", "-no-color"); err != nil {
		t.Errorf("the plan after apply is not empty: %v\n%s", err, out)
	}
}

// plan saves a plan of dir as tfplan (for `apply tfplan`) and returns, from
// the engine's JSON of it, the actions planned for each resource address and
// the addresses being imported.
func (eng *engine) plan(t testing.TB, dir string, env []string) (actions map[string][]string, imports []string) {
	t.Helper()
	eng.run(t, dir, env, "plan", "-input=false", "-no-color", "-out=tfplan")
	var p struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions   []string        `json:"actions"`
				Importing json.RawMessage `json:"importing"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(eng.run(t, dir, env, "show", "-json", "tfplan")), &p); err != nil {
		t.Fatal(err)
	}
	actions = map[string][]string{}
	for _, rc := range p.ResourceChanges {
		actions[rc.Address] = rc.Change.Actions
		if len(rc.Change.Importing) > 0 && string(rc.Change.Importing) != "null" {
			imports = append(imports, rc.Address)
		}
	}
	return actions, imports
}

// expectActions checks the actions a plan gives one address, such as
// "no-op", "update", or "delete", "create" for a replacement.
func expectActions(t testing.TB, actions map[string][]string, address string, want ...string) {
	t.Helper()
	if got := actions[address]; !slices.Equal(got, want) {
		t.Errorf("%s: planned %v, want %v", address, got, want)
	}
}

// outputs reads the root module's outputs.
func (eng *engine) outputs(t testing.TB, dir string) map[string]json.RawMessage {
	t.Helper()
	var outs map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(eng.run(t, dir, nil, "output", "-json")), &outs); err != nil {
		t.Fatal(err)
	}
	values := make(map[string]json.RawMessage, len(outs))
	for k, v := range outs {
		values[k] = v.Value
	}
	return values
}

func unquote(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("output %s is not a string: %v", raw, err)
	}
	return s
}

// configDir writes a configuration into a folder of its own.
func configDir(t testing.TB, hcl string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stateResource is a resource of the root module in `show -json` output.
type stateResource struct {
	Address string         `json:"address"`
	Mode    string         `json:"mode"`
	Type    string         `json:"type"`
	Values  map[string]any `json:"values"`
}

// stateResources reads the root module's resources from `show -json`
// output: none when the state is empty.
func stateResources(t testing.TB, show string) []stateResource {
	t.Helper()
	var st struct {
		Values *struct {
			RootModule struct {
				Resources []stateResource `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(show), &st); err != nil {
		t.Fatal(err)
	}
	if st.Values == nil {
		return nil
	}
	return st.Values.RootModule.Resources
}

// stateResourceID finds a resource's id in `show -json` output.
func stateResourceID(t testing.TB, show, address string) string {
	t.Helper()
	for _, r := range stateResources(t, show) {
		if r.Address == address {
			if id, ok := r.Values["id"].(string); ok {
				return id
			}
		}
	}
	t.Fatalf("%s is not in the state", address)
	return ""
}

// stateIDs returns the IDs in the state of dir of the managed resources of
// a type, and their job_id when they have one, by ID.
func (eng *engine) stateIDs(t testing.TB, dir, typ string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, r := range stateResources(t, eng.run(t, dir, nil, "show", "-json")) {
		if r.Mode == "managed" && r.Type == typ {
			id, _ := r.Values["id"].(string)
			job, _ := r.Values["job_id"].(string)
			ids[id] = job
		}
	}
	return ids
}

// TestEngineCapabilities checks the capability table against the engines
// users run, and that OpenTofu's numbers alone grant nothing.
func TestEngineCapabilities(t *testing.T) {
	cases := []struct {
		version string // first line of `version`
		want    []capability
	}{
		{"Terraform v1.4.7", nil},
		{"Terraform v1.5.7\non linux_amd64", []capability{capImportBlocks}},
		{"Terraform v1.6.6", []capability{capImportBlocks}},
		{"Terraform v1.7.0", []capability{capImportBlocks, capTestMocks}},
		{"Terraform v1.10.5", []capability{capImportBlocks, capTestMocks}},
		{"Terraform v1.11.4", []capability{capImportBlocks, capTestMocks, capWriteOnly}},
		{"Terraform v1.12.0-rc1", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity}},
		{"Terraform v1.13.3", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity}},
		{"Terraform v1.14.0", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity, capActions, capListResources}},
		{"Terraform v1.15.6", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity, capActions, capListResources}},
		{"Terraform v1.16.0-beta1", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity, capActions, capListResources, capActionTriggers, capModuleImports}},
		{"Terraform v1.16.4\non linux_amd64", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity, capActions, capListResources, capActionTriggers, capModuleImports}},
		{"OpenTofu v1.6.0", []capability{capImportBlocks}},
		{"OpenTofu v1.7.3", []capability{capImportBlocks}},
		{"OpenTofu v1.8.0", []capability{capImportBlocks, capTestMocks}},
		{"OpenTofu v1.10.6", []capability{capImportBlocks, capTestMocks}},
		{"OpenTofu v1.11.0", []capability{capImportBlocks, capTestMocks, capWriteOnly}},
		{"OpenTofu v1.12.6", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity}},
		{"OpenTofu v1.14.0", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity}},
		{"OpenTofu v1.16.0", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity}},
		{"OpenTofu v2.0.0", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity}},
		// OpenTofu writes a warning about a missing CLI configuration first.
		{"\nWarning: Unable to open CLI configuration file\n\nOpenTofu v1.12.6\non linux_amd64", []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity}},
	}
	all := []capability{capImportBlocks, capTestMocks, capWriteOnly, capIdentity, capActions, capListResources, capActionTriggers, capModuleImports}
	for _, c := range cases {
		info, err := parseEngineVersion(c.version)
		if err != nil {
			t.Fatalf("%q: %v", c.version, err)
		}
		for _, feature := range all {
			if got, want := info.has(feature), slices.Contains(c.want, feature); got != want {
				t.Errorf("%s has %s: %v, want %v", info, feature.name, got, want)
			}
		}
	}
	if _, err := parseEngineVersion("tofu: command not found"); err == nil {
		t.Error("an output that names no engine was read as a version")
	}
}

func TestCountWarnings(t *testing.T) {
	out := `
Warning: Prefer token_wo

  with a.b,
  on main.tf line 1:
   1: resource "a" "b" {

token is kept in the state.

(and 19 more similar warnings elsewhere)

Warning: Other

(and one more similar warning elsewhere)

Warning: Prefer token_wo

(and one more similar warning elsewhere)
`
	if got := countWarnings(out, "Prefer token_wo"); got != 22 {
		t.Errorf("countWarnings = %d, want 22", got)
	}
	if got := countWarnings(out, "Other"); got != 2 {
		t.Errorf("countWarnings(Other) = %d, want 2", got)
	}
}
