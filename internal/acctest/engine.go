package acctest

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

// Capability is an engine feature with the first version of each engine
// that has it: OpenTofu's numbers pass 1.14 without actions.
type Capability struct {
	Name      string
	Terraform string // the first Terraform version that has it
	Tofu      string // the first OpenTofu version that has it; "" when no release has it
}

var (
	CapImportBlocks  = Capability{Name: "import blocks and `plan -generate-config-out`", Terraform: "1.5.0", Tofu: "1.6.0"}
	CapWriteOnly     = Capability{Name: "write-only attributes", Terraform: "1.11.0", Tofu: "1.11.0"}
	CapIdentity      = Capability{Name: "resource identity", Terraform: "1.12.0", Tofu: "1.12.0"}
	CapImportForEach = Capability{Name: "`import` blocks with `for_each`", Terraform: "1.7.0", Tofu: "1.7.0"}
	CapTestMocks     = Capability{Name: "`terraform test` with `mock_provider`", Terraform: "1.7.0", Tofu: "1.8.0"}
	// OpenTofu has no actions, list resources or `query` in any release.
	CapActions       = Capability{Name: "actions", Terraform: "1.14.0"}
	CapListResources = Capability{Name: "list resources and `terraform query`", Terraform: "1.14.0"}
	// Terraform 1.14 and 1.15 refuse these, or ignore a module's import block without a word.
	CapActionTriggers = Capability{Name: "`on_failure` and destroy-time events on `action_trigger`", Terraform: "1.16.0"}
	CapModuleImports  = Capability{Name: "`import` blocks inside modules", Terraform: "1.16.0"}
)

// Where says which versions have c, for skip messages.
func (c Capability) Where() string {
	tofu := "no OpenTofu release"
	if c.Tofu != "" {
		tofu = "OpenTofu " + c.Tofu + "+"
	}
	return "Terraform " + c.Terraform + "+, " + tofu
}

type EngineInfo struct {
	Tofu    bool
	Version *version.Version
}

func (i EngineInfo) String() string {
	if i.Tofu {
		return "OpenTofu " + i.Version.String()
	}
	return "Terraform " + i.Version.String()
}

func (i EngineInfo) Has(c Capability) bool {
	first := c.Terraform
	if i.Tofu {
		first = c.Tofu
	}
	// Prereleases of a version count as that version.
	return first != "" && !i.Version.Core().LessThan(version.Must(version.NewVersion(first)))
}

var engineVersionLine = regexp.MustCompile(`(?m)^(Terraform|OpenTofu) v(\S+)`)

func parseEngineVersion(out string) (EngineInfo, error) {
	m := engineVersionLine.FindStringSubmatch(out)
	if m == nil {
		return EngineInfo{}, fmt.Errorf("not the output of `version` of Terraform or OpenTofu: %.80q", out)
	}
	v, err := version.NewVersion(m[2])
	if err != nil {
		return EngineInfo{}, err
	}
	return EngineInfo{Tofu: m[1] == "OpenTofu", Version: v}, nil
}

// enginePath is the CLI terraform-plugin-testing would pick.
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
	detected     EngineInfo
	detectErr    error
)

// EngineUnderTest says which engine the acceptance tests drive, asked once per binary.
func EngineUnderTest(t testing.TB) EngineInfo {
	t.Helper()
	info, err := detectEngineAt(enginePath(t))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func detectEngineAt(path string) (EngineInfo, error) {
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

// RequireCapability skips an acceptance test the engine cannot run, saying why.
func RequireCapability(t testing.TB, c Capability) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	if info := EngineUnderTest(t); !info.Has(c) {
		t.Skipf("needs %s (%s); this engine is %s", c.Name, c.Where(), info)
	}
}

// RequireMissingCapability skips a test of an engine without c where the engine has it.
func RequireMissingCapability(t testing.TB, c Capability) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	if info := EngineUnderTest(t); info.Has(c) {
		t.Skipf("tests an engine without %s (%s); this engine is %s and has them", c.Name, c.Where(), info)
	}
}

// Engine is the engine's CLI run by hand with the provider built from this tree.
type Engine struct {
	Path     string
	Provider string // the provider binary the dev override points at
	Info     EngineInfo
	Env      []string

	mu     sync.Mutex
	leaked []string // secrets a command printed (see output.go)
}

// NewEngine is the engine with the tree's provider, built once per test binary; a test whose
// engine lacks one of needs is skipped before anything is built.
func NewEngine(t testing.TB, needs ...Capability) *Engine {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	for _, c := range needs {
		RequireCapability(t, c)
	}
	bin := builtProvider(t, treeRev)
	eng := EngineWithCLIConfig(t, DevOverrides(bin))
	eng.Provider = filepath.Join(bin, "terraform-provider-dataintegration")
	return eng
}

// ProviderAt is the folder of the provider built at a git revision, once per test binary.
func ProviderAt(tb testing.TB, rev string) string {
	tb.Helper()
	return builtProvider(tb, rev)
}

// DevOverrides loads the provider from dir at both addresses an example may use.
func DevOverrides(dir string) string {
	return fmt.Sprintf(`provider_installation {
  dev_overrides {
    "dataintegration/dataintegration" = %[1]q
    "hashicorp/dataintegration"       = %[1]q
  }
  direct {}
}
`, dir)
}

// EngineWithCLIConfig is the engine under test with the given CLI configuration.
func EngineWithCLIConfig(t testing.TB, text string) *Engine {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	cfg := writeCLIConfig(t, text)
	eng := &Engine{Path: enginePath(t), Info: EngineUnderTest(t), Env: []string{
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

// Run runs the engine in dir and returns its output; a failure fails the test.
func (eng *Engine) Run(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := eng.Try(dir, env, args...)
	if err != nil {
		t.Fatalf("%s %s in %s: %v", filepath.Base(eng.Path), strings.Join(args, " "), dir, err)
	}
	return out
}

// Try is Run that returns the failure with what the engine printed.
func (eng *Engine) Try(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command(eng.Path, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), eng.Env...), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if !jsonCommand(args) {
		secrets := append(SecretsInEnv(cmd.Env), configSecrets(dir)...)
		if found := Leaks(stdout.String()+stderr.String(), secrets); len(found) > 0 {
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

// similarWarnings is how an engine sums up the warnings after the first.
var similarWarnings = regexp.MustCompile(`^\(and (one|\d+) more similar warnings?(?: elsewhere)?\)$`)

// CountWarnings counts the warnings of a summary, those summed up included.
func CountWarnings(out, summary string) int {
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

// ExpectConverged runs a plan that must propose nothing.
func (eng *Engine) ExpectConverged(t testing.TB, dir string, env []string) {
	t.Helper()
	if out, err := eng.Try(dir, env, "plan", "-input=false", "-detailed-exitcode", "-no-color"); err != nil {
		t.Errorf("the plan after apply is not empty: %v\n%s", err, out)
	}
}

// Plan saves a plan of dir as tfplan and returns the actions and imports planned.
func (eng *Engine) Plan(t testing.TB, dir string, env []string) (actions map[string][]string, imports []string) {
	t.Helper()
	eng.Run(t, dir, env, "plan", "-input=false", "-no-color", "-out=tfplan")
	var p struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions   []string        `json:"actions"`
				Importing json.RawMessage `json:"importing"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(eng.Run(t, dir, env, "show", "-json", "tfplan")), &p); err != nil {
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

// ExpectActions checks the actions a plan gives one address.
func ExpectActions(t testing.TB, actions map[string][]string, address string, want ...string) {
	t.Helper()
	if got := actions[address]; !slices.Equal(got, want) {
		t.Errorf("%s: planned %v, want %v", address, got, want)
	}
}

func (eng *Engine) Outputs(t testing.TB, dir string) map[string]json.RawMessage {
	t.Helper()
	var outs map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(eng.Run(t, dir, nil, "output", "-json")), &outs); err != nil {
		t.Fatal(err)
	}
	values := make(map[string]json.RawMessage, len(outs))
	for k, v := range outs {
		values[k] = v.Value
	}
	return values
}

func Unquote(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("output %s is not a string: %v", raw, err)
	}
	return s
}

func ConfigDir(t testing.TB, hcl string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// StateResource is a resource of the root module in `show -json`.
type StateResource struct {
	Address string         `json:"address"`
	Mode    string         `json:"mode"`
	Type    string         `json:"type"`
	Values  map[string]any `json:"values"`
}

// StateResources reads the root module's resources from `show -json`.
func StateResources(t testing.TB, show string) []StateResource {
	t.Helper()
	var st struct {
		Values *struct {
			RootModule struct {
				Resources []StateResource `json:"resources"`
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

// StateResourceID finds a resource's id in `show -json`.
func StateResourceID(t testing.TB, show, address string) string {
	t.Helper()
	for _, r := range StateResources(t, show) {
		if r.Address == address {
			if id, ok := r.Values["id"].(string); ok {
				return id
			}
		}
	}
	t.Fatalf("%s is not in the state", address)
	return ""
}

// StateIDs maps the IDs of dir's managed resources of typ to their job_id.
func (eng *Engine) StateIDs(t testing.TB, dir, typ string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, r := range StateResources(t, eng.Run(t, dir, nil, "show", "-json")) {
		if r.Mode == "managed" && r.Type == typ {
			id, _ := r.Values["id"].(string)
			job, _ := r.Values["job_id"].(string)
			ids[id] = job
		}
	}
	return ids
}

func DevOverrideFile(tb testing.TB, dir string) string {
	tb.Helper()
	return writeCLIConfig(tb, DevOverrides(dir))
}

func writeCLIConfig(tb testing.TB, text string) string {
	tb.Helper()
	cfg := filepath.Join(tb.TempDir(), "cli-config.tfrc")
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// EngineName is the engine as the provider names it in its User-Agent: the
// provider served from the test binary cannot tell it from its parent.
func EngineName() string {
	path := realEngine
	if path == "" && os.Getenv("TF_ACC") != "" {
		path = os.Getenv("TF_ACC_TERRAFORM_PATH")
	}
	if path == "" {
		return "Terraform"
	}
	info, err := detectEngineAt(path)
	if err != nil || !info.Tofu {
		return "Terraform"
	}
	return "OpenTofu"
}
