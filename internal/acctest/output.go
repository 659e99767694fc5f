package acctest

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

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
)

// cliRecordMask is where the wrapper records each test's engine output; "" when not recording.
var cliRecordMask string

// Recording tells whether Main wraps the engine to record what it prints.
func Recording() bool { return cliRecordMask != "" }

var realEngine string

// cliWrapper runs the engine, copying its output and configuration beside $TF_LOG_PATH.
const cliWrapper = `#!/usr/bin/env bash
real=%q
if [ -z "$TF_LOG_PATH" ]; then exec "$real" "$@"; fi
out="$TF_LOG_PATH.cli"
if [ "$1" = show ] && [[ " $* " == *" -json "* ]]; then out="$TF_LOG_PATH.json"; fi
cat ./*.tf ./*.tfvars.json >>"$TF_LOG_PATH.config" 2>/dev/null
"$real" "$@" > >(tee -a "$out") 2> >(tee -a "$out" >&2)
`

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

// Recorded is what the wrapper kept for t and its subtests.
func Recorded(t testing.TB, ext string) string {
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

// expectNoSecretPrinted fails t, when it ends, if the engine printed a secret.
func expectNoSecretPrinted(t testing.TB, known ...string) {
	t.Cleanup(func() {
		secrets := append(SecretsIn(Recorded(t, ".config")), known...)
		for _, leak := range Leaks(Recorded(t, ".cli"), secrets) {
			t.Errorf("an engine command printed a secret: %s", leak)
		}
	})
}

// secretName names a secret; token_wo_version only numbers one.
var secretName = regexp.MustCompile(`(?i)(^|_)(token|api_key|secret|password)(_wo)?$`)

var secretLiteral = regexp.MustCompile(`"?([A-Za-z_][A-Za-z0-9_-]*)"?\s*[=:]\s*("(?:[^"\\\n]|\\.)*")`)

// minSecret leaves out short values ("", "  "), which would match everywhere.
const minSecret = 6

// SecretsIn are the literal values of attributes and variables named like a secret.
func SecretsIn(config string) []string {
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
		// As given, as written, and trimmed, which a message could show.
		for _, form := range []string{v, m[2][1 : len(m[2])-1], strings.TrimSpace(v)} {
			if len(strings.TrimSpace(form)) >= minSecret && !slices.Contains(out, form) {
				out = append(out, form)
			}
		}
	}
	return out
}

// proxyVars are the variables Go reads a proxy from, in both cases.
var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"}

// SecretsInEnv are the API key, TF_VAR_ secrets and proxy credentials of env.
func SecretsInEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		name, isVar := strings.CutPrefix(k, "TF_VAR_")
		if (k == providerenv.APIKey || (isVar && secretName.MatchString(name))) && len(strings.TrimSpace(v)) >= minSecret {
			out = append(out, v)
		}
		if slices.Contains(proxyVars, k) {
			for _, c := range client.ProxyCredentials(v) {
				if len(c) >= minSecret {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// Leaks describes each secret printed holds, with its line.
func Leaks(printed string, secrets []string) []string {
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

// jsonCommand tells whether args print JSON, which shows sensitive values by design.
func jsonCommand(args []string) bool {
	return len(args) > 0 && (args[0] == "show" || args[0] == "output") && slices.Contains(args, "-json")
}

func configSecrets(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
	var all strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all.Write(b)
	}
	return SecretsIn(all.String())
}

// Main runs a package's tests from TestMain and removes the providers they built.
func Main(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	defer removeBuilds()
	path := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if os.Getenv("TF_ACC") == "" || path == "" {
		return m.Run()
	}
	info, err := detectEngineAt(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "acceptance tests:", err)
		return 1
	}
	fmt.Printf("Acceptance tests under %s (%s)\n", info, path)
	// resource.Test's default registry.terraform.io is no address OpenTofu resolves.
	if info.Tofu {
		for k, v := range map[string]string{"TF_ACC_PROVIDER_HOST": "registry.opentofu.org", "TF_ACC_PROVIDER_NAMESPACE": "hashicorp"} {
			if os.Getenv(k) == "" {
				_ = os.Setenv(k, v)
			}
		}
	}
	done, err := recordCLIOutput(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "acceptance tests:", err)
		return 1
	}
	defer done()
	return m.Run()
}
