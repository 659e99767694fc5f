package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
)

// engine is the Terraform or OpenTofu CLI the acceptance tests drive, run by
// hand with the provider built from this tree, the way a user runs it.
type engine struct {
	path     string
	provider string // the provider binary the dev override points at
	version  *version.Version
	env      []string
}

func newEngine(t testing.TB) *engine {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	path := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if path == "" {
		var err error
		if path, err = exec.LookPath("terraform"); err != nil {
			t.Fatal("TF_ACC_TERRAFORM_PATH is not set and there is no terraform on PATH: `make test` builds one")
		}
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-dataintegration"), ".")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	// A dev override for both addresses an example may use: the one in
	// required_providers, and the default for a bare resource example.
	cfg := filepath.Join(t.TempDir(), "cli-config.tfrc")
	text := fmt.Sprintf(`provider_installation {
  dev_overrides {
    "dataintegration/dataintegration" = %[1]q
    "hashicorp/dataintegration"       = %[1]q
  }
  direct {}
}
`, bin)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &engine{path: path, provider: filepath.Join(bin, "terraform-provider-dataintegration"), env: []string{
		"TF_CLI_CONFIG_FILE=" + cfg, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"TF_DATA_DIR=" + filepath.Join(t.TempDir(), "data"),
	}}
	out := e.run(t, ".", nil, "version", "-json")
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("reading `version -json`: %v\n%s", err, out)
	}
	var err error
	if e.version, err = version.NewVersion(v.Version); err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs the engine in dir with extra environment variables and returns
// its standard output; a non-zero exit fails the test.
func (e *engine) run(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := e.try(dir, env, args...)
	if err != nil {
		t.Fatalf("%s %s in %s: %v", filepath.Base(e.path), strings.Join(args, " "), dir, err)
	}
	return out
}

// try runs the engine like run, and returns its failure with what it printed.
func (e *engine) try(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command(e.path, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), e.env...), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w\n%s%s", err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// expectConverged runs a plan that must propose nothing.
func (e *engine) expectConverged(t testing.TB, dir string, env []string) {
	t.Helper()
	if out, err := e.try(dir, env, "plan", "-input=false", "-detailed-exitcode", "-no-color"); err != nil {
		t.Errorf("the plan after apply is not empty: %v\n%s", err, out)
	}
}

// outputs reads the root module's outputs.
func (e *engine) outputs(t testing.TB, dir string) map[string]json.RawMessage {
	t.Helper()
	var outs map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(e.run(t, dir, nil, "output", "-json")), &outs); err != nil {
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

// stateResourceID finds a resource's id in `show -json` output.
func stateResourceID(t testing.TB, show, address string) string {
	t.Helper()
	var st struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(show), &st); err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Values.RootModule.Resources {
		if r.Address == address {
			if id, ok := r.Values["id"].(string); ok {
				return id
			}
		}
	}
	t.Fatalf("%s is not in the state", address)
	return ""
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

// stateIDs returns the IDs in the state of the resources of a type, and
// their job_id when they have one, by ID.
func (e *engine) stateIDs(t testing.TB, dir, typ string) map[string]string {
	t.Helper()
	var st struct {
		Values *struct {
			RootModule struct {
				Resources []struct {
					Type   string         `json:"type"`
					Mode   string         `json:"mode"`
					Values map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(e.run(t, dir, nil, "show", "-json")), &st); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	if st.Values == nil {
		return ids
	}
	for _, r := range st.Values.RootModule.Resources {
		if r.Mode == "managed" && r.Type == typ {
			id, _ := r.Values["id"].(string)
			job, _ := r.Values["job_id"].(string)
			ids[id] = job
		}
	}
	return ids
}
