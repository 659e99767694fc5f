package provider

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

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
