package provider

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// What the provider takes from the network it runs in: a private CA, the
// proxy of the environment, and the engine it names in its User-Agent.

// EnvCACertificate is ca_certificate's environment variable.
const EnvCACertificate = "DATAINTEGRATION_CA_CERTIFICATE"

// EnvAppendUserAgent is appended to the User-Agent, as HashiCorp's
// providers do.
const EnvAppendUserAgent = "TF_APPEND_USER_AGENT"

// allowedCACertificate says which values ca_certificate accepts.
const allowedCACertificate = "one or more PEM certificates (-----BEGIN CERTIFICATE-----), such as file(\"ca.pem\")"

// caCertificateSetting is ca_certificate, or else its environment variable,
// normalized as validate.NormalizePEM does; empty when neither is set.
func caCertificateSetting(v types.String, diags *diag.Diagnostics) string {
	s, _ := setting(diags, v, "ca_certificate", EnvCACertificate)
	if s == "" {
		return ""
	}
	if v.IsNull() {
		if err := validate.CACertificate(s); err != nil {
			diags.AddAttributeError(path.Root("ca_certificate"), "Invalid Provider Setting",
				fmt.Sprintf("%s: %s. Allowed: %s.", EnvCACertificate, err, allowedCACertificate))
		}
	}
	return validate.NormalizePEM(s)
}

// engineName names the engine that runs the provider; a variable so that
// the tests, which serve the provider from their own process, can name the
// engine they drive.
var engineName = engineOfParent

// engineOfParent names the engine from the executable that started the
// provider, since the plugin protocol does not say which engine calls:
// OpenTofu when it is named tofu, else Terraform, the name the protocol
// gives its version field.
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

// engineOfExecutable names the engine of an executable's path.
func engineOfExecutable(exe string) string {
	name := strings.ToLower(exe[strings.LastIndexAny(exe, `/\`)+1:])
	name = strings.TrimSuffix(name, ".exe")
	if name == "tofu" || strings.HasPrefix(name, "tofu-") || strings.HasPrefix(name, "tofu_") || strings.Contains(name, "opentofu") {
		return "OpenTofu"
	}
	return "Terraform"
}

// engineProduct is the engine's product token in the User-Agent, as
// HashiCorp's providers write it: "Terraform/1.16.4
// (+https://www.terraform.io)". OpenTofu does not give providers its own
// version but the Terraform version whose provider features it supports,
// so its token has no version of its own: "OpenTofu (+https://opentofu.org;
// compatible with Terraform 1.13.0)". Empty when the engine gave no
// version.
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

// proxySecrets are the credentials of the proxy variables, which the
// provider's logs mask.
func proxySecrets() []string {
	var out []string
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		out = append(out, client.ProxyCredentials(os.Getenv(name))...)
	}
	return out
}

// addConnectError adds the diagnostic of a request that could not reach the
// service (its host, its TLS, its proxy, or a scheme it does not speak),
// naming the cause and the setting that fixes it. It tells whether err was
// one.
func addConnectError(diags *diag.Diagnostics, e *client.Error) bool {
	var ce *client.ConnectError
	if !errors.As(e, &ce) {
		return false
	}
	cause := fmt.Sprintf("No request reached the service (%s %s): %s", e.Method, e.Path, ce)
	switch ce.Failure {
	case client.UntrustedCertificate:
		diags.AddError("Untrusted Service Certificate", fmt.Sprintf(
			"%s. "+
				"If the service uses a certificate from your organisation's own CA, or a proxy re-signs HTTPS, trust that CA: "+
				"set ca_certificate in the provider configuration to its PEM, such as ca_certificate = file(\"ca.pem\"), or %s to the PEM itself. "+
				"On Linux, SSL_CERT_FILE naming a file of the system's roots and that CA works too.", cause, EnvCACertificate))
	case client.CertificateNameMismatch:
		diags.AddError("Service Certificate Name Mismatch", fmt.Sprintf(
			"%s. Set base_url to a host name the certificate names, "+
				"or have the service's certificate reissued for the host base_url names. ca_certificate cannot fix this.", cause))
	case client.CertificateExpired:
		diags.AddError("Service Certificate Not Valid Now", fmt.Sprintf(
			"%s. Its operators must renew it; if it has not expired, set this machine's clock right. "+
				"ca_certificate cannot fix this.", cause))
	case client.UnknownHost:
		diags.AddError("Unknown Service Host", fmt.Sprintf(
			"%s. Check the host in base_url (or %s). "+
				"If your network reaches the service only through a proxy, set HTTPS_PROXY to it; a host that NO_PROXY names is reached without the proxy.", cause, EnvBaseURL))
	case client.ProxyAuthRequired:
		fix := "Give the proxy's user name and password in HTTPS_PROXY, as http://user:password@proxy.example.com:3128 (percent-encode special characters)"
		if ce.ProxyCredentials {
			fix = "Check the user name and password in HTTPS_PROXY (percent-encode special characters, such as %40 for @)"
		}
		diags.AddError("Proxy Authentication Required", fmt.Sprintf(
			"%s. %s, or name the service's host in NO_PROXY if it needs no proxy. The credentials are never shown.", cause, fix))
	case client.ProxyRefused:
		if ce.ProxyStatus == 0 {
			diags.AddError("Proxy Unreachable", fmt.Sprintf(
				"%s%s. HTTPS_PROXY (or https_proxy) names the proxy the service is reached through: "+
					"check that it names a running proxy, with http:// unless the proxy itself speaks TLS, or name the service's host in NO_PROXY to connect without one.", cause, e.Retries()))
			break
		}
		diags.AddError("Proxy Refused the Tunnel", fmt.Sprintf(
			"%s. The proxy runs, but could not reach the service's host or does not allow it: "+
				"check the host and port in base_url (or %s), and ask the proxy's operators to allow them if they are right; "+
				"a host that NO_PROXY names is reached without the proxy.", cause, EnvBaseURL))
	case client.Unreachable:
		stopped := ""
		switch {
		case strings.HasPrefix(ce.StoppedBy, "max_retries"):
			stopped = fmt.Sprintf(" The provider stopped retrying when a request reached %s failing to reach the service: ", ce.StoppedBy)
		case ce.StoppedBy != "":
			stopped = fmt.Sprintf(" The provider stopped retrying once it had spent %s failing to reach the service: ", ce.StoppedBy)
		}
		if stopped != "" {
			stopped += "every later request of this run makes one attempt and fails at once while the service stays out of reach."
		}
		diags.AddError("Service Unreachable", fmt.Sprintf(
			"%s%s. Check the host and port in base_url (or %s), that the service runs and listens there, "+
				"and that no firewall, VPN or proxy setting (HTTPS_PROXY, NO_PROXY) keeps this machine from it.%s", cause, e.Retries(), EnvBaseURL, stopped))
	case client.ServiceSpeaksHTTP:
		fix := fmt.Sprintf("Set base_url (or %s) to the service's https:// address, on the port where it speaks TLS: "+
			"the provider takes http:// only on a loopback host (127.x.x.x, ::1, localhost), so a service that speaks plain http alone needs TLS in front of it.", EnvBaseURL)
		if validate.BaseURL("http://"+ce.Host) == nil {
			fix = fmt.Sprintf("If the service speaks plain http, set base_url (or %s) to http://%s, which the provider takes on a loopback host; "+
				"else to the port where it speaks TLS.", EnvBaseURL, ce.Host)
		}
		diags.AddError("Service Speaks HTTP, Not HTTPS", fmt.Sprintf("%s. %s No retry can fix this.", cause, fix))
	case client.ServiceSpeaksTLS:
		diags.AddError("Service Speaks HTTPS, Not HTTP", fmt.Sprintf(
			"%s. Set base_url to https://%s (or %s), with ca_certificate if its certificate is of a private CA. No retry can fix this.", cause, ce.Host, EnvBaseURL))
	default:
		return false
	}
	return true
}
