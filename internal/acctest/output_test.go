package acctest_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/provider"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
)

func TestOutput_secretsIn(t *testing.T) {
	t.Parallel()
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
	if got := acctest.SecretsIn(config); !slices.Equal(got, want) {
		t.Errorf("secretsIn = %q, want %q", got, want)
	}
	env := []string{providerenv.APIKey + "=key-from-env", "TF_VAR_platform_token=tok-from-env", "TF_VAR_name=Support desk", "TF_VAR_token_wo_version=12345678",
		"HTTPS_PROXY=http://ci:pr0xy-pass@proxy.example.com:3128", "https_proxy=ci:other-pass@proxy.example.com", "HTTP_PROXY=http://proxy.example.com:3128", "NO_PROXY=.example.com"}
	fromEnv := acctest.SecretsInEnv(env)
	if want := []string{"key-from-env", "tok-from-env", "pr0xy-pass", "ci:pr0xy-pass", "other-pass", "ci:other-pass"}; !slices.Equal(fromEnv, want) {
		t.Errorf("secretsInEnv = %q, want %q", fromEnv, want)
	}
	printed := "Warning: Prefer token_wo\n\n  on main.tf line 7:\n   7:   token = \"tok-literal-1\"\n"
	if got := acctest.Leaks(printed, fromEnv); len(got) != 0 {
		t.Errorf("leaks of other secrets: %q", got)
	}
	got := acctest.Leaks(printed, acctest.SecretsIn(config))
	if len(got) != 1 || !strings.Contains(got[0], `7:   token = \"tok-literal-1\"`) {
		t.Errorf("leaks = %q, want the token's line", got)
	}
	if !acctest.JSONCommand([]string{"show", "-json", "tfplan"}) || acctest.JSONCommand([]string{"show", "tfplan"}) || acctest.JSONCommand([]string{"plan", "-json"}) {
		t.Error("jsonCommand tells show -json and output -json apart from the rest wrongly")
	}
}

// TestAccCLIOutput_recorded: the wrapper keeps what the engine printed and
// the configuration it was given, so that a secret printed is found: here a
// token shown on purpose by an output.
func TestAccCLIOutput_recorded(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	if !acctest.Recording() {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set: the acceptance tests run the engine it names through a wrapper that records its output")
	}
	const shown = "tok-shown-on-purpose"
	// In a subtest, as many tests run theirs: the test's check reads them.
	t.Run("output", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){"dataintegration": provider.NewServer("test")},
			Steps: []resource.TestStep{{
				Config: fmt.Sprintf("locals {\n  token = %q\n}\n\noutput \"shown\" {\n  value = local.token\n}\n", shown),
			}},
		})
	})
	config, printed := acctest.Recorded(t, ".config"), acctest.Recorded(t, ".cli")
	if !slices.Contains(acctest.SecretsIn(config), shown) {
		t.Errorf("the recorded configuration does not give the token:\n%s", config)
	}
	if found := acctest.Leaks(printed, acctest.SecretsIn(config)); len(found) == 0 {
		t.Errorf("the recorded output does not show the token, which the apply printed:\n%s", printed)
	}
}

func TestMain(m *testing.M) { acctest.Main(m) }
