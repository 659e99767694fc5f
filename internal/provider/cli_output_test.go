package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// No secret printed: every acceptance test checks that nothing its engine
// printed holds a secret of the test, the API key or a token, whatever the
// configuration says. resource.Test runs the engine through a wrapper that
// keeps a copy of what each command printed (recordCLIOutput), and the
// engine harness checks each command's output as it runs it (engine.try).
//
// The secrets are the test's API key and the values the configurations
// give literally to attributes and variables named like a secret (token,
// token_wo, api_key, platform_token…), in .tf files or tfvars, or through
// TF_VAR_ and DATAINTEGRATION_API_KEY in the engine's environment. The JSON
// of `show -json` and `output -json` is left out: Terraform shows sensitive
// values there in clear by design, for programs.

// cliRecordMask is where the wrapper keeps what the commands of each test
// printed: a path with %s for the test's name (TF_LOG_PATH_MASK's, which
// terraform-plugin-testing fills in for each test), then ".cli" for the
// output and ".config" for the configurations. "" when not recording.
var cliRecordMask string

// realEngine is the engine the wrapper runs; the engine harness runs it
// directly.
var realEngine string

// cliWrapper runs the engine with the same arguments, copying what it
// prints into $TF_LOG_PATH.cli (or .json for `show -json`) and the
// configuration it was given into $TF_LOG_PATH.config.
const cliWrapper = `#!/usr/bin/env bash
real=%q
if [ -z "$TF_LOG_PATH" ]; then exec "$real" "$@"; fi
out="$TF_LOG_PATH.cli"
if [ "$1" = show ] && [[ " $* " == *" -json "* ]]; then out="$TF_LOG_PATH.json"; fi
cat ./*.tf ./*.tfvars.json >>"$TF_LOG_PATH.config" 2>/dev/null
"$real" "$@" > >(tee -a "$out") 2> >(tee -a "$out" >&2)
`

// recordCLIOutput puts the wrapper in front of the engine for resource.Test,
// in a folder that the returned function removes.
func recordCLIOutput(engine string) (func(), error) {
	dir, err := os.MkdirTemp("", "dataintegration-cli-")
	if err != nil {
		return nil, err
	}
	wrapper := filepath.Join(dir, "engine")
	if err := os.WriteFile(wrapper, fmt.Appendf(nil, cliWrapper, engine), 0o700); err != nil { //nolint:gosec // a script to run
		return nil, err
	}
	mask := os.Getenv("TF_LOG_PATH_MASK")
	if mask == "" {
		mask = filepath.Join(dir, "%s.log")
	}
	for k, v := range map[string]string{"TF_LOG_PATH_MASK": mask, "TF_ACC_TERRAFORM_PATH": wrapper} {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	cliRecordMask, realEngine = mask, engine
	return func() { _ = os.RemoveAll(dir) }, nil
}

// recorded is what the wrapper kept for test t and its subtests (whose
// names terraform-plugin-testing writes with "__" for "/"): "" when nothing
// was.
func recorded(t testing.TB, ext string) string {
	t.Helper()
	before, after, ok := strings.Cut(cliRecordMask, "%s")
	if !ok {
		return ""
	}
	prefix := before + strings.ReplaceAll(t.Name(), "/", "__")
	files, err := os.ReadDir(filepath.Dir(prefix))
	if err != nil {
		return ""
	}
	var all strings.Builder
	for _, f := range files {
		p := filepath.Join(filepath.Dir(prefix), f.Name())
		mid, isTest := strings.CutPrefix(p, prefix)
		mid, isFile := strings.CutSuffix(mid, after+ext)
		if !isTest || !isFile || (mid != "" && !strings.HasPrefix(mid, "__")) {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
		}
		all.Write(b)
	}
	return all.String()
}

// expectNoSecretPrinted checks, when test t ends, that nothing the engine
// printed for its resource.Test runs holds one of its secrets: known, and
// those of the configurations the engine was given.
func expectNoSecretPrinted(t testing.TB, known ...string) {
	t.Cleanup(func() {
		secrets := append(secretsIn(recorded(t, ".config")), known...)
		for _, leak := range leaks(recorded(t, ".cli"), secrets) {
			t.Errorf("an engine command printed a secret: %s", leak)
		}
	})
}

// secretName is the name of an attribute or variable that holds a secret;
// token_wo_version only numbers one.
var secretName = regexp.MustCompile(`(?i)(^|_)(token|api_key|secret|password)(_wo)?$`)

// secretLiteral finds name = "value" in HCL and "name": "value" in JSON.
var secretLiteral = regexp.MustCompile(`"?([A-Za-z_][A-Za-z0-9_-]*)"?\s*[=:]\s*("(?:[^"\\\n]|\\.)*")`)

// minSecret is the length below which a value is not looked for: blank or
// short test values ("", "  ") would match everywhere.
const minSecret = 6

// secretsIn are the values a configuration gives literally to attributes and
// variables named like a secret.
func secretsIn(config string) []string {
	var out []string
	for _, m := range secretLiteral.FindAllStringSubmatch(config, -1) {
		if !secretName.MatchString(m[1]) {
			continue
		}
		v, err := strconv.Unquote(m[2])
		if err != nil {
			_ = json.Unmarshal([]byte(m[2]), &v)
		}
		if strings.Contains(v, "${") {
			continue
		}
		// As given, as written (with its escapes), and without the spaces
		// or line break around it, which a message could drop.
		for _, form := range []string{v, m[2][1 : len(m[2])-1], strings.TrimSpace(v)} {
			if len(strings.TrimSpace(form)) >= minSecret && !slices.Contains(out, form) {
				out = append(out, form)
			}
		}
	}
	return out
}

// secretsInEnv are the values of the environment variables that hold a
// secret: the API key, and TF_VAR_ variables named like a secret.
func secretsInEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		name, isVar := strings.CutPrefix(k, "TF_VAR_")
		if (k == EnvAPIKey || (isVar && secretName.MatchString(name))) && len(strings.TrimSpace(v)) >= minSecret {
			out = append(out, v)
		}
	}
	return out
}

// leaks describes each secret that printed holds, with the line it is on.
func leaks(printed string, secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if len(strings.TrimSpace(s)) < minSecret {
			continue
		}
		if i := strings.Index(printed, s); i >= 0 {
			start := strings.LastIndexByte(printed[:i], '\n') + 1
			end := strings.IndexByte(printed[i:], '\n')
			if end < 0 {
				end = len(printed) - i
			}
			out = append(out, fmt.Sprintf("%q, in the line %q", s, printed[start:i+end]))
		}
	}
	return out
}

// jsonCommand tells whether args print JSON that holds sensitive values in
// clear by design.
func jsonCommand(args []string) bool {
	return len(args) > 0 && (args[0] == "show" || args[0] == "output") && slices.Contains(args, "-json")
}

// configSecrets are the secrets the .tf files of dir give literally.
func configSecrets(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
	var all strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all.Write(b)
	}
	return secretsIn(all.String())
}

func TestSecretsIn(t *testing.T) {
	config := `
provider "dataintegration" {
  api_key = "key-from-config"
}
resource "dataintegration_customer_service_connector" "a" {
  name             = "Support desk"
  token            = "tok-literal-1"
  token_wo         = "tok \"quoted\" 2"
  token_wo_version = 3
  url              = "https://acme.example.com"
}
resource "x" "b" {
  token = "${var.token}"
  token = "  "
}
{"platform_token": "tok-from-tfvars", "workspace": "ws-not-a-secret"}
api_key = "key with\n"
`
	want := []string{"key-from-config", "tok-literal-1", `tok "quoted" 2`, `tok \"quoted\" 2`, "tok-from-tfvars", "key with\n", `key with\n`, "key with"}
	if got := secretsIn(config); !slices.Equal(got, want) {
		t.Errorf("secretsIn = %q, want %q", got, want)
	}
	env := []string{EnvAPIKey + "=key-from-env", "TF_VAR_platform_token=tok-from-env", "TF_VAR_name=Support desk", "TF_VAR_token_wo_version=12345678"}
	fromEnv := secretsInEnv(env)
	if want := []string{"key-from-env", "tok-from-env"}; !slices.Equal(fromEnv, want) {
		t.Errorf("secretsInEnv = %q, want %q", fromEnv, want)
	}
	printed := "Warning: Prefer token_wo\n\n  on main.tf line 7:\n   7:   token = \"tok-literal-1\"\n"
	if got := leaks(printed, fromEnv); len(got) != 0 {
		t.Errorf("leaks of other secrets: %q", got)
	}
	got := leaks(printed, secretsIn(config))
	if len(got) != 1 || !strings.Contains(got[0], `7:   token = \"tok-literal-1\"`) {
		t.Errorf("leaks = %q, want the token's line", got)
	}
	if !jsonCommand([]string{"show", "-json", "tfplan"}) || jsonCommand([]string{"show", "tfplan"}) || jsonCommand([]string{"plan", "-json"}) {
		t.Error("jsonCommand tells show -json and output -json apart from the rest wrongly")
	}
}

// TestAccCLIOutput_recorded: the wrapper keeps what the engine printed and
// the configuration it was given, so that a secret printed is found: here a
// token shown on purpose by an output.
func TestAccCLIOutput_recorded(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	if cliRecordMask == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set: the acceptance tests run the engine it names through a wrapper that records its output")
	}
	const shown = "tok-shown-on-purpose"
	// In a subtest, as many tests run theirs: the test's check reads them.
	t.Run("output", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: fmt.Sprintf("locals {\n  token = %q\n}\n\noutput \"shown\" {\n  value = local.token\n}\n", shown),
			}},
		})
	})
	config, printed := recorded(t, ".config"), recorded(t, ".cli")
	if !slices.Contains(secretsIn(config), shown) {
		t.Errorf("the recorded configuration does not give the token:\n%s", config)
	}
	if found := leaks(printed, secretsIn(config)); len(found) == 0 {
		t.Errorf("the recorded output does not show the token, which the apply printed:\n%s", printed)
	}
}
