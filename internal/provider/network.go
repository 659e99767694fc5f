package provider

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// What the provider takes from the environment it runs in: the variables its
// settings fall back to, the proxy, and the engine it names in its User-Agent.

// Environment variables the provider falls back to.
const (
	EnvBaseURL     = "DATAINTEGRATION_BASE_URL"
	EnvAPIKey      = "DATAINTEGRATION_API_KEY"
	EnvWorkspaceID = "DATAINTEGRATION_WORKSPACE_ID"
	// EnvCACertificate holds the PEM itself, not a path.
	EnvCACertificate = "DATAINTEGRATION_CA_CERTIFICATE"
)

// EnvAppendUserAgent is appended to the User-Agent, as HashiCorp's providers do.
const EnvAppendUserAgent = "TF_APPEND_USER_AGENT"

// engineName is a variable so that the tests, serving the provider themselves,
// can name the engine they drive.
var engineName = engineOfParent

// engineOfParent names the engine from its executable: the plugin protocol does
// not say which engine calls.
func engineOfParent() string {
	if runtime.GOOS != "linux" {
		return "Terraform"
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/exe")
	if err != nil {
		return "Terraform"
	}
	return engineOfExecutable(exe)
}

func engineOfExecutable(exe string) string {
	name := strings.ToLower(exe[strings.LastIndexAny(exe, `/\`)+1:])
	name = strings.TrimSuffix(name, ".exe")
	if name == "tofu" || strings.HasPrefix(name, "tofu-") || strings.HasPrefix(name, "tofu_") || strings.Contains(name, "opentofu") {
		return "OpenTofu"
	}
	return "Terraform"
}

// engineProduct is the engine's product token in the User-Agent; OpenTofu gives
// providers the Terraform version it matches, not its own.
func engineProduct(name, version string) string {
	switch {
	case version == "":
		return ""
	case name == "OpenTofu":
		return fmt.Sprintf("OpenTofu (+https://opentofu.org; compatible with Terraform %s)", version)
	default:
		return fmt.Sprintf("Terraform/%s (+https://www.terraform.io)", version)
	}
}

// proxySecrets are the proxy variables' credentials, which the logs mask.
func proxySecrets() []string {
	var out []string
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		out = append(out, client.ProxyCredentials(os.Getenv(name))...)
	}
	return out
}
